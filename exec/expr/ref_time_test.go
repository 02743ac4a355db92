package expr_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/expr"
	"github.com/eddysql/eddy/planner/plan"
)

// Date and time functions, with package time as the calendar: times are
// UTC milliseconds since the epoch, dates days since it.

// utc returns the time of a DATE or TIMESTAMP value of type t.
func utc(v types.Datum, t types.T) time.Time {
	if t.Kind == types.Date {
		return time.Unix(v.I*86400, 0).UTC()
	}
	return time.UnixMilli(v.I).UTC()
}

// millis is the value of a DATE or TIMESTAMP in milliseconds.
func millis(v types.Datum, t types.T) int64 {
	if t.Kind == types.Date {
		return v.I * types.MsPerDay
	}
	return v.I
}

var timeFuncs = map[string]refFunc{
	"extract": func(a []types.Datum, e *plan.Func) (types.Datum, error) {
		t := e.Args[1].Type()
		tm, ms := utc(a[1], t), millis(a[1], t)
		var v int64
		switch strings.ToUpper(strings.TrimSpace(a[0].S)) {
		case "YEAR":
			v = int64(tm.Year())
		case "QUARTER":
			v = int64(tm.Month()+2) / 3
		case "MONTH":
			v = int64(tm.Month())
		case "WEEK":
			_, w := tm.ISOWeek()
			v = int64(w)
		case "DAY":
			v = int64(tm.Day())
		case "DAYOFWEEK", "DOW":
			v = int64(tm.Weekday()) + 1
		case "DAYOFYEAR", "DOY":
			v = int64(tm.YearDay())
		case "HOUR":
			v = int64(tm.Hour())
		case "MINUTE":
			v = int64(tm.Minute())
		case "SECOND":
			v = int64(tm.Second())
		case "MILLISECOND":
			v = int64(tm.Second())*1000 + floorMod(ms, 1000)
		case "MICROSECOND":
			v = floorMod(ms, 1000) * 1000
		case "EPOCH":
			v = floorDiv(ms, 1000)
		default:
			return null, fmt.Errorf("EXTRACT unit %q", a[0].S)
		}
		return types.IntDatum(v), nil
	},
	"date": func(a []types.Datum, e *plan.Func) (types.Datum, error) {
		return types.IntDatum(floorDiv(millis(a[0], e.Args[0].Type()), types.MsPerDay)), nil
	},
	"unix_timestamp": func(a []types.Datum, e *plan.Func) (types.Datum, error) {
		return types.IntDatum(floorDiv(millis(a[0], e.Args[0].Type()), 1000)), nil
	},
	"from_unixtime": func(a []types.Datum, _ *plan.Func) (types.Datum, error) {
		s := a[0].I
		if s < types.MinTimestamp/1000 || s > types.MaxTimestamp/1000 {
			return null, outOfRange("FROM_UNIXTIME(%d)", s)
		}
		return types.IntDatum(s * 1000), nil
	},
	"date_format": func(a []types.Datum, e *plan.Func) (types.Datum, error) {
		return str(mysqlFormat(utc(a[0], e.Args[0].Type()), a[1].S))
	},
	"to_char": func(a []types.Datum, e *plan.Func) (types.Datum, error) {
		return str(pgFormat(utc(a[0], e.Args[0].Type()), a[1].S))
	},
}

// clock12 is the hour on a 12-hour clock (12 for 0 and 12) and AM or PM.
func clock12(tm time.Time) (int, string) {
	h := tm.Hour() % 12
	if h == 0 {
		h = 12
	}
	if tm.Hour() < 12 {
		return h, "AM"
	}
	return h, "PM"
}

