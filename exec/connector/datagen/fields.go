package datagen

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/connector"
)

// Kind is what generates a column's values.
type Kind uint8

// The generators.
const (
	// Random draws each row's value uniformly: numbers, dates and
	// timestamps from [min, max], text of length letters, booleans.
	Random Kind = iota + 1
	// Sequence counts: row n's value is start + n × step, until end.
	Sequence
	// List picks each row's value uniformly from values.
	List
)

var kindNames = [...]string{Random: "random", Sequence: "sequence", List: "list"}

// String returns the kind's name in the kind option.
func (k Kind) String() string { return kindNames[k] }

// properties are what fields.<column>.<property> may set.
var properties = []string{"kind", "start", "end", "step", "min", "max", "length", "values", "null_rate"}

// propertyKind is the kind of generator a property belongs to (kind and
// null_rate belong to all).
var propertyKind = map[string]Kind{
	"start": Sequence, "end": Sequence, "step": Sequence,
	"min": Random, "max": Random, "length": Random,
	"values": List,
}

// Field generates one column. Numbers of every type but FLOAT and DOUBLE,
// DATE and TIMESTAMP values are held as integers in their columns'
// representation — a DECIMAL unscaled at its column's scale, a DATE in
// days, a TIMESTAMP in milliseconds — and FLOAT and DOUBLE ones as
// floats.
type Field struct {
	Column catalog.Column
	Kind   Kind

	Start, Step, End int64 // Sequence
	Min, Max         int64 // Random
	// FStart, FStep, FEnd, FMin and FMax are the same for FLOAT and
	// DOUBLE columns.
	FStart, FStep, FEnd, FMin, FMax float64
	// HasEnd says the sequence ends (after End); without one it goes on
	// until its values leave the column's type, where the source fails.
	HasEnd bool
	// Length is the length of random text.
	Length int
	// Values are List's values, in the column's type.
	Values []types.Datum
	// NullRate is the share of NULL rows (a nullable column's).
	NullRate float64
}

// isFloat reports whether the field's values are floats.
func (f *Field) isFloat() bool {
	return f.Column.Type.Kind == types.Float || f.Column.Type.Kind == types.Double
}

// seqLen returns how many rows a sequence with an end makes (unbounded
// for any other field).
func (f *Field) seqLen() uint64 {
	if f.Kind != Sequence || !f.HasEnd {
		return unbounded
	}
	if f.isFloat() {
		return uint64(math.Floor((f.FEnd-f.FStart)/f.FStep)) + 1
	}
	if f.Step > 0 {
		return (uint64(f.End)-uint64(f.Start))/uint64(f.Step) + 1
	}
	return (uint64(f.Start)-uint64(f.End))/uint64(-f.Step) + 1
}

// newField makes the generator of column c from its options
// props (property → value; nil when it has none).
func newField(c catalog.Column, props map[string]string) (Field, error) {
	f := defaultField(c)
	opt := func(prop string) string { return fieldPrefix + strings.ToLower(c.Name) + "." + prop }
	bad := func(prop, format string, args ...any) error {
		return &OptionError{Option: opt(prop), Msg: fmt.Sprintf(format, args...)}
	}
	if v, ok := props["kind"]; ok {
		k := Kind(0)
		for j, name := range kindNames {
			if j > 0 && strings.EqualFold(v, name) {
				k = Kind(j)
			}
		}
		if k == 0 {
			return Field{}, bad("kind", "invalid value %s (want 'random', 'sequence' or 'list')", quote(v))
		}
		if err := kindFits(k, c.Type); err != nil {
			return Field{}, bad("kind", "%v", err)
		}
		f = defaultKind(c, k)
	}
	for prop := range props {
		if k, ok := propertyKind[prop]; ok && k != f.Kind {
			return Field{}, bad(prop, "applies to kind '%s', and the column's kind is '%s'", k, f.Kind)
		}
	}
	var err error
	num := func(prop string, into *int64, fl *float64) bool {
		v, ok := props[prop]
		if ok && err == nil {
			var e error
			if f.isFloat() {
				*fl, e = parseFloat(v)
			} else {
				*into, e = parseNumber(c.Type, v, prop == "step")
			}
			if e != nil {
				err = bad(prop, "invalid value %s: %v", quote(v), e)
			}
		}
		return ok
	}
	switch f.Kind {
	case Sequence:
		num("start", &f.Start, &f.FStart)
		num("step", &f.Step, &f.FStep)
		f.HasEnd = num("end", &f.End, &f.FEnd)
		if err == nil {
			err = f.checkSequence(bad)
		}
	case Random:
		num("min", &f.Min, &f.FMin)
		num("max", &f.Max, &f.FMax)
		if v, ok := props["length"]; ok && err == nil {
			if c.Type.Kind != types.Varchar {
				return Field{}, bad("length", "applies to text columns, and %s is %s", c.Name, c.Type)
			}
			n, e := strconv.Atoi(v)
			if e != nil || n < 0 || n > maxLength {
				return Field{}, bad("length", "invalid value %s (want an integer from 0 to %d)", quote(v), maxLength)
			}
			f.Length = n
		}
		if err == nil && (f.Min > f.Max || f.FMin > f.FMax) {
			err = bad("max", "is below min")
		}
	case List:
		v, ok := props["values"]
		if !ok {
			return Field{}, bad("values", "is required with kind 'list' (comma-separated values, such as 'a,b,c')")
		}
		if f.Values, err = parseList(c.Type, v); err != nil {
			err = bad("values", "%v", err)
		}
	}
	if err != nil {
		return Field{}, err
	}
	if v, ok := props["null_rate"]; ok {
		r, e := strconv.ParseFloat(v, 64)
		switch {
		case e != nil || math.IsNaN(r) || r < 0 || r > 1:
			return Field{}, bad("null_rate", "invalid value %s (want a number from 0 to 1)", quote(v))
		case r > 0 && !c.Nullable:
			return Field{}, bad("null_rate", "column %s is NOT NULL", c.Name)
		}
		f.NullRate = r
	}
	return f, nil
}

