package expr

import (
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// Exact reading of decimal numbers ([+-]digits[.digits][e[+-]digits], see
// isDecimalSyntax) into integers and decimals, rounding half away from zero
// on the digits themselves: neither a double (which loses digits past 2^53)
// nor decimal128.FromString (which rounds through a binary float of a few
// dozen bits, so 8.004999999999999 became 8.01 at scale 2) decides.

// decimalDigits is a number's significant digits: sig[k] for k >= 0 (a
// digit past the end is 0), of which the first point stand before the
// decimal point (point may be negative or exceed the digits).
type decimalDigits struct {
	neg         bool
	intPart     string
	frac        string
	lead, n     int // leading zeros, all digits of intPart+frac
	point       int
	zero, large bool // the value is 0; the exponent is beyond any int
}

// scanDecimal splits s, which must be in isDecimalSyntax.
func scanDecimal(s string) decimalDigits {
	var d decimalDigits
	d.neg = s[0] == '-'
	if s[0] == '+' || s[0] == '-' {
		s = s[1:]
	}
	exp := 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil { // beyond an int: the value is 0 or huge
			e = 1 << 30
			if s[i+1] == '-' {
				e = -1 << 30
			}
		}
		exp, s = max(-1<<30, min(e, 1<<30)), s[:i]
	}
	d.intPart, d.frac = s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		d.intPart, d.frac = s[:i], s[i+1:]
	}
	d.n = len(d.intPart) + len(d.frac)
	for d.lead < d.n && d.raw(d.lead) == '0' {
		d.lead++
	}
	d.zero = d.lead == d.n
	d.point = len(d.intPart) + exp - d.lead
	return d
}

// raw returns digit k of intPart+frac.
func (d *decimalDigits) raw(k int) byte {
	if k < len(d.intPart) {
		return d.intPart[k]
	}
	return d.frac[k-len(d.intPart)]
}

// sig returns significant digit k (0 past the last) as a number.
func (d *decimalDigits) sig(k int) uint64 {
	if k < 0 || d.lead+k >= d.n {
		return 0
	}
	return uint64(d.raw(d.lead+k) - '0')
}

// scaled returns how many digits the value has at scale s (its integer
// part times 10^s) and whether the next digit rounds it up.
func (d *decimalDigits) scaled(s int) (count int, up bool) {
	count = d.point + s
	return count, count >= 0 && d.sig(count) >= 5
}

// roundDecimalString rounds s, a number in isDecimalSyntax, to an integer;
// ok is false when it does not fit an int64.
func roundDecimalString(s string) (int64, bool) {
	d := scanDecimal(s)
	count, up := d.scaled(0)
	switch {
	case d.zero || count < 0:
		return 0, true
	case count > 19:
		return 0, false
	}
	var u uint64
	for k := range count {
		u = u*10 + d.sig(k) // at most 19 digits: no overflow
	}
	if up {
		u++
	}
	if d.neg {
		if u > 1<<63 {
			return 0, false
		}
		return int64(-u), true
	}
	if u > math.MaxInt64 {
		return 0, false
	}
	return int64(u), true
}

// parseDecimal reads s, a number in isDecimalSyntax, as a DECIMAL(prec,
// scale); ok is false when it has more than prec digits there.
func parseDecimal(s string, prec, scale int32) (decimal128.Num, bool) {
	d := scanDecimal(s)
	count, up := d.scaled(int(scale))
	switch {
	case d.zero || count < 0:
		return decimal128.Num{}, true
	case count > int(prec):
		return decimal128.Num{}, false
	}
	var v decimal128.Num
	ten := decimal128.FromU64(10)
	for k := range count {
		v = v.Mul(ten).Add(decimal128.FromU64(d.sig(k)))
	}
	if up {
		v = v.Add(decimal128.FromU64(1))
	}
	if !decFits(v, prec) {
		return decimal128.Num{}, false
	}
	if d.neg {
		v = v.Negate()
	}
	return v, true
}
