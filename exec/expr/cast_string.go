package expr

import (
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
)

// toStringKernel renders values as VARCHAR: integers in decimal, decimals at
// their scale, doubles by types.FormatFloat, booleans as true/false, dates
// as YYYY-MM-DD, timestamps per their fsp, intervals as INTERVAL literals.
func toStringKernel(from types.T) (kernel, error) {
	p := from.Physical()
	if p == types.PhysNull {
		return nil, notSupported("CAST(%s AS VARCHAR)", from)
	}
	fsp, scale := int(from.Fsp), int32(from.Scale)
	return func(in []*vector, n int, out *result) error {
		v := in[0]
		out.strings(n, n*8)
		for i := 0; i < n; i++ {
			if !out.isValid(i) {
				out.appendStr("")
				continue
			}
			switch p {
			case types.PhysInt64:
				out.buf.data = strconv.AppendInt(out.buf.data, v.int64At(i), 10)
				out.buf.offs = append(out.buf.offs, int32(len(out.buf.data)))
			case types.PhysBool:
				out.appendStr(strconv.FormatBool(v.boolAt(i)))
			case types.PhysFloat64:
				out.appendStr(types.FormatFloat(v.float64At(i)))
			case types.PhysDecimal:
				out.appendStr(formatDecimal(v.decAt(i), scale))
			case types.PhysDate32:
				out.buf.data = appendDate(out.buf.data, int64(v.int32At(i))*types.MsPerDay, -1)
				out.buf.offs = append(out.buf.offs, int32(len(out.buf.data)))
			case types.PhysTimestamp:
				out.buf.data = appendDate(out.buf.data, v.int64At(i), fsp)
				out.buf.offs = append(out.buf.offs, int32(len(out.buf.data)))
			case types.PhysDuration:
				out.appendStr(types.FormatInterval(v.int64At(i)))
			}
		}
		out.finishStrings()
		return nil
	}, nil
}

// appendDate appends the timestamp ms as types.FormatTimestamp(ms, fsp)
// does, or as types.FormatDate when fsp < 0, without allocating for years
// 0 to 9999.
func appendDate(d []byte, ms int64, fsp int) []byte {
	f := split(ms)
	if f.year < 0 || f.year > 9999 {
		if fsp < 0 {
			return append(d, types.FormatDate(int32(f.days))...)
		}
		return append(d, types.FormatTimestamp(ms, fsp)...)
	}
	d = append(appendPadded(d, f.year, 4), '-')
	d = append(appendPadded(d, int64(f.month), 2), '-')
	d = appendPadded(d, int64(f.day), 2)
	if fsp < 0 {
		return d
	}
	d = appendClock(append(d, ' '), f.hour, f.min, f.sec)
	if fsp > 0 {
		var frac [3]byte
		frac[0], frac[1], frac[2] = byte('0'+f.ms/100), byte('0'+f.ms/10%10), byte('0'+f.ms%10)
		d = append(append(d, '.'), frac[:min(fsp, types.MaxFsp)]...)
	}
	return d
}

// formatDecimal renders v at scale, without math/big for values that fit
// an int64.
func formatDecimal(v decimal128.Num, scale int32) string {
	x, ok := decToInt64(v)
	if !ok || x == math.MinInt64 {
		return v.ToString(scale)
	}
	neg := x < 0
	if neg {
		x = -x
	}
	digits := strconv.FormatInt(x, 10)
	if scale > 0 {
		if pad := int(scale) + 1 - len(digits); pad > 0 {
			digits = strings.Repeat("0", pad) + digits
		}
		cut := len(digits) - int(scale)
		digits = digits[:cut] + "." + digits[cut:]
	}
	if neg {
		return "-" + digits
	}
	return digits
}

// fromStringKernel parses VARCHAR values (surrounding spaces ignored) as
// numbers, booleans, dates or timestamps; a value that does not parse is a
// BadCast error such as "cannot cast 'abc' to BIGINT".
func fromStringKernel(to types.T) (kernel, error) {
	parse, err := stringParser(to)
	if err != nil {
		return nil, err
	}
	p := to.Physical()
	return func(in []*vector, n int, out *result) error {
		prepareParsed(out, p, n)
		for i := 0; i < n; i++ {
			if out.isValid(i) && !parse(strings.TrimSpace(in[0].str(i)), i, out) {
				return castFail(in[0], i, types.VarcharT, to)
			}
		}
		return nil
	}, nil
}

