package file

import (
	"github.com/eddysql/eddy/catalog/types"
)

// dateCache remembers the last 'YYYY-MM-DD' a column parsed and its day
// number: event files hold long runs of one day, and a hit then costs one
// comparison instead of parsing and calendar arithmetic.
type dateCache struct {
	text [10]byte
	days int64
	ok   bool
}

// day returns the day number of b, 10 bytes that should read 'YYYY-MM-DD'.
func (c *dateCache) day(b []byte) (int64, bool) {
	if c.ok && string(b) == string(c.text[:]) {
		return c.days, true
	}
	if b[4] != '-' || b[7] != '-' {
		return 0, false
	}
	y, ok1 := digits(b[0:4])
	m, ok2 := digits(b[5:7])
	d, ok3 := digits(b[8:10])
	if !ok1 || !ok2 || !ok3 || !validDate(y, m, d) {
		return 0, false
	}
	c.text, c.days, c.ok = [10]byte(b), daysFromCivil(y, m, d), true
	return c.days, true
}

// parseDate parses 'YYYY-MM-DD' into days since the Unix epoch. The common
// zero-padded form is parsed in place; other forms types.ParseDate accepts
// (one-digit month or day) go through it.
func parseDate(b []byte, dc *dateCache) (int32, bool) {
	if len(b) == 10 {
		if d, ok := dc.day(b); ok {
			return int32(d), true
		}
	}
	v, err := types.ParseDate(string(b))
	return v, err == nil
}

// parseTimestamp parses a TIMESTAMP value into milliseconds since the Unix
// epoch: an integer is already such a count (SQL.md); otherwise it is
// 'YYYY-MM-DD HH:MM:SS[.fff]', parsed in place, or another form
// types.ParseTimestamp accepts. Digits beyond milliseconds are dropped.
func parseTimestamp(b []byte, dc *dateCache) (int64, faultCode) {
	if len(b) > 0 && (isDigit(b[0]) || b[0] == '-' && len(b) > 1 && isDigit(b[1])) && allDigits(b[1:]) {
		return parseInt(b)
	}
	if ms, ok := parseTimestampFast(b, dc); ok {
		return ms, faultNone
	}
	ms, err := types.ParseTimestamp(string(b))
	if err != nil {
		return 0, faultSyntax
	}
	return ms, faultNone
}

// parseTimestampFast parses 'YYYY-MM-DD HH:MM:SS' with an optional fraction
// and trailing Z ('T' may separate date and time). It reports false for
// anything else, which the general parser then judges.
func parseTimestampFast(b []byte, dc *dateCache) (int64, bool) {
	if len(b) < 19 || (b[10] != ' ' && b[10] != 'T') || b[13] != ':' || b[16] != ':' {
		return 0, false
	}
	days, ok := dc.day(b[:10])
	h, ok1 := digits(b[11:13])
	mi, ok2 := digits(b[14:16])
	s, ok3 := digits(b[17:19])
	if !(ok && ok1 && ok2 && ok3) || h > 23 || mi > 59 || s > 59 {
		return 0, false
	}
	rest := b[19:]
	if len(rest) > 0 && rest[len(rest)-1] == 'Z' {
		rest = rest[:len(rest)-1]
	}
	var frac int64
	if len(rest) > 0 {
		if rest[0] != '.' || len(rest) == 1 || !allDigits(rest[1:]) {
			return 0, false
		}
		for k, scale := 1, int64(100); k < len(rest) && k <= 3; k, scale = k+1, scale/10 {
			frac += int64(rest[k]-'0') * scale
		}
	}
	return days*types.MsPerDay + int64(h)*types.MsPerHour + int64(mi)*types.MsPerMinute + int64(s)*types.MsPerSecond + frac, true
}

// digits parses a short run of ASCII digits.
func digits(b []byte) (int, bool) {
	n := 0
	for _, c := range b {
		if !isDigit(c) {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// allDigits reports whether b holds only ASCII digits.
func allDigits(b []byte) bool {
	for _, c := range b {
		if !isDigit(c) {
			return false
		}
	}
	return true
}

// validDate reports whether y-m-d is a day of the proleptic Gregorian
// calendar.
func validDate(y, m, d int) bool {
	if m < 1 || m > 12 || d < 1 {
		return false
	}
	return d <= daysInMonth(y, m)
}

// daysInMonth returns the length of month m of year y.
func daysInMonth(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil returns the days from 1970-01-01 to the proleptic Gregorian
// date y-m-d, counting years from March so that the leap day comes last.
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400                     // [0, 399]
	mp := (m + 9) % 12                     // March = 0
	doy := (153*mp+2)/5 + d - 1            // [0, 365]
	doe := yoe*365 + yoe/4 - yoe/100 + doy // [0, 146096]
	return int64(era)*146097 + int64(doe) - 719468
}
