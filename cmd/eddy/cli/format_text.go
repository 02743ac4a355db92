package cli

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/engine"
)

// csvWriter writes a header line and then one line per row. NULL is an
// empty unquoted field and the empty string is "", as eddy's CSV reader
// (and PostgreSQL's COPY) tell them apart.
type csvWriter struct {
	w    io.Writer
	cols []engine.Column
}

func (c *csvWriter) header(cols []engine.Column) {
	c.cols = cols
	names := make([]string, len(cols))
	for j, col := range cols {
		names[j] = csvField(col.Name, false)
	}
	io.WriteString(c.w, strings.Join(names, ",")+"\n")
}

func (c *csvWriter) rows(rows [][]types.Datum) {
	var b strings.Builder
	for _, r := range rows {
		b.Reset()
		for j, col := range c.cols {
			if j > 0 {
				b.WriteByte(',')
			}
			if j >= len(r) || r[j].Null {
				continue
			}
			b.WriteString(csvField(types.Format(r[j], col.Type), true))
		}
		b.WriteByte('\n')
		io.WriteString(c.w, b.String())
	}
}

func (c *csvWriter) end() {}

// csvField quotes s when it holds a separator, quote or line break, has
// leading or trailing space, or is empty and quoteEmpty is set.
func csvField(s string, quoteEmpty bool) string {
	needs := (s == "" && quoteEmpty) || strings.ContainsAny(s, ",\"\r\n") ||
		strings.TrimSpace(s) != s
	if !needs {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// jsonWriter writes one JSON object per row, keys in column order: numbers
// as numbers, booleans as booleans, NULL as null, and dates, timestamps,
// intervals and text as strings.
type jsonWriter struct {
	w    io.Writer
	keys []string // quoted, unique keys
	cols []engine.Column
}

func (jw *jsonWriter) header(cols []engine.Column) {
	jw.cols = cols
	jw.keys = make([]string, len(cols))
	seen := make(map[string]bool, len(cols))
	for j, c := range cols {
		name := c.Name
		// Keys of an object must be unique: SELECT a, a gets a and a_2.
		for n := 2; seen[name]; n++ {
			name = fmt.Sprintf("%s_%d", c.Name, n)
		}
		seen[name] = true
		jw.keys[j] = string(appendJSONString(nil, name))
	}
}

func (jw *jsonWriter) rows(rows [][]types.Datum) {
	var buf []byte
	for _, r := range rows {
		buf = append(buf[:0], '{')
		for j, c := range jw.cols {
			if j > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, jw.keys[j]...)
			buf = append(buf, ':')
			d := types.NullDatum
			if j < len(r) {
				d = r[j]
			}
			buf = appendJSONValue(buf, d, c.Type)
		}
		buf = append(buf, '}', '\n')
		jw.w.Write(buf)
	}
}

func (jw *jsonWriter) end() {}

// appendJSONValue appends d, of type t, as a JSON value.
func appendJSONValue(buf []byte, d types.Datum, t types.T) []byte {
	if d.Null {
		return append(buf, "null"...)
	}
	switch t.Physical() {
	case types.PhysBool:
		return strconv.AppendBool(buf, d.Bool())
	case types.PhysInt64:
		return strconv.AppendInt(buf, d.I, 10)
	case types.PhysFloat64:
		if math.IsInf(d.F, 0) || math.IsNaN(d.F) {
			return appendJSONString(buf, types.FormatFloat(d.F)) // JSON has no such numbers
		}
		return strconv.AppendFloat(buf, d.F, 'g', -1, 64)
	case types.PhysDecimal:
		return append(buf, types.Format(d, t)...) // exact, at the column's scale
	case types.PhysNull:
		return append(buf, "null"...)
	}
	return appendJSONString(buf, types.Format(d, t))
}

// appendJSONString appends s as a JSON string. Unlike encoding/json it
// leaves <, > and & alone: the output is for terminals and files, not HTML.
func appendJSONString(buf []byte, s string) []byte {
	const hex = "0123456789abcdef"
	buf = append(buf, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			buf = append(buf, '\\', c)
		case c == '\n':
			buf = append(buf, '\\', 'n')
		case c == '\r':
			buf = append(buf, '\\', 'r')
		case c == '\t':
			buf = append(buf, '\\', 't')
		case c < 0x20:
			buf = append(buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		case c < utf8.RuneSelf:
			buf = append(buf, c)
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				buf = append(buf, `\ufffd`...)
			} else {
				buf = append(buf, s[i:i+size]...)
			}
			i += size
			continue
		}
		i++
	}
	return append(buf, '"')
}
