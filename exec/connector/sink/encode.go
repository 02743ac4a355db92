package sink

import (
	"fmt"
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
)

// encoder turns chunks into lines of text in one format. It works in two
// passes: each column's values are encoded by a loop typed once for the
// column (encodeColumn) into that column's buffer, then the rows are
// assembled from the buffers with the precomputed separators and JSON keys.
// Every buffer is reused from chunk to chunk, so a chunk costs no
// allocation once the buffers have grown to its size.
type encoder struct {
	format string
	ops    bool // each row starts with its op (an updating query)
	names  []string
	types  []types.T

	null     []byte    // the text of NULL: null, an empty field, or NULL
	quote    bool      // JSON: temporal, interval and non-finite values are strings
	prefix   [][]byte  // per column: what precedes its value in a row
	rowStart [4][]byte // per op: what starts a row
	rowEnd   []byte    // what ends a row, including the line break

	cols []column
	out  []byte
}

// column is one column's encoded values in a chunk: ends[i] is where row
// i's text ends in b. A date or timestamp column keeps its own day cache.
type column struct {
	b    []byte
	ends []int
	days dayCache
}

// newEncoder returns an encoder of rows with the given column names and
// types in format (FormatJSON, FormatCSV or FormatText), writing each
// row's op first when ops is set.
func newEncoder(format string, ops bool, names []string, ts []types.T) *encoder {
	e := &encoder{format: format, ops: ops, names: names, types: ts,
		prefix: make([][]byte, len(ts)), cols: make([]column, len(ts))}
	sep := byte(',')
	switch format {
	case FormatJSON:
		e.null, e.quote, e.rowEnd = []byte("null"), true, []byte("}\n")
	case FormatCSV:
		e.null, e.rowEnd = []byte{}, []byte("\n")
	default:
		e.null, e.rowEnd, sep = []byte("NULL"), []byte("\n"), ' '
	}
	for j, name := range names {
		var p []byte
		if j > 0 || ops {
			p = append(p, sep)
		}
		if format == FormatJSON {
			p = appendJSONString(p, name)
			p = append(p, ':')
		}
		e.prefix[j] = p
	}
	for op := exec.Insert; op <= exec.UpdateAfter; op++ {
		var s []byte
		if format == FormatJSON {
			s = append(s, '{')
		}
		if ops {
			if format == FormatJSON {
				s = append(s, `"op":`...)
				s = appendJSONString(s, op.String())
			} else {
				s = append(s, op.String()...)
			}
		}
		e.rowStart[op] = s
	}
	return e
}

// header returns the CSV header line: the column names, quoted where
// needed, after an op column for an updating query.
func (e *encoder) header() []byte {
	var b []byte
	if e.ops {
		b = append(b, "op"...)
	}
	for j, name := range e.names {
		if j > 0 || e.ops {
			b = append(b, ',')
		}
		b = appendCSVString(b, name)
	}
	return append(b, '\n')
}

// encode returns the lines of c's rows. The result is valid until the
// next call.
func (e *encoder) encode(c exec.Chunk) ([]byte, error) {
	if err := e.encodeColumns(c); err != nil {
		return nil, err
	}
	out := e.out[:0]
	for i, n := 0, c.NumRows(); i < n; i++ {
		out = e.appendRow(out, c.Op(i), i)
	}
	e.out = out
	return out, nil
}

// encodeColumns encodes every column of c into its buffer (the first
// pass); appendRow and value then read the rows' text.
func (e *encoder) encodeColumns(c exec.Chunk) error {
	n := c.NumRows()
	if int(c.Batch.NumCols()) != len(e.types) {
		return fmt.Errorf("chunk has %d columns, the sink expects %d", c.Batch.NumCols(), len(e.types))
	}
	for j := range e.cols {
		if err := e.encodeColumn(j, c.Batch.Column(j), n); err != nil {
			return err
		}
	}
	return nil
}

// value returns the encoded text of row i of column j, as encodeColumns
// left it. The slice is valid until the next encodeColumns.
func (e *encoder) value(j, i int) []byte {
	col := &e.cols[j]
	start := 0
	if i > 0 {
		start = col.ends[i-1]
	}
	return col.b[start:col.ends[i]]
}

// appendRow appends the line of row i, whose op is op, to out (the second
// pass, after encodeColumns).
func (e *encoder) appendRow(out []byte, op exec.Op, i int) []byte {
	out = append(out, e.rowStart[op]...)
	for j := range e.cols {
		col := &e.cols[j]
		start := 0
		if i > 0 {
			start = col.ends[i-1]
		}
		out = append(out, e.prefix[j]...)
		out = append(out, col.b[start:col.ends[i]]...)
	}
	return append(out, e.rowEnd...)
}