// mysqlFormat formats tm by MySQL's DATE_FORMAT specifiers. An unknown
// specifier prints its letter, a lone trailing % itself.
func mysqlFormat(tm time.Time, f string) string {
	var b strings.Builder
	h12, ampm := clock12(tm)
	ms := tm.Nanosecond() / 1e6
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 == len(f) {
			b.WriteByte(f[i])
			continue
		}
		i++
		switch c := f[i]; c {
		case 'Y':
			fmt.Fprintf(&b, "%04d", tm.Year())
		case 'y':
			fmt.Fprintf(&b, "%02d", tm.Year()%100)
		case 'm':
			fmt.Fprintf(&b, "%02d", int(tm.Month()))
		case 'c':
			fmt.Fprintf(&b, "%d", int(tm.Month()))
		case 'd':
			fmt.Fprintf(&b, "%02d", tm.Day())
		case 'e':
			fmt.Fprintf(&b, "%d", tm.Day())
		case 'D':
			fmt.Fprintf(&b, "%d%s", tm.Day(), expr.DaySuffix(tm.Day()))
		case 'H':
			fmt.Fprintf(&b, "%02d", tm.Hour())
		case 'k':
			fmt.Fprintf(&b, "%d", tm.Hour())
		case 'h', 'I':
			fmt.Fprintf(&b, "%02d", h12)
		case 'l':
			fmt.Fprintf(&b, "%d", h12)
		case 'i':
			fmt.Fprintf(&b, "%02d", tm.Minute())
		case 's', 'S':
			fmt.Fprintf(&b, "%02d", tm.Second())
		case 'f':
			fmt.Fprintf(&b, "%06d", ms*1000)
		case 'p':
			b.WriteString(ampm)
		case 'M':
			b.WriteString(tm.Month().String())
		case 'b':
			b.WriteString(tm.Month().String()[:3])
		case 'W':
			b.WriteString(tm.Weekday().String())
		case 'a':
			b.WriteString(tm.Weekday().String()[:3])
		case 'w':
			fmt.Fprintf(&b, "%d", int(tm.Weekday()))
		case 'j':
			fmt.Fprintf(&b, "%03d", tm.YearDay())
		case 'T':
			fmt.Fprintf(&b, "%02d:%02d:%02d", tm.Hour(), tm.Minute(), tm.Second())
		case 'r':
			fmt.Fprintf(&b, "%02d:%02d:%02d %s", h12, tm.Minute(), tm.Second(), ampm)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// pgFormat formats tm by a PostgreSQL TO_CHAR template: YYYY MM DD DDD
// HH24 HH12 HH MI SS MS, AM/PM, Month Mon Day Dy (cased as written: MON,
// Mon, mon), text in double quotes verbatim, anything else as is.
func pgFormat(tm time.Time, f string) string {
	h12, ampm := clock12(tm)
	fields := []struct {
		pat string
		out func() string
	}{
		{"YYYY", func() string { return fmt.Sprintf("%04d", tm.Year()) }},
		{"HH24", func() string { return fmt.Sprintf("%02d", tm.Hour()) }},
		{"HH12", func() string { return fmt.Sprintf("%02d", h12) }},
		{"HH", func() string { return fmt.Sprintf("%02d", h12) }},
		{"MONTH", func() string { return tm.Month().String() }},
		{"MON", func() string { return tm.Month().String()[:3] }},
		{"MM", func() string { return fmt.Sprintf("%02d", int(tm.Month())) }},
		{"DAY", func() string { return tm.Weekday().String() }},
		{"DDD", func() string { return fmt.Sprintf("%03d", tm.YearDay()) }},
		{"DD", func() string { return fmt.Sprintf("%02d", tm.Day()) }},
		{"DY", func() string { return tm.Weekday().String()[:3] }},
		{"MI", func() string { return fmt.Sprintf("%02d", tm.Minute()) }},
		{"SS", func() string { return fmt.Sprintf("%02d", tm.Second()) }},
		{"MS", func() string { return fmt.Sprintf("%03d", tm.Nanosecond()/1e6) }},
		{"AM", func() string { return ampm }},
		{"PM", func() string { return ampm }},
	}
	var b strings.Builder
next:
	for i := 0; i < len(f); {
		if f[i] == '"' {
			end := strings.IndexByte(f[i+1:], '"')
			if end < 0 {
				b.WriteString(f[i+1:])
				break
			}
			b.WriteString(f[i+1 : i+1+end])
			i += end + 2
			continue
		}
		for _, fl := range fields {
			if len(f)-i >= len(fl.pat) && strings.EqualFold(f[i:i+len(fl.pat)], fl.pat) {
				written := f[i : i+len(fl.pat)]
				out := fl.out()
				switch {
				case written[0] >= 'a' && written[0] <= 'z':
					out = strings.ToLower(out)
				case written[1] >= 'A' && written[1] <= 'Z':
					out = strings.ToUpper(out)
				}
				b.WriteString(out)
				i += len(fl.pat)
				continue next
			}
		}
		b.WriteByte(f[i])
		i++
	}
	return b.String()
}
