package expr_test

import (
	"strings"
	"time"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// Calendar arithmetic with package time as the calendar (time.AddDate
// normalizes an overflowing day into the next month, so the day is
// clamped first).

// refAddMonths adds n months to tm, clamping the day to the month's last.
func refAddMonths(tm time.Time, n int64) time.Time {
	first := time.Date(tm.Year(), tm.Month(), 1, tm.Hour(), tm.Minute(), tm.Second(), tm.Nanosecond(), time.UTC)
	target := first.AddDate(0, int(n), 0)
	last := target.AddDate(0, 1, -1).Day()
	return target.AddDate(0, 0, min(tm.Day(), last)-1)
}

func init() {
	timeFuncs["add_months"] = func(a []types.Datum, e *plan.Func) (types.Datum, error) {
		t := e.Args[0].Type()
		if a[1].I > 200000 || a[1].I < -200000 {
			return null, nil // far outside 0000..9999
		}
		r := refAddMonths(utc(a[0], t), a[1].I)
		if t.Kind == types.Date {
			d := r.Unix() / 86400
			if !types.DateInRange(d) {
				return null, nil
			}
			return types.IntDatum(d), nil
		}
		ms := r.UnixMilli()
		if !types.TimestampInRange(floorDivMs(ms)) {
			return null, nil
		}
		return types.IntDatum(ms), nil
	}
	timeFuncs["last_day"] = func(a []types.Datum, e *plan.Func) (types.Datum, error) {
		tm := utc(a[0], e.Args[0].Type())
		last := time.Date(tm.Year(), tm.Month()+1, 0, 0, 0, 0, 0, time.UTC)
		return types.IntDatum(last.Unix() / 86400), nil
	}
	timeFuncs["datediff"] = func(a []types.Datum, e *plan.Func) (types.Datum, error) {
		day := func(v types.Datum, t types.T) int64 { return floorMod0(millis(v, t)) }
		return types.IntDatum(day(a[0], e.Args[0].Type()) - day(a[1], e.Args[1].Type())), nil
	}
	timeFuncs["timestampdiff"] = func(a []types.Datum, e *plan.Func) (types.Datum, error) {
		x, y := a[1].I, a[2].I
		fixed := map[string]int64{"SECOND": 1000, "MINUTE": 60000, "HOUR": 3600000, "DAY": 86400000, "WEEK": 7 * 86400000}
		unit := strings.ToUpper(strings.TrimSpace(a[0].S))
		if unit == "MICROSECOND" {
			return types.IntDatum((y - x) * 1000), nil
		}
		if ms, ok := fixed[unit]; ok {
			return types.IntDatum((y - x) / ms), nil
		}
		per := map[string]int64{"MONTH": 1, "QUARTER": 3, "YEAR": 12}[unit]
		// Whole months: the most n with x + n months <= y (toward zero).
		from, to, sign := time.UnixMilli(x).UTC(), time.UnixMilli(y).UTC(), int64(1)
		if to.Before(from) {
			from, to, sign = to, from, -1
		}
		n := int64(to.Year()-from.Year())*12 + int64(to.Month()-from.Month())
		for n > 0 && refAddMonthsKeepDay(from, n).After(to) {
			n--
		}
		return types.IntDatum(sign * n / per), nil
	}
}

// refAddMonthsKeepDay is from moved n months on with its day of month
// and time of day, not clamped: MySQL's TIMESTAMPDIFF counts a month only
// once the day and time of day reach from's.
func refAddMonthsKeepDay(from time.Time, n int64) time.Time {
	y, m := from.Year(), int(from.Month())+int(n)
	return time.Date(y, time.Month(m), from.Day(), from.Hour(), from.Minute(), from.Second(), from.Nanosecond(), time.UTC)
}

// floorDivMs is ms itself (a name for the range check above).
func floorDivMs(ms int64) int64 { return ms }

// floorMod0 returns the day of a millisecond time.
func floorMod0(ms int64) int64 { return floorDiv(ms, types.MsPerDay) }
