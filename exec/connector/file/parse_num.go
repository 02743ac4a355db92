package file

import (
	"math"
	"math/bits"
	"strconv"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// parseInt parses an optionally signed decimal integer: digits only, as
// PostgreSQL's COPY and MySQL's strict mode read an integer column. A value
// written with a fraction or an exponent (1.0, 1e3) does not parse, even
// when it is integral: an integer column's producer writes integers, and a
// double that happens to be whole is as likely a mistake.
func parseInt(b []byte) (int64, faultCode) {
	i, neg := 0, false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg, i = b[0] == '-', 1
	}
	if i == len(b) {
		return 0, faultSyntax
	}
	var u uint64
	for ; i < len(b); i++ {
		d := b[i] - '0'
		if d > 9 {
			return 0, faultSyntax
		}
		if u > (math.MaxUint64-9)/10 {
			// Beyond int64: out of range if the rest is digits too.
			if allDigits(b[i:]) {
				return 0, faultRange
			}
			return 0, faultSyntax
		}
		u = u*10 + uint64(d)
	}
	if neg {
		if u > 1<<63 {
			return 0, faultRange
		}
		return -int64(u), faultNone
	}
	if u > math.MaxInt64 {
		return 0, faultRange
	}
	return int64(u), faultNone
}

// parseFloat parses a floating-point number as strconv.ParseFloat does
// (including inf and nan); a finite value too large for a double is out of
// range.
func parseFloat(b []byte) (float64, faultCode) {
	if len(b) == 0 {
		return 0, faultSyntax
	}
	// The string shares b's memory only for the call; the error, which would
	// keep it, is dropped.
	v, err := strconv.ParseFloat(unsafe.String(&b[0], len(b)), 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, faultRange
		}
		return 0, faultSyntax
	}
	return v, faultNone
}

// parseBool accepts true/false, t/f and 1/0 in any case, returning 1 or 0.
func parseBool(b []byte) (int64, bool) {
	switch len(b) {
	case 1:
		switch b[0] {
		case '1', 't', 'T':
			return 1, true
		case '0', 'f', 'F':
			return 0, true
		}
	case 4:
		if b[0]|0x20 == 't' && b[1]|0x20 == 'r' && b[2]|0x20 == 'u' && b[3]|0x20 == 'e' {
			return 1, true
		}
	case 5:
		if b[0]|0x20 == 'f' && b[1]|0x20 == 'a' && b[2]|0x20 == 'l' && b[3]|0x20 == 's' && b[4]|0x20 == 'e' {
			return 0, true
		}
	}
	return 0, false
}

// maxExponent bounds the exponent of a decimal numeral: beyond it every
// non-zero value overflows DECIMAL(38) or rounds to zero anyway.
const maxExponent = 10000

// parseDecimal parses a decimal numeral ([+-]digits[.digits][e[+-]digits])
// exactly into a DECIMAL(prec, scale) value, scaled by 10^scale. Digits
// beyond the scale are rounded half away from zero (as MySQL and PostgreSQL
// store them); inexact reports that they were not all zero. A value whose
// integer part needs more than prec-scale digits is out of range.
func parseDecimal(b []byte, prec, scale int32) (n decimal128.Num, inexact bool, code faultCode) {
	i, neg := 0, false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg, i = b[0] == '-', 1
	}
	intStart := i
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	intPart := b[intStart:i]
	var fracPart []byte
	if i < len(b) && b[i] == '.' {
		i++
		fracStart := i
		for i < len(b) && isDigit(b[i]) {
			i++
		}
		fracPart = b[fracStart:i]
	}
	if len(intPart)+len(fracPart) == 0 {
		return n, false, faultSyntax
	}
	exp := 0
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		eneg := false
		if i < len(b) && (b[i] == '-' || b[i] == '+') {
			eneg, i = b[i] == '-', i+1
		}
		if i == len(b) {
			return n, false, faultSyntax
		}
		for ; i < len(b) && isDigit(b[i]); i++ {
			if exp < maxExponent {
				exp = exp*10 + int(b[i]-'0')
			}
		}
		if eneg {
			exp = -exp
		}
	}
	if i != len(b) {
		return n, false, faultSyntax
	}
	// The value is D × 10^(exp-len(frac)) with D the digits of both parts;
	// the result is D × 10^shift.
	digit := func(k int) byte {
		if k < len(intPart) {
			return intPart[k]
		}
		return fracPart[k-len(intPart)]
	}
	total := len(intPart) + len(fracPart)
	z := 0
	for z < total && digit(z) == '0' {
		z++
	}
	if z == total {
		return n, false, faultNone
	}
	shift := exp - len(fracPart) + int(scale)
	keep := total - z + shift // digits of the result before rounding
	if keep > int(prec) {
		return n, false, faultRange
	}
	var hi, lo uint64
	last := z + keep
	if last > total {
		last = total
	}
	for k := z; k < last; k++ {
		hi, lo = mul10Add(hi, lo, uint64(digit(k)-'0'))
	}
	for k := total; k < z+keep; k++ {
		hi, lo = mul10Add(hi, lo, 0)
	}
	if keep < total-z { // digits are dropped: round
		first := z + keep
		roundUp := first >= z && digit(first) >= '5'
		for k := max(first, z); k < total && !inexact; k++ {
			inexact = digit(k) != '0'
		}
		if roundUp {
			var c uint64
			lo, c = bits.Add64(lo, 1, 0)
			hi += c
		}
	}
	n = decimal128.New(int64(hi), lo)
	if !n.FitsInPrecision(prec) {
		return decimal128.Num{}, false, faultRange
	}
	if neg {
		n = n.Negate()
	}
	return n, inexact, faultNone
}

// mul10Add returns (hi,lo)*10 + d on 128 bits; callers stay below 10^38.
func mul10Add(hi, lo, d uint64) (uint64, uint64) {
	h, l := bits.Mul64(lo, 10)
	l, c := bits.Add64(l, d, 0)
	return hi*10 + h + c, l
}

// isDigit reports whether b is an ASCII digit.
func isDigit(b byte) bool { return b-'0' <= 9 }
