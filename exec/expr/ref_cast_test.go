package expr_test

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// Casts, as exec/expr documents them: numbers round half away from zero
// and must fit the target (else out of range); strings are trimmed and
// parsed strictly (else a bad cast, also when the value does not fit);
// values render as eddy shows them; a TIMESTAMP rounds half up to fewer
// fractional digits and must stay in the years 0000 to 9999.

func (x *refEval) cast(e *plan.Cast) (types.Datum, error) {
	v, err := x.eval(e.Arg)
	if err != nil || v.Null || e.Arg.Type().Kind == types.Null {
		return null, err
	}
	from := e.Arg.Type()
	if e.Implicit && from.Kind == types.Varchar && e.To.Physical() == types.PhysFloat64 {
		return types.FloatDatum(numericPrefix(v.S)), nil
	}
	return castValue(v, from, e.To)
}

func castValue(v types.Datum, from, to types.T) (types.Datum, error) {
	if to.Kind == types.Varchar {
		return types.StringDatum(render(v, from)), nil
	}
	if from.Kind == types.Varchar {
		return parse(strings.TrimSpace(v.S), to)
	}
	fail := func() (types.Datum, error) {
		return null, outOfRange("CAST(%s AS %s)", types.Format(v, from), to)
	}
	switch {
	case to.IsInteger():
		var n *big.Int
		switch from.Physical() {
		case types.PhysFloat64:
			if math.IsNaN(v.F) || math.IsInf(v.F, 0) {
				return fail()
			}
			n = roundRat(exactRat(v.F), 0)
		case types.PhysDecimal:
			n = roundHalfAway(v.D.BigInt(), pow10(int64(from.Scale)))
		default: // integers and booleans
			n = big.NewInt(v.I)
		}
		lo, hi := intBounds(to)
		if !n.IsInt64() || n.Int64() < lo || n.Int64() > hi {
			return fail()
		}
		return types.IntDatum(n.Int64()), nil
	case to.Kind == types.Double:
		switch from.Physical() {
		case types.PhysDecimal:
			f, _ := new(big.Rat).SetFrac(v.D.BigInt(), pow10(int64(from.Scale))).Float64()
			return types.FloatDatum(f), nil
		case types.PhysFloat64:
			return v, nil
		}
		return types.FloatDatum(float64(v.I)), nil
	case to.Kind == types.Decimal:
		var n *big.Int
		switch from.Physical() {
		case types.PhysFloat64:
			if math.IsNaN(v.F) || math.IsInf(v.F, 0) {
				return fail()
			}
			// The shortest decimal form of the double, as MySQL reads it.
			n = roundRat(shortestRat(v.F), int64(to.Scale))
		case types.PhysDecimal:
			n = rescale(v.D.BigInt(), int64(from.Scale), int64(to.Scale))
		default:
			n = new(big.Int).Mul(big.NewInt(v.I), pow10(int64(to.Scale)))
		}
		if !decimalFits(n, to) {
			return fail()
		}
		return types.DecimalDatum(decimal128.FromBigInt(n)), nil
	case to.Kind == types.Boolean:
		switch from.Physical() {
		case types.PhysFloat64:
			return types.BoolDatum(v.F != 0), nil
		case types.PhysDecimal:
			return types.BoolDatum(v.D.BigInt().Sign() != 0), nil
		}
		return types.BoolDatum(v.I != 0), nil
	case to.Kind == types.Date:
		if from.Kind == types.Date {
			return v, nil
		}
		return types.IntDatum(floorDiv(v.I, types.MsPerDay)), nil
	case to.Kind == types.Timestamp:
		ms := v.I
		if from.Kind == types.Date {
			ms *= types.MsPerDay
		} else if to.Fsp < from.Fsp {
			ms = roundToFsp(ms, int(to.Fsp))
			if !types.TimestampInRange(ms) {
				return fail()
			}
		}
		return types.IntDatum(ms), nil
	}
	return null, fmt.Errorf("no reference cast from %s to %s", from, to)
}

// render shows a value as CAST(v AS VARCHAR) does.
func render(v types.Datum, t types.T) string {
	switch t.Physical() {
	case types.PhysBool:
		return strconv.FormatBool(v.Bool())
	case types.PhysFloat64:
		return types.FormatFloat(v.F)
	case types.PhysDecimal:
		return decimalString(v.D.BigInt(), int(t.Scale))
	case types.PhysString:
		return v.S
	case types.PhysDate32:
		return time.Unix(v.I*86400, 0).UTC().Format("2006-01-02")
	case types.PhysTimestamp:
		s := time.UnixMilli(v.I).UTC().Format("2006-01-02 15:04:05")
		if t.Fsp > 0 {
			s += "." + fmt.Sprintf("%03d", floorMod(v.I, 1000))[:t.Fsp]
		}
		return s
	case types.PhysDuration:
		return types.FormatInterval(v.I)
	}
	return strconv.FormatInt(v.I, 10)
}

