package types

import (
	"cmp"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// Datum is one scalar value. Which field holds it depends on the physical
// representation of its type (see T.Physical); a Datum does not carry its type.
type Datum struct {
	Null bool
	I    int64          // BOOLEAN (0 or 1), integers, DATE (days), TIMESTAMP and INTERVAL (ms)
	F    float64        // FLOAT, DOUBLE
	D    decimal128.Num // DECIMAL, at the scale of its type
	S    string         // VARCHAR
}

// NullDatum is the SQL NULL.
var NullDatum = Datum{Null: true}

// IntDatum returns an integer (or DATE, TIMESTAMP, INTERVAL) datum.
func IntDatum(v int64) Datum { return Datum{I: v} }

// FloatDatum returns a floating-point datum.
func FloatDatum(v float64) Datum { return Datum{F: v} }

// StringDatum returns a string datum.
func StringDatum(v string) Datum { return Datum{S: v} }

// DecimalDatum returns a decimal datum; v is scaled by its type's scale.
func DecimalDatum(v decimal128.Num) Datum { return Datum{D: v} }

// BoolDatum returns a boolean datum.
func BoolDatum(v bool) Datum {
	if v {
		return Datum{I: 1}
	}
	return Datum{}
}

// Bool returns the value of a BOOLEAN datum.
func (d Datum) Bool() bool { return d.I != 0 }

// Compare orders two non-NULL datums of the same type t. NULL sorts before
// every value, as in MySQL.
func Compare(a, b Datum, t T) int {
	if a.Null || b.Null {
		switch {
		case a.Null && b.Null:
			return 0
		case a.Null:
			return -1
		default:
			return 1
		}
	}
	switch t.Physical() {
	case PhysFloat64:
		return cmp.Compare(a.F, b.F)
	case PhysDecimal:
		return a.D.Cmp(b.D)
	case PhysString:
		return strings.Compare(a.S, b.S)
	case PhysNull:
		return 0
	}
	return cmp.Compare(a.I, b.I)
}

// Equal reports whether two datums of type t are identical (NULL equals NULL).
func Equal(a, b Datum, t T) bool { return Compare(a, b, t) == 0 }

// Format renders a datum of type t for people: integers in decimal, decimals at
// their scale, doubles in their shortest exact form, timestamps as
// YYYY-MM-DD HH:MM:SS[.fff], NULL as NULL.
func Format(d Datum, t T) string {
	if d.Null {
		return "NULL"
	}
	switch t.Physical() {
	case PhysBool:
		return strconv.FormatBool(d.Bool())
	case PhysInt64:
		return strconv.FormatInt(d.I, 10)
	case PhysFloat64:
		return FormatFloat(d.F)
	case PhysDecimal:
		return d.D.ToString(int32(t.Scale))
	case PhysString:
		return d.S
	case PhysDate32:
		return FormatDate(int32(d.I))
	case PhysTimestamp:
		return FormatTimestamp(d.I, int(t.Fsp))
	case PhysDuration:
		return FormatInterval(d.I)
	}
	return "NULL"
}

// FormatFloat renders a double the way MySQL clients show it: the shortest
// representation that round-trips, without an exponent for ordinary magnitudes.
func FormatFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case math.IsNaN(f):
		return "NaN"
	}
	abs := math.Abs(f)
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		return strconv.FormatFloat(f, 'e', -1, 64)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// FormatSLT renders a datum as sqllogictest expects it (SQL.md, "Output in
// tests"): floats and decimals with three digits after the point, the empty
// string as (empty), booleans as true/false, NULL as NULL.
func FormatSLT(d Datum, t T) string {
	if d.Null {
		return "NULL"
	}
	switch t.Physical() {
	case PhysFloat64:
		if math.IsInf(d.F, 0) || math.IsNaN(d.F) {
			return FormatFloat(d.F)
		}
		s := strconv.FormatFloat(d.F, 'f', 3, 64)
		if s == "-0.000" {
			s = "0.000"
		}
		return s
	case PhysDecimal:
		return formatDecimalFixed(d.D, int32(t.Scale), 3)
	case PhysString:
		if d.S == "" {
			return "(empty)"
		}
		return d.S
	}
	return Format(d, t)
}

// formatDecimalFixed prints v (at scale) with exactly digits fractional digits,
// rounding half away from zero.
func formatDecimalFixed(v decimal128.Num, scale, digits int32) string {
	switch {
	case scale > digits:
		v = v.ReduceScaleBy(scale-digits, true)
	case scale < digits:
		v = v.IncreaseScaleBy(digits - scale)
	}
	return v.ToString(digits)
}
