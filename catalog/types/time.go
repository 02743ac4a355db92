package types

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Millisecond counts per unit, for intervals and timestamps.
const (
	MsPerSecond = int64(1000)
	MsPerMinute = 60 * MsPerSecond
	MsPerHour   = 60 * MsPerMinute
	MsPerDay    = 24 * MsPerHour
)

// The range of DATE and TIMESTAMP values: the years 0000 to 9999, the
// four-digit years ParseTimestamp and ParseDate read (MySQL documents
// '1000-01-01' as its lower bound but computes down to year 0 as well). A
// computation whose result falls outside (date arithmetic, FROM_UNIXTIME,
// rounding to fewer fractional digits) is an error, never a wrapped or
// five-digit year.
const (
	MinDate      = -719528 // 0000-01-01, in days since 1970-01-01
	MaxDate      = 2932896 // 9999-12-31
	MinTimestamp = MinDate * MsPerDay
	MaxTimestamp = (MaxDate+1)*MsPerDay - 1 // 9999-12-31 23:59:59.999, in ms
)

// DateInRange reports whether days (since the epoch) is a DATE eddy supports.
func DateInRange(days int64) bool { return days >= MinDate && days <= MaxDate }

// TimestampInRange reports whether ms (since the epoch) is a TIMESTAMP eddy
// supports.
func TimestampInRange(ms int64) bool { return ms >= MinTimestamp && ms <= MaxTimestamp }

// ParseTimestamp parses 'YYYY-MM-DD[ HH:MM[:SS[.fff...]]]' (a 'T' may separate
// date and time, and a trailing 'Z' is accepted) into milliseconds since the
// Unix epoch, UTC. Digits beyond milliseconds are truncated.
func ParseTimestamp(s string) (int64, error) {
	orig := s
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(strings.TrimSuffix(s, "Z"), "z")
	datePart, timePart := s, ""
	if i := strings.IndexAny(s, " T"); i >= 0 {
		datePart, timePart = s[:i], strings.TrimSpace(s[i+1:])
	}
	days, err := parseDateParts(datePart)
	if err != nil {
		return 0, fmt.Errorf("invalid timestamp %q: %w", orig, err)
	}
	ms := int64(days) * MsPerDay
	if timePart == "" {
		return ms, nil
	}
	offset, err := cutOffset(&timePart)
	if err != nil {
		return 0, fmt.Errorf("invalid timestamp %q: %w", orig, err)
	}
	ms -= offset
	frac := ""
	if i := strings.IndexByte(timePart, '.'); i >= 0 {
		timePart, frac = timePart[:i], timePart[i+1:]
	}
	fields := strings.Split(timePart, ":")
	if len(fields) < 2 || len(fields) > 3 {
		return 0, fmt.Errorf("invalid timestamp %q: time must be HH:MM[:SS[.fff]]", orig)
	}
	limits := [3]int64{24, 60, 60}
	units := [3]int64{MsPerHour, MsPerMinute, MsPerSecond}
	for i, f := range fields {
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil || v < 0 || v >= limits[i] || len(f) > 2 || len(f) == 0 {
			return 0, fmt.Errorf("invalid timestamp %q: bad time field %q", orig, f)
		}
		ms += v * units[i]
	}
	if frac != "" {
		if len(fields) != 3 {
			return 0, fmt.Errorf("invalid timestamp %q: fraction without seconds", orig)
		}
		for i := 0; i < len(frac); i++ {
			if frac[i] < '0' || frac[i] > '9' {
				return 0, fmt.Errorf("invalid timestamp %q: bad fraction %q", orig, frac)
			}
		}
		if len(frac) > 3 {
			frac = frac[:3]
		}
		v, _ := strconv.ParseInt(frac+strings.Repeat("0", 3-len(frac)), 10, 64)
		ms += v
	}
	return ms, nil
}

// ParseDate parses 'YYYY-MM-DD' into days since the Unix epoch.
func ParseDate(s string) (int32, error) {
	d, err := parseDateParts(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("invalid date %q: %w", s, err)
	}
	return d, nil
}

func parseDateParts(s string) (int32, error) {
	parts := strings.Split(s, "-")
	if len(parts) != 3 || len(parts[0]) != 4 || len(parts[1]) == 0 || len(parts[1]) > 2 || len(parts[2]) == 0 || len(parts[2]) > 2 {
		return 0, fmt.Errorf("expected YYYY-MM-DD")
	}
	var v [3]int
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("expected YYYY-MM-DD")
		}
		v[i] = n
	}
	y, m, d := v[0], v[1], v[2]
	if m < 1 || m > 12 || d < 1 || d > daysIn(y, time.Month(m)) {
		return 0, fmt.Errorf("day or month out of range")
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	return int32(t.Unix() / 86400), nil
}