// decimalString renders the unscaled v at scale s.
func decimalString(v *big.Int, s int) string {
	digits := new(big.Int).Abs(v).String()
	if s > 0 {
		if len(digits) <= s {
			digits = strings.Repeat("0", s-len(digits)+1) + digits
		}
		digits = digits[:len(digits)-s] + "." + digits[len(digits)-s:]
	}
	if v.Sign() < 0 {
		return "-" + digits
	}
	return digits
}

// decimalSyntax is a number as CAST reads one into an integer or DECIMAL.
var decimalSyntax = regexp.MustCompile(`^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$`)

// parse reads the trimmed string s as a value of type t.
func parse(s string, t types.T) (types.Datum, error) {
	fail := func() (types.Datum, error) { return null, badCast("cannot cast %q to %s", s, t) }
	switch {
	case t.IsInteger():
		if !decimalSyntax.MatchString(s) {
			return fail()
		}
		r, err := readRat(s)
		if err != nil {
			return null, err
		}
		n := roundRat(r, 0)
		lo, hi := intBounds(t)
		if !n.IsInt64() || n.Int64() < lo || n.Int64() > hi {
			return fail()
		}
		return types.IntDatum(n.Int64()), nil
	case t.Kind == types.Double:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fail()
		}
		return types.FloatDatum(f), nil
	case t.Kind == types.Decimal:
		if !decimalSyntax.MatchString(s) {
			return fail()
		}
		r, err := readRat(s)
		if err != nil {
			return null, err
		}
		n := roundRat(r, int64(t.Scale))
		if !decimalFits(n, t) {
			return fail()
		}
		return types.DecimalDatum(decimal128.FromBigInt(n)), nil
	case t.Kind == types.Boolean:
		switch strings.ToLower(s) {
		case "true", "t", "yes", "y", "on", "1":
			return types.BoolDatum(true), nil
		case "false", "f", "no", "n", "off", "0":
			return types.BoolDatum(false), nil
		}
		return fail()
	case t.Kind == types.Date:
		if d, err := types.ParseDate(s); err == nil {
			return types.IntDatum(int64(d)), nil
		}
		ms, err := types.ParseTimestamp(s)
		if err != nil {
			return fail()
		}
		return types.IntDatum(floorDiv(ms, types.MsPerDay)), nil
	case t.Kind == types.Timestamp:
		ms, err := types.ParseTimestamp(s)
		if err != nil {
			return fail()
		}
		ms = roundToFsp(ms, int(t.Fsp))
		if !types.TimestampInRange(ms) {
			return fail()
		}
		return types.IntDatum(ms), nil
	}
	return null, fmt.Errorf("no reference cast from VARCHAR to %s", t)
}

// readRat reads a number in decimalSyntax exactly, for rounding to at most
// 38 decimals half away from zero: fraction digits past the 60th cannot
// change that (only the first dropped digit decides), so a long fraction
// is cut, which big.Rat needs (it refuses a million digits).
func readRat(s string) (*big.Rat, error) {
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		// An exponent beyond ±1000 makes the value 0 or too large for
		// any type: say so without expanding it.
		if e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+")); err != nil || e > 1000 || e < -1000 {
			mant, _ := readRat(s[:i])
			switch {
			case mant.Sign() == 0 || s[i+1] == '-':
				return new(big.Rat), nil
			default:
				return new(big.Rat).SetInt(pow10(1000)), nil
			}
		}
	}
	if i := strings.IndexByte(s, '.'); i >= 0 && !strings.ContainsAny(s, "eE") && len(s)-i > 61 {
		s = s[:i+61]
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return nil, fmt.Errorf("big.Rat cannot read %.40q... (%d bytes)", s, len(s))
	}
	return r, nil
}

// roundRat rounds r to scale decimal digits, half away from zero, and
// returns it unscaled.
func roundRat(r *big.Rat, scale int64) *big.Int {
	v := new(big.Rat).Mul(r, new(big.Rat).SetInt(pow10(scale)))
	return roundHalfAway(v.Num(), v.Denom())
}

// exactRat is the exact value of a finite double.
func exactRat(f float64) *big.Rat { return new(big.Rat).SetFloat64(f) }

// shortestRat is the value of a finite double's shortest decimal form.
func shortestRat(f float64) *big.Rat {
	r, _ := new(big.Rat).SetString(strconv.FormatFloat(f, 'g', -1, 64))
	return r
}

// roundToFsp rounds a timestamp to fsp fractional digits, half up.
func roundToFsp(ms int64, fsp int) int64 {
	unit := int64(math.Pow10(types.MaxFsp - fsp))
	return floorDiv(ms+unit/2, unit) * unit
}

// numericPrefix reads the longest numeric prefix of s, as MySQL reads a
// string in arithmetic: 0 when there is none.
var numericPrefixRE = regexp.MustCompile(`^[ \t\n\r]*([+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)`)

func numericPrefix(s string) float64 {
	m := numericPrefixRE.FindStringSubmatch(s)
	if m == nil {
		return 0
	}
	f, _ := strconv.ParseFloat(m[1], 64)
	return f
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }
