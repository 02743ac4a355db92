package tpch

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// WriteCSV writes the table into dir as <name>.csv, with a header, as
// eddy's file connector reads it (CREATE STREAM ... WITH (connector =
// 'file', path = '<name>.csv', header = 'true')).
func WriteCSV(dir string, t *Table) error {
	f, err := os.Create(filepath.Join(dir, t.Name+".csv"))
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	w.WriteString(strings.Join(t.Names(), ",") + "\n")
	var b []byte
	for _, row := range t.Rows {
		b = b[:0]
		for i, v := range row {
			if i > 0 {
				b = append(b, ',')
			}
			switch v := v.(type) {
			case int64:
				b = strconv.AppendInt(b, v, 10)
			case float64:
				b = strconv.AppendFloat(b, v, 'f', -1, 64)
			case string:
				b = field(b, v)
			}
		}
		w.Write(append(b, '\n'))
	}
	return errors.Join(w.Flush(), f.Close())
}

// field appends a text field, quoted when it needs to be.
func field(b []byte, s string) []byte {
	if !strings.ContainsAny(s, ",\"\n") {
		return append(b, s...)
	}
	b = append(b, '"')
	b = append(b, strings.ReplaceAll(s, `"`, `""`)...)
	return append(b, '"')
}
