package sink

import (
	"math"
	"math/bits"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
)

// The appenders below write one value's text onto a byte slice without
// allocating. Each produces exactly what the matching function of
// catalog/types returns (types.FormatFloat, FormatDate, FormatTimestamp,
// FormatInterval, Num.ToString), which the tests check value by value.

// appendFloat appends f as types.FormatFloat renders it: the shortest text
// that reads back as f, without an exponent for ordinary magnitudes, and
// NaN, Infinity or -Infinity for the values JSON has no number for.
func appendFloat(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	}
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		return strconv.AppendFloat(dst, f, 'e', -1, 64)
	}
	return strconv.AppendFloat(dst, f, 'f', -1, 64)
}

// pow10e19 is the largest power of ten below 2^64: a 128-bit magnitude is
// cut into base-10^19 limbs, each of which strconv prints.
const pow10e19 = 10_000_000_000_000_000_000

// appendDecimal appends v, a decimal at the given scale, in full precision
// as Num.ToString(scale) renders it: an optional minus sign, the integer
// digits (at least one) and, when scale > 0, a point and exactly scale
// fractional digits. The digits come from v's 128 bits, never from a
// float64.
func appendDecimal(dst []byte, v decimal128.Num, scale int) []byte {
	hi, lo := uint64(v.HighBits()), v.LowBits()
	if v.Sign() < 0 {
		dst = append(dst, '-')
		// The two's complement negation, read as unsigned, is |v| even for
		// the most negative value.
		lo = ^lo + 1
		hi = ^hi
		if lo == 0 {
			hi++
		}
	}
	// Split |v| into up to three limbs below 10^19, least significant first.
	var limbs [3]uint64
	n := 0
	for {
		var r uint64
		qhi := hi / pow10e19
		lo, r = bits.Div64(hi%pow10e19, lo, pow10e19)
		hi = qhi
		limbs[n] = r
		n++
		if hi == 0 && lo == 0 {
			break
		}
	}
	// Print the digits into a scratch array: the top limb as is, the lower
	// ones padded to 19 digits.
	var buf [3 * 19]byte
	digits := strconv.AppendUint(buf[:0], limbs[n-1], 10)
	for k := n - 2; k >= 0; k-- {
		var limb [20]byte
		l := strconv.AppendUint(limb[:0], limbs[k], 10)
		digits = append(digits, zeros[:19-len(l)]...)
		digits = append(digits, l...)
	}
	if scale <= 0 {
		return append(dst, digits...)
	}
	if len(digits) <= scale {
		dst = append(dst, '0', '.')
		dst = append(dst, zeros[:scale-len(digits)]...)
		return append(dst, digits...)
	}
	at := len(digits) - scale
	dst = append(dst, digits[:at]...)
	dst = append(dst, '.')
	return append(dst, digits[at:]...)
}

// zeros pads decimals: up to 38 leading fractional zeros, or a limb's
// leading zeros (at most 18).
var zeros = []byte("00000000000000000000000000000000000000")

// dayCache remembers the text of the last day formatted: a stream's
// timestamps and dates mostly fall on few days, so the calendar arithmetic
// runs once per day rather than once per value.
type dayCache struct {
	day   int64
	valid bool
	n     int
	text  [24]byte // YYYY-MM-DD; room for the years time prints beyond 9999
}

// appendDay appends the date of day (days since the Unix epoch) as
// YYYY-MM-DD, as types.FormatDate renders it.
func (c *dayCache) appendDay(dst []byte, day int64) []byte {
	if !c.valid || c.day != day {
		t := time.Unix(day*86400, 0).UTC()
		c.n = len(t.AppendFormat(c.text[:0], "2006-01-02"))
		c.day, c.valid = day, true
	}
	return append(dst, c.text[:c.n]...)
}

// msPerDay is int64 so that the floor division below cannot overflow.
const msPerDay = types.MsPerDay

// appendTimestamp appends ms (milliseconds since the epoch, UTC) as
// YYYY-MM-DD HH:MM:SS followed by the first fsp digits of the milliseconds,
// as types.FormatTimestamp renders it.
func (c *dayCache) appendTimestamp(dst []byte, ms int64, fsp int) []byte {
	day, rem := ms/msPerDay, ms%msPerDay
	if rem < 0 {
		day, rem = day-1, rem+msPerDay
	}
	dst = c.appendDay(dst, day)
	secs, frac := rem/1000, rem%1000
	h, m, s := secs/3600, secs/60%60, secs%60
	dst = append(dst, ' ', byte('0'+h/10), byte('0'+h%10), ':',
		byte('0'+m/10), byte('0'+m%10), ':', byte('0'+s/10), byte('0'+s%10))
	if fsp > types.MaxFsp {
		fsp = types.MaxFsp
	}
	if fsp > 0 {
		f := [3]byte{byte('0' + frac/100), byte('0' + frac/10%10), byte('0' + frac%10)}
		dst = append(dst, '.')
		dst = append(dst, f[:fsp]...)
	}
	return dst
}

// intervalUnits are the units an interval is shown in, largest first, as
// types.FormatInterval picks them.
var intervalUnits = [...]struct {
	ms   int64
	name string
}{{types.MsPerDay, "DAY"}, {types.MsPerHour, "HOUR"}, {types.MsPerMinute, "MINUTE"}, {types.MsPerSecond, "SECOND"}}

// appendInterval appends an interval of ms milliseconds as INTERVAL 'n'
// UNIT in the largest unit that divides it, as types.FormatInterval does.
func appendInterval(dst []byte, ms int64) []byte {
	dst = append(dst, "INTERVAL '"...)
	for _, u := range intervalUnits {
		if ms != 0 && ms%u.ms == 0 {
			dst = strconv.AppendInt(dst, ms/u.ms, 10)
			dst = append(dst, "' "...)
			return append(dst, u.name...)
		}
	}
	dst = strconv.AppendInt(dst, ms, 10)
	return append(dst, "' MILLISECOND"...)
}

// appendJSONString appends s as a JSON string: quotes and backslashes
// escaped, control characters as \n, \r, \t, \b, \f or \u00XX, and bytes
// that are not UTF-8 replaced by U+FFFD (as encoding/json does), so every
// line is valid JSON.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b >= 0x20 && b != '"' && b != '\\' && b < utf8.RuneSelf {
			i++
			continue
		}
		if b >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		dst = append(dst, s[start:i]...)
		switch b {
		case '"', '\\':
			dst = append(dst, '\\', b)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xf])
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendCSVString appends s as a CSV field (RFC 4180), quoted only where
// needed: when it is empty (an unquoted empty field is NULL, SQL.md) or
// holds a comma, a quote or a line break. Quotes inside are doubled.
func appendCSVString(dst []byte, s string) []byte {
	if s != "" && !csvNeedsQuotes(s) {
		return append(dst, s...)
	}
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			dst = append(dst, s[start:i+1]...)
			dst = append(dst, '"')
			start = i + 1
		}
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// csvNeedsQuotes reports whether s holds a byte that must be quoted in CSV.
func csvNeedsQuotes(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ',', '"', '\n', '\r':
			return true
		}
	}
	return false
}