// encodeColumn encodes the first n values of arr, column j, into its
// buffer. It dispatches on the column's type once; each loop then handles
// one Arrow array type.
func (e *encoder) encodeColumn(j int, arr arrow.Array, n int) error {
	t := e.types[j]
	col := &e.cols[j]
	b, ends := col.b[:0], col.ends[:0]
	nulls := arr.NullN() > 0
	mismatch := func() error {
		return fmt.Errorf("column %s of type %s holds an Arrow %s array", e.names[j], t, arr.DataType())
	}
	switch t.Physical() {
	case types.PhysBool:
		a, ok := arr.(*array.Boolean)
		if !ok {
			return mismatch()
		}
		for i := 0; i < n; i++ {
			switch {
			case nulls && a.IsNull(i):
				b = append(b, e.null...)
			case a.Value(i):
				b = append(b, "true"...)
			default:
				b = append(b, "false"...)
			}
			ends = append(ends, len(b))
		}
	case types.PhysInt64:
		a, ok := arr.(*array.Int64)
		if !ok {
			return mismatch()
		}
		for i, v := range a.Int64Values()[:n] {
			if nulls && a.IsNull(i) {
				b = append(b, e.null...)
			} else {
				b = strconv.AppendInt(b, v, 10)
			}
			ends = append(ends, len(b))
		}
	case types.PhysFloat64:
		a, ok := arr.(*array.Float64)
		if !ok {
			return mismatch()
		}
		for i, v := range a.Float64Values()[:n] {
			switch {
			case nulls && a.IsNull(i):
				b = append(b, e.null...)
			case e.quote && (math.IsNaN(v) || math.IsInf(v, 0)): // JSON has no number for them
				b = append(b, '"')
				b = appendFloat(b, v)
				b = append(b, '"')
			default:
				b = appendFloat(b, v)
			}
			ends = append(ends, len(b))
		}
	case types.PhysDecimal:
		a, ok := arr.(*array.Decimal128)
		if !ok {
			return mismatch()
		}
		scale := int(t.Scale)
		for i, v := range a.Values()[:n] {
			if nulls && a.IsNull(i) {
				b = append(b, e.null...)
			} else {
				b = appendDecimal(b, v, scale)
			}
			ends = append(ends, len(b))
		}
	case types.PhysString:
		a, ok := arr.(*array.String)
		if !ok {
			return mismatch()
		}
		b, ends = e.encodeStrings(a, n, nulls, b, ends)
	case types.PhysDate32:
		a, ok := arr.(*array.Date32)
		if !ok {
			return mismatch()
		}
		for i, v := range a.Date32Values()[:n] {
			if nulls && a.IsNull(i) {
				b = append(b, e.null...)
			} else {
				b = e.open(b)
				b = col.days.appendDay(b, int64(v))
				b = e.close(b)
			}
			ends = append(ends, len(b))
		}
	case types.PhysTimestamp:
		a, ok := arr.(*array.Timestamp)
		if !ok {
			return mismatch()
		}
		fsp := int(t.Fsp)
		for i, v := range a.TimestampValues()[:n] {
			if nulls && a.IsNull(i) {
				b = append(b, e.null...)
			} else {
				b = e.open(b)
				b = col.days.appendTimestamp(b, int64(v), fsp)
				b = e.close(b)
			}
			ends = append(ends, len(b))
		}
	case types.PhysDuration:
		a, ok := arr.(*array.Duration)
		if !ok {
			return mismatch()
		}
		for i, v := range a.DurationValues()[:n] {
			if nulls && a.IsNull(i) {
				b = append(b, e.null...)
			} else {
				b = e.open(b)
				b = appendInterval(b, int64(v))
				b = e.close(b)
			}
			ends = append(ends, len(b))
		}
	case types.PhysNull:
		for i := 0; i < n; i++ {
			b = append(b, e.null...)
			ends = append(ends, len(b))
		}
	default:
		return fmt.Errorf("column %s: type %s cannot be written", e.names[j], t)
	}
	col.b, col.ends = b, ends
	return nil
}

// encodeStrings encodes the first n values of a string column: as JSON
// strings, as CSV fields quoted where needed, or as they are for print.
func (e *encoder) encodeStrings(a *array.String, n int, nulls bool, b []byte, ends []int) ([]byte, []int) {
	switch e.format {
	case FormatJSON:
		for i := 0; i < n; i++ {
			if nulls && a.IsNull(i) {
				b = append(b, e.null...)
			} else {
				b = appendJSONString(b, a.Value(i))
			}
			ends = append(ends, len(b))
		}
	case FormatCSV:
		for i := 0; i < n; i++ {
			if nulls && a.IsNull(i) {
				b = append(b, e.null...)
			} else {
				b = appendCSVString(b, a.Value(i))
			}
			ends = append(ends, len(b))
		}
	default:
		for i := 0; i < n; i++ {
			if nulls && a.IsNull(i) {
				b = append(b, e.null...)
			} else {
				b = append(b, a.Value(i)...)
			}
			ends = append(ends, len(b))
		}
	}
	return b, ends
}

// open starts a value that JSON writes as a string.
func (e *encoder) open(b []byte) []byte {
	if e.quote {
		return append(b, '"')
	}
	return b
}

// close ends a value opened by open.
func (e *encoder) close(b []byte) []byte { return e.open(b) }
