package expr

import (
	"time"

	"fmt"
	"strings"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// civil converts days since 1970-01-01 to a proleptic Gregorian date
// (Howard Hinnant's days_from_civil inverse; valid for every int64 day
// count that a timestamp can hold).
func civil(days int64) (y int64, m, d int) {
	z := days + 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = int(doy - (153*mp+2)/5 + 1)
	if mp < 10 {
		m = int(mp + 3)
	} else {
		m = int(mp - 9)
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

// daysFromCivil is the inverse of civil.
func daysFromCivil(y int64, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := floorDiv(y, 400)
	yoe := y - era*400
	mm := int64(m) + 9
	if m > 2 {
		mm = int64(m) - 3
	}
	doy := (153*mm+2)/5 + int64(d) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// fields is a timestamp broken into calendar fields.
type fields struct {
	days           int64 // since the epoch
	year           int64
	month, day     int
	hour, min, sec int
	ms             int
}

func split(ms int64) fields {
	var f fields
	f.days = floorDiv(ms, types.MsPerDay)
	f.year, f.month, f.day = civil(f.days)
	rest := int(ms - f.days*types.MsPerDay)
	f.hour, rest = rest/3600000, rest%3600000
	f.min, rest = rest/60000, rest%60000
	f.sec, f.ms = rest/1000, rest%1000
	return f
}

// weekday is 0 for Sunday .. 6 for Saturday (1970-01-01 was a Thursday).
func (f fields) weekday() int { return int(floorMod(f.days+4, 7)) }

// yearDay is the day of the year, 1..366.
func (f fields) yearDay() int { return int(f.days-daysFromCivil(f.year, 1, 1)) + 1 }

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

// extractUnit is a field EXTRACT returns.
type extractUnit uint8

// The EXTRACT units.
const (
	unitYear extractUnit = iota
	unitQuarter
	unitMonth
	unitWeek
	unitDay
	unitDayOfWeek
	unitDayOfYear
	unitHour
	unitMinute
	unitSecond
	unitMillisecond
	unitMicrosecond
	unitEpoch
)

// extractUnits maps unit names, with aliases, to units.
var extractUnits = map[string]extractUnit{
	"YEAR": unitYear, "QUARTER": unitQuarter, "MONTH": unitMonth, "WEEK": unitWeek, "DAY": unitDay,
	"DAYOFWEEK": unitDayOfWeek, "DOW": unitDayOfWeek, "DAYOFYEAR": unitDayOfYear, "DOY": unitDayOfYear,
	"HOUR": unitHour, "MINUTE": unitMinute, "SECOND": unitSecond, "MILLISECOND": unitMillisecond,
	"MICROSECOND": unitMicrosecond, "EPOCH": unitEpoch,
}

// extractField returns field unit of the timestamp ms.
func extractField(unit extractUnit, ms int64) int64 {
	switch unit {
	case unitYear:
		return split(ms).year
	case unitQuarter:
		return int64(split(ms).month+2) / 3
	case unitMonth:
		return int64(split(ms).month)
	case unitWeek:
		return isoWeek(ms)
	case unitDay:
		return int64(split(ms).day)
	case unitDayOfWeek:
		return int64(split(ms).weekday()) + 1
	case unitDayOfYear:
		return int64(split(ms).yearDay())
	case unitHour:
		return floorMod(ms, types.MsPerDay) / types.MsPerHour
	case unitMinute:
		return floorMod(ms, types.MsPerHour) / types.MsPerMinute
	case unitSecond:
		return floorMod(ms, types.MsPerMinute) / types.MsPerSecond
	case unitMillisecond:
		// The seconds count too (0..59999), as in PostgreSQL and Flink.
		return floorMod(ms, types.MsPerMinute)
	case unitMicrosecond:
		// Within the second (0..999999), as MySQL.
		return floorMod(ms, types.MsPerSecond) * 1000
	}
	return floorDiv(ms, types.MsPerSecond) // EPOCH
}

// isoWeek is the ISO 8601 week number (1..53).
func isoWeek(ms int64) int64 {
	_, w := time.UnixMilli(ms).UTC().ISOWeek()
	return int64(w)
}

// buildExtract compiles EXTRACT('UNIT', ts) into BIGINT. DAYOFWEEK/DOW is
// 1 (Sunday) to 7, as MySQL's DAYOFWEEK and Flink; WEEK is the ISO week;
// MILLISECOND includes the seconds (PostgreSQL, Flink), MICROSECOND does not
// (MySQL); EPOCH is whole seconds since 1970-01-01 UTC.
func buildExtract(c *compiler, e *plan.Func) (node, error) {
	if len(e.Args) != 2 {
		return nil, notSupported("EXTRACT with %d arguments", len(e.Args))
	}
	u, ok := constArg(e, 0)
	if !ok || e.Args[0].Type().Kind != types.Varchar {
		return nil, fmt.Errorf("expr: EXTRACT unit must be a constant string")
	}
	unit, ok := extractUnits[strings.ToUpper(strings.TrimSpace(u.S))]
	if !ok {
		return nil, notSupported("EXTRACT unit %s", u.S)
	}
	ts, err := c.compile(e.Args[1])
	if err != nil {
		return nil, err
	}
	var kern kernel
	switch e.Args[1].Type().Physical() {
	case types.PhysTimestamp:
		kern = func(in []*vector, n int, out *result) error {
			r := out.int64s(n)
			for i := range r {
				r[i] = extractField(unit, in[0].int64At(i))
			}
			return nil
		}
	case types.PhysDate32:
		kern = func(in []*vector, n int, out *result) error {
			r := out.int64s(n)
			for i := range r {
				r[i] = extractField(unit, int64(in[0].int32At(i))*types.MsPerDay)
			}
			return nil
		}
	default:
		return nil, notSupported("EXTRACT from %s", e.Args[1].Type())
	}
	return newFn(kern, true, ts), nil
}

// buildDate compiles DATE(x): the date part of a TIMESTAMP; a DATE as is.
func buildDate(c *compiler, e *plan.Func) (node, error) {
	if len(e.Args) != 1 {
		return nil, notSupported("DATE with %d arguments", len(e.Args))
	}
	arg, err := c.compile(e.Args[0])
	if err != nil {
		return nil, err
	}
	return c.buildCast(arg, e.Args[0].Type(), types.DateT)
}

// unixTimestampKernel is UNIX_TIMESTAMP(ts): whole seconds since the epoch.
func unixTimestampKernel(e *plan.Func) (kernel, error) {
	if len(e.Args) != 1 {
		return nil, notSupported("UNIX_TIMESTAMP() (non-deterministic)")
	}
	return func(in []*vector, n int, out *result) error {
		r := out.int64s(n)
		for i := range r {
			r[i] = floorDiv(in[0].int64At(i), types.MsPerSecond)
		}
		return nil
	}, nil
}

// fromUnixtimeKernel is FROM_UNIXTIME(n): the TIMESTAMP n seconds after the
// epoch, which must be in the years 0000 to 9999.
func fromUnixtimeKernel(e *plan.Func) (kernel, error) {
	const lo, hi = types.MinTimestamp / types.MsPerSecond, types.MaxTimestamp / types.MsPerSecond
	return func(in []*vector, n int, out *result) error {
		r := out.int64s(n)
		for i := range r {
			s := in[0].int64At(i)
			if (s > hi || s < lo) && out.isValid(i) {
				return outOfRange(e.Typ, fmt.Sprintf("FROM_UNIXTIME(%d)", s))
			}
			r[i] = s * types.MsPerSecond
		}
		return nil
	}, nil
}
