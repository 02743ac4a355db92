package server

import (
	"strconv"

	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/engine"
)

// The character sets of result columns: text is utf8mb4, everything else
// binary (as MySQL marks numbers and times).
const (
	charsetUTF8MB4 = uint32(collations.CollationUtf8mb4ID)
	charsetBinary  = uint32(collations.CollationBinaryID)
)

// notFixedDecimals is MySQL's "decimals" of a floating-point column whose
// digits after the point vary (NOT_FIXED_DEC).
const notFixedDecimals = 31

// numFlags are the flags of numeric columns: clients right-align them.
const numFlags = uint32(querypb.MySqlFlag_NUM_FLAG | querypb.MySqlFlag_BINARY_FLAG)

// fields maps result columns to MySQL column definitions: eddy's types to
// the MySQL types a client decodes the same values from.
//
//	BOOLEAN → TINYINT(1) (1 and 0)      TINYINT → TINYINT   SMALLINT → SMALLINT
//	INT → INT (LONG)                    BIGINT → BIGINT (LONGLONG)
//	FLOAT, DOUBLE → DOUBLE (eddy's FLOAT is 64-bit)
//	DECIMAL(p,s) → DECIMAL(p,s) (NEWDECIMAL)
//	VARCHAR → VARCHAR utf8mb4           DATE → DATE
//	TIMESTAMP(fsp) → DATETIME(fsp)      INTERVAL → VARCHAR ("INTERVAL '5' SECOND")
//	the type of a bare NULL → NULL
func fields(cols []engine.Column) []*querypb.Field {
	out := make([]*querypb.Field, len(cols))
	for i, c := range cols {
		f := &querypb.Field{Name: c.Name, Charset: charsetBinary, Flags: numFlags}
		t := c.Type
		switch t.Kind {
		case types.Boolean:
			f.Type, f.ColumnLength = sqltypes.Int8, 1
		case types.TinyInt:
			f.Type, f.ColumnLength = sqltypes.Int8, 4
		case types.SmallInt:
			f.Type, f.ColumnLength = sqltypes.Int16, 6
		case types.Int:
			f.Type, f.ColumnLength = sqltypes.Int32, 11
		case types.BigInt:
			f.Type, f.ColumnLength = sqltypes.Int64, 20
		case types.Float, types.Double:
			f.Type, f.ColumnLength, f.Decimals = sqltypes.Float64, 22, notFixedDecimals
		case types.Decimal:
			// Digits, a sign, and a point when there are digits after
			// it (MySQL's length, which clients read the precision from).
			f.Type, f.ColumnLength, f.Decimals = sqltypes.Decimal, uint32(t.Precision)+1, uint32(t.Scale)
			if t.Scale > 0 {
				f.ColumnLength++
			}
		case types.Date:
			f.Type, f.ColumnLength, f.Flags = sqltypes.Date, 10, uint32(querypb.MySqlFlag_BINARY_FLAG)
		case types.Timestamp:
			f.Type, f.ColumnLength, f.Decimals = sqltypes.Datetime, 19, uint32(t.Fsp)
			if t.Fsp > 0 {
				f.ColumnLength += 1 + uint32(t.Fsp)
			}
			f.Flags = uint32(querypb.MySqlFlag_BINARY_FLAG)
		case types.Null:
			f.Type, f.Flags = sqltypes.Null, uint32(querypb.MySqlFlag_BINARY_FLAG)
		case types.JSON:
			// MySQL's JSON column: binary collation, LONGBLOB's length.
			f.Type, f.ColumnLength, f.Charset, f.Flags = sqltypes.TypeJSON, 4294967295, charsetBinary, uint32(querypb.MySqlFlag_BLOB_FLAG|querypb.MySqlFlag_BINARY_FLAG)
		default: // VARCHAR, INTERVAL
			// utf8mb4 takes up to 4 bytes a character; MySQL's TEXT length.
			f.Type, f.ColumnLength, f.Charset, f.Flags = sqltypes.VarChar, 65535*4, charsetUTF8MB4, 0
		}
		out[i] = f
	}
	return out
}

// rows renders rows in the text protocol: each value as the text a MySQL
// server sends for its column's type (fields), NULL as NULL. The values of
// a batch share one buffer.
func rows(in [][]types.Datum, cols []engine.Column) []sqltypes.Row {
	out := make([]sqltypes.Row, len(in))
	vals := make([]sqltypes.Value, len(in)*len(cols))
	var buf []byte
	var ends []int // where each non-NULL value ends in buf
	for _, row := range in {
		for j, d := range row {
			if d.Null {
				ends = append(ends, -1)
				continue
			}
			buf = appendValue(buf, d, cols[j].Type)
			ends = append(ends, len(buf))
		}
	}
	fs := fields(cols)
	start, k := 0, 0
	for i, row := range in {
		r := vals[i*len(cols) : (i+1)*len(cols) : (i+1)*len(cols)]
		for j := range row {
			if end := ends[k]; end >= 0 {
				r[j] = sqltypes.MakeTrusted(fs[j].Type, buf[start:end:end])
				start = end
			} else {
				r[j] = sqltypes.NULL
			}
			k++
		}
		out[i] = r
	}
	return out
}

// appendValue appends the MySQL text of a non-NULL d of type t.
func appendValue(buf []byte, d types.Datum, t types.T) []byte {
	switch t.Physical() {
	case types.PhysBool:
		if d.Bool() {
			return append(buf, '1')
		}
		return append(buf, '0')
	case types.PhysInt64:
		return strconv.AppendInt(buf, d.I, 10)
	}
	return append(buf, types.Format(d, t)...)
}