func daysIn(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// FormatTimestamp renders milliseconds since the epoch as
// YYYY-MM-DD HH:MM:SS, followed by .fff when fsp is 3 (or .f/.ff for 1 and 2).
func FormatTimestamp(ms int64, fsp int) string {
	t := time.UnixMilli(ms).UTC()
	var b [32]byte
	out := t.AppendFormat(b[:0], "2006-01-02 15:04:05")
	if fsp > 0 {
		if fsp > MaxFsp {
			fsp = MaxFsp
		}
		frac := ms % 1000
		if frac < 0 {
			frac += 1000
		}
		digits := fmt.Sprintf("%03d", frac)
		out = append(out, '.')
		out = append(out, digits[:fsp]...)
	}
	return string(out)
}

// FormatDate renders days since the epoch as YYYY-MM-DD.
func FormatDate(days int32) string {
	return time.Unix(int64(days)*86400, 0).UTC().Format("2006-01-02")
}

// FormatInterval renders an interval in milliseconds as INTERVAL 'n' UNIT
// using the largest unit that divides it exactly.
func FormatInterval(ms int64) string {
	units := []struct {
		ms   int64
		name string
	}{{MsPerDay, "DAY"}, {MsPerHour, "HOUR"}, {MsPerMinute, "MINUTE"}, {MsPerSecond, "SECOND"}}
	for _, u := range units {
		if ms != 0 && ms%u.ms == 0 {
			return fmt.Sprintf("INTERVAL '%d' %s", ms/u.ms, u.name)
		}
	}
	return fmt.Sprintf("INTERVAL '%d' MILLISECOND", ms)
}

// IntervalUnitMs returns the length in milliseconds of a day-time interval
// unit (SECOND, MINUTE, HOUR, DAY, WEEK, MILLISECOND; plural forms accepted),
// and false for units eddy does not support (MONTH, YEAR: not fixed lengths).
func IntervalUnitMs(unit string) (int64, bool) {
	switch strings.TrimSuffix(strings.ToUpper(unit), "S") {
	case "MILLISECOND":
		return 1, true
	case "SECOND":
		return MsPerSecond, true
	case "MINUTE":
		return MsPerMinute, true
	case "HOUR":
		return MsPerHour, true
	case "DAY":
		return MsPerDay, true
	case "WEEK":
		return 7 * MsPerDay, true
	case "MICROSECOND":
		return 0, false
	}
	return 0, false
}

// RoundToFsp rounds a timestamp in milliseconds to fsp fractional digits,
// half up, as MySQL stores a value into a TIMESTAMP(fsp) column.
func RoundToFsp(ms int64, fsp int) int64 {
	if fsp >= MaxFsp {
		return ms
	}
	unit := int64(1)
	for f := fsp; f < MaxFsp; f++ {
		unit *= 10
	}
	q := (ms + unit/2) / unit
	if (ms+unit/2)%unit < 0 {
		q-- // floor division for times before 1970
	}
	return q * unit
}

// cutOffset removes an ISO-8601 UTC offset (+hh:mm, -hhmm, +hh) from the
// end of the time part t and returns it in milliseconds (what is added to
// UTC to get the local time written).
func cutOffset(t *string) (int64, error) {
	i := strings.LastIndexAny(*t, "+-")
	if i < 0 {
		return 0, nil
	}
	written, neg := (*t)[i:], (*t)[i] == '-'
	off := strings.ReplaceAll(written[1:], ":", "")
	*t = strings.TrimSpace((*t)[:i])
	bad := fmt.Errorf("bad UTC offset %q (want ±hh:mm)", written)
	if len(off) != 2 && len(off) != 4 {
		return 0, bad
	}
	h, err := strconv.Atoi(off[:2])
	m := 0
	if err == nil && len(off) == 4 {
		m, err = strconv.Atoi(off[2:])
	}
	if err != nil || h > 18 || m > 59 || strings.ContainsAny(off, "+- ") {
		return 0, bad
	}
	ms := int64(h)*MsPerHour + int64(m)*MsPerMinute
	if neg {
		ms = -ms
	}
	return ms, nil
}
