package expr

import (
	"strings"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// Calendar arithmetic (docs/dialect-notes.md, "Calendar arithmetic"):
// months, quarters and years have no fixed length, so adding them moves
// the calendar fields, clamping the day to the new month's last one as
// MySQL does ('2024-01-31' + INTERVAL 1 MONTH is '2024-02-29').

// daysInMonth is the number of days of month m (1..12) of year y.
func daysInMonth(y int64, m int) int {
	switch m {
	case 4, 6, 9, 11:
		return 30
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	}
	return 31
}

// addMonthsToDays adds n months to the date days (since the epoch),
// clamping the day of the month; ok is false when the result leaves
// DATE's range or n is absurd.
func addMonthsToDays(days, n int64) (int64, bool) {
	if n > 1<<40 || n < -(1<<40) {
		return 0, false
	}
	y, m, d := civil(days)
	total := y*12 + int64(m-1) + n
	ny := floorDiv(total, 12)
	nm := int(total-ny*12) + 1
	r := daysFromCivil(ny, nm, min(d, daysInMonth(ny, nm)))
	return r, types.DateInRange(r)
}

// addMonthsKernel is ADD_MONTHS(t, n), which DATE_ADD(t, INTERVAL n
// MONTH) (QUARTER: 3n, YEAR: 12n) and t ± INTERVAL n MONTH become: t
// with n months added, the day clamped to the month's last; the time of
// day kept; NULL beyond 9999-12-31, as MySQL.
func addMonthsKernel(e *plan.Func) (kernel, error) {
	date := e.Args[0].Type().Physical() == types.PhysDate32
	return func(in []*vector, n int, out *result) error {
		var r32 []int32
		var r64 []int64
		if date {
			r32 = out.int32s(n)
		} else {
			r64 = out.int64s(n)
		}
		for i := 0; i < n; i++ {
			if !out.isValid(i) {
				continue
			}
			months := in[1].int64At(i)
			if date {
				d, ok := addMonthsToDays(int64(in[0].int32At(i)), months)
				if !ok {
					out.setNull(i, n)
					continue
				}
				r32[i] = int32(d)
				continue
			}
			ms := in[0].int64At(i)
			day := floorDiv(ms, types.MsPerDay)
			d, ok := addMonthsToDays(day, months)
			if !ok {
				out.setNull(i, n)
				continue
			}
			r64[i] = d*types.MsPerDay + (ms - day*types.MsPerDay)
		}
		return nil
	}, nil
}

// lastDayKernel is LAST_DAY(t): the date of the last day of t's month.
func lastDayKernel(e *plan.Func) (kernel, error) {
	date := e.Args[0].Type().Physical() == types.PhysDate32
	return func(in []*vector, n int, out *result) error {
		r := out.int32s(n)
		for i := range r {
			days := int64(0)
			if date {
				days = int64(in[0].int32At(i))
			} else {
				days = floorDiv(in[0].int64At(i), types.MsPerDay)
			}
			y, m, _ := civil(days)
			r[i] = int32(daysFromCivil(y, m, daysInMonth(y, m)))
		}
		return nil
	}, nil
}

// datediffKernel is DATEDIFF(a, b): a's date minus b's, in days (the
// times of day do not count).
func datediffKernel(e *plan.Func) (kernel, error) {
	days := func(v *vector, t types.T, i int) int64 {
		if t.Physical() == types.PhysDate32 {
			return int64(v.int32At(i))
		}
		return floorDiv(v.int64At(i), types.MsPerDay)
	}
	ta, tb := e.Args[0].Type(), e.Args[1].Type()
	return func(in []*vector, n int, out *result) error {
		r := out.int64s(n)
		for i := range r {
			r[i] = days(in[0], ta, i) - days(in[1], tb, i)
		}
		return nil
	}, nil
}

// diffUnits are TIMESTAMPDIFF's units of fixed length, in milliseconds
// (MICROSECOND counts thousandths of them); MONTH, QUARTER and YEAR count
// calendar months.
var diffUnits = map[string]int64{
	"MICROSECOND": -1000, "SECOND": types.MsPerSecond, "MINUTE": types.MsPerMinute, "HOUR": types.MsPerHour,
	"DAY": types.MsPerDay, "WEEK": 7 * types.MsPerDay, "MONTH": 0, "QUARTER": 0, "YEAR": 0,
}

// monthsBetween is the number of whole months from a to b (timestamps in
// ms), negative when b is before a: MySQL's TIMESTAMPDIFF(MONTH, a, b),
// which counts a month only once b's day and time of day reach a's.
func monthsBetween(a, b int64) int64 {
	if b < a {
		return -monthsBetween(b, a)
	}
	fa, fb := split(a), split(b)
	m := (fb.year-fa.year)*12 + int64(fb.month-fa.month)
	restA := int64(fa.day)*types.MsPerDay + (a - fa.days*types.MsPerDay)
	restB := int64(fb.day)*types.MsPerDay + (b - fb.days*types.MsPerDay)
	if restB < restA {
		m--
	}
	return m
}

// buildTimestampDiff compiles TIMESTAMPDIFF('UNIT', a, b): b − a in whole
// units, truncated toward zero, as MySQL.
func buildTimestampDiff(c *compiler, e *plan.Func) (node, error) {
	if len(e.Args) != 3 {
		return nil, notSupported("TIMESTAMPDIFF with %d arguments", len(e.Args))
	}
	u, ok := constArg(e, 0)
	if !ok || u.Null {
		return nil, notSupported("TIMESTAMPDIFF with a unit that is not a constant")
	}
	name := strings.ToUpper(strings.TrimSpace(u.S))
	unit, ok := diffUnits[name]
	if !ok {
		return nil, notSupported("TIMESTAMPDIFF unit %s", u.S)
	}
	months := int64(1)
	switch name {
	case "QUARTER":
		months = 3
	case "YEAR":
		months = 12
	}
	if err := argsOf(e, types.PhysString, types.PhysTimestamp, types.PhysTimestamp); err != nil {
		return nil, err
	}
	args, err := c.compileAll(e.Args[1:])
	if err != nil {
		return nil, err
	}
	return newFn(func(in []*vector, n int, out *result) error {
		r := out.int64s(n)
		for i := range r {
			a, b := in[0].int64At(i), in[1].int64At(i)
			switch {
			case unit == 0:
				r[i] = monthsBetween(a, b) / months
			case unit < 0:
				r[i] = (b - a) * -unit
			default:
				r[i] = (b - a) / unit
			}
		}
		return nil
	}, true, args...), nil
}
