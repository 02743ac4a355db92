package file

import (
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/internal/jsonpath"
)

// kind is how a column's values are parsed and stored: one per Arrow builder.
type kind uint8

const (
	kindBool kind = iota
	kindInt
	kindFloat
	kindDecimal
	kindString
	kindDate
	kindTimestamp
	kindJSON // a JSON document, normalized when its row is appended
)

// column is a declared column prepared for parsing.
type column struct {
	name     string
	t        types.T
	kind     kind
	nullable bool
	min, max int64   // kindInt: the range of the SQL integer type
	maxFloat float64 // kindFloat: the largest finite magnitude
	truncMs  int64   // kindTimestamp: values are rounded to a multiple of this (the fsp), as MySQL stores them
	// path, when hasPath, is where a JSON line holds the column's value
	// (catalog.Column.Path), instead of its top-level field of the name.
	path    jsonpath.Path
	hasPath bool
	dates   dateCache
}

// newColumn prepares c, rejecting types a file cannot hold.
func newColumn(c catalog.Column) (column, error) {
	col := column{name: c.Name, t: c.Type, nullable: c.Nullable}
	if c.Path != "" {
		p, err := jsonpath.Parse(c.Path)
		if err != nil {
			return column{}, fmt.Errorf("file connector: column %s: %w", c.Name, err)
		}
		col.path, col.hasPath = p, true
	}
	switch c.Type.Kind {
	case types.Boolean:
		col.kind = kindBool
	case types.TinyInt:
		col.kind, col.min, col.max = kindInt, math.MinInt8, math.MaxInt8
	case types.SmallInt:
		col.kind, col.min, col.max = kindInt, math.MinInt16, math.MaxInt16
	case types.Int:
		col.kind, col.min, col.max = kindInt, math.MinInt32, math.MaxInt32
	case types.BigInt:
		col.kind, col.min, col.max = kindInt, math.MinInt64, math.MaxInt64
	case types.Float:
		col.kind, col.maxFloat = kindFloat, math.MaxFloat32
	case types.Double:
		col.kind, col.maxFloat = kindFloat, math.MaxFloat64
	case types.Decimal:
		if c.Type.Precision < 1 || c.Type.Precision > types.MaxDecimalPrecision || c.Type.Scale > c.Type.Precision {
			return column{}, fmt.Errorf("file connector: column %s: invalid type %s", c.Name, c.Type)
		}
		col.kind = kindDecimal
	case types.Varchar:
		col.kind = kindString
	case types.JSON:
		col.kind = kindJSON
	case types.Date:
		col.kind = kindDate
	case types.Timestamp:
		col.kind, col.truncMs = kindTimestamp, 1
		for f := int(c.Type.Fsp); f < types.MaxFsp; f++ {
			col.truncMs *= 10
		}
	default:
		return column{}, fmt.Errorf("file connector: column %s: type %s cannot be read from a file", c.Name, c.Type)
	}
	return col, nil
}

// cell holds one parsed value of a row before the row is known to be good;
// which field is used depends on the column's kind.
type cell struct {
	null  bool
	exact bool // JSON: set by a field whose name matched exactly
	i     int64
	f     float64
	d     decimal128.Num
	s     []byte // kindString, kindJSON: points into the read buffer or a scratch buffer
}

// parseText parses b, the text of a non-NULL value, into c for column col.
// Surrounding spaces are ignored except in strings.
func parseText(col *column, b []byte, c *cell) faultCode {
	switch col.kind {
	case kindString:
		if !utf8.Valid(b) {
			return faultUTF8
		}
		c.s = b
		return faultNone
	case kindJSON:
		if !jsonpath.Valid(b) {
			return faultSyntax
		}
		c.s = b
		return faultNone
	}
	b = trimSpace(b)
	switch col.kind {
	case kindInt:
		v, code := parseInt(b)
		if code == faultNone && (v < col.min || v > col.max) {
			code = faultRange
		}
		c.i = v
		return code
	case kindFloat:
		v, code := parseFloat(b)
		if code == faultNone && math.Abs(v) > col.maxFloat && !math.IsInf(v, 0) {
			code = faultRange
		}
		c.f = v
		return code
	case kindDecimal:
		v, _, code := parseDecimal(b, int32(col.t.Precision), int32(col.t.Scale))
		c.d = v
		return code
	case kindBool:
		v, ok := parseBool(b)
		if !ok {
			return faultSyntax
		}
		c.i = v
		return faultNone
	case kindDate:
		v, ok := parseDate(b, &col.dates)
		if !ok {
			return faultSyntax
		}
		c.i = int64(v)
		return faultNone
	case kindTimestamp:
		v, code := parseTimestamp(b, &col.dates)
		if code == faultNone && col.truncMs > 1 {
			v = types.RoundToFsp(v, int(col.t.Fsp))
		}
		c.i = v
		return code
	}
	return faultSyntax
}

// isSpace reports whether b is a space or a tab, the blanks trimmed around
// non-text values.
func isSpace(b byte) bool { return b == ' ' || b == '\t' }

// trimSpace returns b without leading and trailing blanks.
func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}