// stringParser returns what parses a string (without surrounding spaces)
// into row i of a result of type to, made ready by prepareParsed, and
// reports whether it could.
func stringParser(to types.T) (func(s string, i int, out *result) bool, error) {
	var parse func(s string, i int, out *result) bool
	switch to.Physical() {
	case types.PhysInt64:
		lo, hi, _ := intRange(to)
		parse = func(s string, i int, out *result) bool {
			v, ok := parseInt(s)
			out.i64[i] = v
			return ok && v >= lo && v <= hi
		}
	case types.PhysFloat64:
		parse = func(s string, i int, out *result) bool {
			f, err := strconv.ParseFloat(s, 64)
			out.f64[i] = f
			return err == nil
		}
	case types.PhysDecimal:
		prec, scale := int32(to.Precision), int32(to.Scale)
		parse = func(s string, i int, out *result) bool {
			if !isDecimalSyntax(s) {
				return false
			}
			d, ok := parseDecimal(s, prec, scale)
			out.dec[i] = d
			return ok
		}
	case types.PhysBool:
		parse = func(s string, i int, out *result) bool {
			b, ok := parseBool(s)
			out.b[i] = b
			return ok
		}
	case types.PhysDate32:
		parse = func(s string, i int, out *result) bool {
			if d, err := types.ParseDate(s); err == nil {
				out.i32[i] = d
				return true
			}
			ms, err := types.ParseTimestamp(s)
			out.i32[i] = int32(floorDiv(ms, types.MsPerDay))
			return err == nil
		}
	case types.PhysTimestamp:
		fsp := int(to.Fsp)
		parse = func(s string, i int, out *result) bool {
			ms, err := types.ParseTimestamp(s)
			v := types.RoundToFsp(ms, fsp) // may round up past 9999-12-31 23:59:59
			out.i64[i] = v
			return err == nil && types.TimestampInRange(v)
		}
	default:
		return nil, notSupported("CAST(VARCHAR AS %s)", to)
	}
	return parse, nil
}

// prepareParsed makes out's values n values of the physical type p, for a
// stringParser to write.
func prepareParsed(out *result, p types.Physical, n int) {
	switch p {
	case types.PhysInt64, types.PhysTimestamp:
		out.int64s(n)
	case types.PhysFloat64:
		out.float64s(n)
	case types.PhysDecimal:
		out.decs(n)
	case types.PhysBool:
		out.bools(n)
	case types.PhysDate32:
		out.int32s(n)
	}
}

// parseInt parses an integer; a number with a fraction or exponent is
// rounded half away from zero, as casting a DOUBLE is, but exactly: the
// digits decide, not their nearest double ('4377096645681362900.0' is
// 4377096645681362900).
func parseInt(s string) (int64, bool) {
	// ParseInt reports a range error as soon as the digits overflow, also
	// in '92233720368547758061e-400' (which is 0): the exact reading
	// decides.
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v, true
	}
	if !isDecimalSyntax(s) {
		return 0, false
	}
	return roundDecimalString(s)
}

// isDecimalSyntax reports whether s is [+-]digits[.digits][e[+-]digits]
// with at least one digit.
func isDecimalSyntax(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		digits++
	}
	if i < len(s) && s[i] == '.' {
		for i++; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			exp++
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}

// parseBool accepts true/false, t/f, yes/no, y/n, on/off and 1/0, in any
// case.
func parseBool(s string) (bool, bool) {
	switch strings.ToLower(s) {
	case "true", "t", "yes", "y", "on", "1":
		return true, true
	case "false", "f", "no", "n", "off", "0":
		return false, true
	}
	return false, false
}

// buildLenientDouble compiles an implicit string-to-DOUBLE conversion (see
// plan.Cast): MySQL's reading of a string as a number, which takes the
// longest numeric prefix and 0 when there is none, instead of failing.
func (c *compiler) buildLenientDouble(arg node) (node, error) {
	k := func(in []*vector, n int, out *result) error {
		r := out.float64s(n)
		for i := range r {
			if out.isValid(i) {
				r[i] = numericPrefix(in[0].str(i))
			}
		}
		return nil
	}
	return newFn(k, true, arg), nil
}

// numericPrefix returns the value of the longest prefix of s (after leading
// spaces) that is a number: [+-]digits[.digits][e[+-]digits]. It is 0 when
// there is none.
func numericPrefix(s string) float64 {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	start := i
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := func() int {
		k := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - k
	}
	n := digits()
	if i < len(s) && s[i] == '.' {
		i++
		n += digits()
	}
	if n == 0 {
		return 0
	}
	end := i
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() > 0 {
			end = i
		}
	}
	// The prefix is well formed, so only a magnitude beyond DOUBLE's range
	// fails; ParseFloat then returns ±Inf, which MySQL reads too.
	f, _ := strconv.ParseFloat(s[start:end], 64)
	return f
}
