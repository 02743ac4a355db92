package client

import (
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/engine"
)

// columns maps a result set's column definitions back to eddy's types:
// the inverse of the server's mapping (server.fields), which follows
// MySQL's conventions.
//
//	TINYINT(1) → BOOLEAN      TINYINT → TINYINT       SMALLINT → SMALLINT
//	INT, MEDIUMINT → INT      BIGINT → BIGINT         FLOAT, DOUBLE → DOUBLE
//	DECIMAL(p,s) → DECIMAL(p,s)                       DATE → DATE
//	DATETIME(fsp), TIMESTAMP(fsp) → TIMESTAMP(fsp)    NULL → the type of NULL
//	anything else (VARCHAR, TEXT, an INTERVAL's text) → VARCHAR
//
// eddy's FLOAT is 64-bit like its DOUBLE and is sent as DOUBLE, so it
// comes back as DOUBLE; the two print alike.
func columns(fields []*querypb.Field) []engine.Column {
	out := make([]engine.Column, len(fields))
	for i, f := range fields {
		out[i] = engine.Column{Name: f.Name, Type: fieldType(f)}
	}
	return out
}

// fieldType returns the eddy type of one column definition.
func fieldType(f *querypb.Field) types.T {
	switch f.Type {
	case sqltypes.Int8:
		if f.ColumnLength == 1 { // MySQL's BOOLEAN is TINYINT(1)
			return types.BoolT
		}
		return types.T{Kind: types.TinyInt}
	case sqltypes.Int16:
		return types.T{Kind: types.SmallInt}
	case sqltypes.Int24, sqltypes.Int32:
		return types.IntT
	case sqltypes.Int64:
		return types.BigIntT
	case sqltypes.Float32, sqltypes.Float64:
		return types.DoubleT
	case sqltypes.Decimal:
		return types.DecimalT(decimalPrecision(f), int(f.Decimals))
	case sqltypes.Date:
		return types.DateT
	case sqltypes.Datetime, sqltypes.Timestamp:
		return types.TimestampT(int(min(f.Decimals, types.MaxFsp)))
	case sqltypes.Null:
		return types.NullT
	case sqltypes.TypeJSON:
		return types.JSONT
	}
	return types.VarcharT
}

// decimalPrecision returns the precision of a DECIMAL column from its
// length, which MySQL counts as the digits, a sign, and a point when
// there are digits after it.
func decimalPrecision(f *querypb.Field) int {
	p := int(f.ColumnLength) - 1
	if f.Decimals > 0 {
		p--
	}
	return max(1, min(p, types.MaxDecimalPrecision))
}

// decodeRow decodes one row of the text protocol into dst (len(cols)
// datums): each value from the text the server sends for its column's
// type.
func decodeRow(dst []types.Datum, row []sqltypes.Value, cols []engine.Column) error {
	if len(row) != len(cols) {
		return fmt.Errorf("a row of %d values in a result of %d columns", len(row), len(cols))
	}
	for j, v := range row {
		d, err := decodeValue(v, cols[j].Type)
		if err != nil {
			return fmt.Errorf("column %s: %w", cols[j].Name, err)
		}
		dst[j] = d
	}
	return nil
}

// decodeValue decodes the text of one value of type t.
func decodeValue(v sqltypes.Value, t types.T) (types.Datum, error) {
	if v.IsNull() {
		return types.NullDatum, nil
	}
	s := v.RawStr() // only parsed, never kept
	switch t.Physical() {
	case types.PhysBool:
		return types.BoolDatum(s != "0"), nil
	case types.PhysInt64:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return types.Datum{}, fmt.Errorf("bad %s %q", t.Kind, s)
		}
		return types.IntDatum(n), nil
	case types.PhysFloat64:
		// ParseFloat reads the Infinity, -Infinity and NaN eddy writes.
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return types.Datum{}, fmt.Errorf("bad DOUBLE %q", s)
		}
		return types.FloatDatum(f), nil
	case types.PhysDecimal:
		n, err := decimal128.FromString(s, int32(t.Precision), int32(t.Scale))
		if err != nil {
			return types.Datum{}, fmt.Errorf("bad DECIMAL(%d,%d) %q: %w", t.Precision, t.Scale, s, err)
		}
		return types.DecimalDatum(n), nil
	case types.PhysDate32:
		days, err := types.ParseDate(s)
		if err != nil {
			return types.Datum{}, err
		}
		return types.IntDatum(int64(days)), nil
	case types.PhysTimestamp:
		ms, err := types.ParseTimestamp(s)
		if err != nil {
			return types.Datum{}, err
		}
		return types.IntDatum(ms), nil
	case types.PhysNull:
		return types.NullDatum, nil
	}
	return types.StringDatum(string(v.Raw())), nil // a copy: s may share the packet's buffer
}