// checkSequence checks a sequence's step and end.
func (f *Field) checkSequence(bad func(prop, format string, args ...any) error) error {
	if f.isFloat() {
		switch {
		case f.FStep == 0:
			return bad("step", "must not be 0")
		case f.HasEnd && (f.FEnd-f.FStart)/f.FStep < 0:
			return bad("end", "is never reached from start by step")
		case f.HasEnd && (f.FEnd-f.FStart)/f.FStep >= float64(MaxRows):
			return bad("end", "is more than %d steps from start", MaxRows)
		}
		return nil
	}
	switch {
	case f.Step == 0:
		return bad("step", "must not be 0")
	case f.HasEnd && (f.End-f.Start < 0) != (f.Step < 0) && f.End != f.Start:
		return bad("end", "is never reached from start by step")
	}
	return nil
}

// kindFits says whether a generator of kind k can make values of type t.
func kindFits(k Kind, t types.T) error {
	switch {
	case k == Sequence && t.Kind == types.Boolean:
		return fmt.Errorf("a sequence of BOOLEAN values is not defined (use 'random' or 'list')")
	case k == Random && t.Kind == types.Interval, k == Sequence && t.Kind == types.Interval:
		return fmt.Errorf("%s columns take only 'list'", t)
	}
	return nil
}

// parseFloat parses a FLOAT or DOUBLE option value.
func parseFloat(v string) (float64, error) {
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("want a finite number")
	}
	return x, nil
}

// parseNumber parses an option value for a column of type t into the
// column's integer representation. A step of a TIMESTAMP column is a
// duration ('10ms', '1s', or milliseconds), and of a DATE one a number
// of days; text columns count in integers.
func parseNumber(t types.T, v string, step bool) (int64, error) {
	switch t.Kind {
	case types.Decimal:
		p := min(int32(t.Precision), 18)
		d, err := decimal128.FromString(v, p, int32(t.Scale))
		if _, frac, ok := strings.Cut(v, "."); ok && len(strings.TrimRight(frac, "0")) > int(t.Scale) {
			err = fmt.Errorf("more digits after the point than the scale")
		}
		if err != nil {
			return 0, fmt.Errorf("want a number of at most %d digits, %d after the point", p, t.Scale)
		}
		return int64(d.LowBits()), nil
	case types.Date:
		if step {
			return strconv.ParseInt(v, 10, 32)
		}
		d, err := types.ParseDate(v)
		return int64(d), err
	case types.Timestamp:
		if ms, err := strconv.ParseInt(v, 10, 64); err == nil {
			return ms, nil
		}
		if step {
			d, err := connector.ParseDuration(v)
			return d.Milliseconds(), err
		}
		return types.ParseTimestamp(v)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("want an integer")
	}
	if lo, hi := intRange(t); !step && (n < lo || n > hi) {
		return 0, fmt.Errorf("out of the range of %s [%d, %d]", t, lo, hi)
	}
	return n, nil
}

// parseList parses a comma-separated list of values of type t.
func parseList(t types.T, v string) ([]types.Datum, error) {
	var ds []types.Datum
	for _, s := range strings.Split(v, ",") {
		s = strings.TrimSpace(s)
		var d types.Datum
		switch t.Kind {
		case types.Varchar:
			d = types.StringDatum(s)
		case types.Boolean:
			b, err := strconv.ParseBool(s)
			if err != nil {
				return nil, fmt.Errorf("%s is not a boolean", quote(s))
			}
			d = types.BoolDatum(b)
		case types.Float, types.Double:
			x, err := parseFloat(s)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", quote(s), err)
			}
			d = types.FloatDatum(x)
		case types.Decimal:
			n, err := parseNumber(t, s, false)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", quote(s), err)
			}
			d = types.DecimalDatum(decimal128.FromI64(n))
		case types.Interval:
			dur, err := connector.ParseDuration(s)
			if err != nil {
				return nil, fmt.Errorf("%s is not a duration", quote(s))
			}
			d = types.IntDatum(dur.Milliseconds())
		default:
			n, err := parseNumber(t, s, false)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", quote(s), err)
			}
			d = types.IntDatum(n)
		}
		ds = append(ds, d)
	}
	return ds, nil
}

// intRange returns the range of an integer type's values (and of the
// integers a text sequence counts in).
func intRange(t types.T) (int64, int64) {
	switch t.Kind {
	case types.TinyInt:
		return math.MinInt8, math.MaxInt8
	case types.SmallInt:
		return math.MinInt16, math.MaxInt16
	case types.Int:
		return math.MinInt32, math.MaxInt32
	case types.Decimal:
		if t.Precision <= 18 {
			m := int64(math.Pow10(int(t.Precision))) - 1
			return -m, m
		}
	case types.Date:
		return types.MinDate, types.MaxDate
	case types.Timestamp:
		return types.MinTimestamp, types.MaxTimestamp
	}
	return math.MinInt64, math.MaxInt64
}
