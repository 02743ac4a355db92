package expr

import (
	"fmt"
	"math"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// Date and time arithmetic: DATE or TIMESTAMP plus or minus an INTERVAL
// (DATE_ADD, DATE_SUB, ADDDATE, SUBDATE and TIMESTAMPADD bind to these). A
// result outside the years 0000 to 9999 (types.MinTimestamp ..
// types.MaxTimestamp) is an out-of-range error, as integer overflow is.

// tsAdd returns x + y, or x - y when sub, and whether the result is a
// TIMESTAMP eddy supports (false too when the sum overflows an int64).
func tsAdd(x, y int64, sub bool) (int64, bool) {
	if sub {
		if y == math.MinInt64 {
			return 0, false
		}
		y = -y
	}
	s := x + y
	if (x^s)&(y^s) < 0 {
		return s, false
	}
	return s, types.TimestampInRange(s)
}

// timeArithError reports the first row that is not NULL and for which bad
// holds: the slow path taken after a kernel saw a result out of range.
func timeArithError(in []*vector, n int, out *result, op plan.BinOp, lt, rt, t types.T, bad func(i int) bool) error {
	for i := 0; i < n; i++ {
		if out.isValid(i) && bad(i) {
			return outOfRange(t, fmt.Sprintf("%s %s %s", sqlValue(in[0], i, lt), op, sqlValue(in[1], i, rt)))
		}
	}
	return nil
}

// timestampIntervalKernel computes TIMESTAMP ± INTERVAL.
func timestampIntervalKernel(op plan.BinOp, lt, rt, t types.T) (kernel, error) {
	if (op != plan.OpAdd && op != plan.OpSub) || t.Physical() != types.PhysTimestamp {
		return nil, notSupported("%s %s %s giving %s", lt, op, rt, t)
	}
	sub := op == plan.OpSub
	return func(in []*vector, n int, out *result) error {
		a, b, r := in[0], in[1], out.int64s(n)
		ok := true
		if b.konst && !a.konst {
			y := b.i64[0]
			for i, x := range a.i64[:n] {
				s, fits := tsAdd(x, y, sub)
				r[i], ok = s, ok && fits
			}
		} else {
			for i := range r {
				s, fits := tsAdd(a.int64At(i), b.int64At(i), sub)
				r[i], ok = s, ok && fits
			}
		}
		if ok {
			return nil
		}
		return timeArithError(in, n, out, op, lt, rt, t, func(i int) bool {
			_, fits := tsAdd(a.int64At(i), b.int64At(i), sub)
			return !fits
		})
	}, nil
}

// dateIntervalKernel computes DATE ± INTERVAL: a DATE when the binder typed
// the result DATE (whole days), else a TIMESTAMP.
func dateIntervalKernel(op plan.BinOp, lt, rt, t types.T) (kernel, error) {
	if op != plan.OpAdd && op != plan.OpSub {
		return nil, notSupported("%s %s %s", lt, op, rt)
	}
	sub := op == plan.OpSub
	switch t.Kind {
	case types.Date:
		day := func(in []*vector, i int) (int64, bool) {
			d := floorDiv(in[1].int64At(i), types.MsPerDay) // |d| < 2^37: no overflow below
			if sub {
				d = -d
			}
			d += int64(in[0].int32At(i))
			return d, types.DateInRange(d)
		}
		return dateKernel((*result).int32s, day, op, lt, rt, t), nil
	case types.Timestamp:
		ts := func(in []*vector, i int) (int64, bool) {
			return tsAdd(int64(in[0].int32At(i))*types.MsPerDay, in[1].int64At(i), sub)
		}
		return dateKernel((*result).int64s, ts, op, lt, rt, t), nil
	}
	return nil, notSupported("%s %s %s giving %s", lt, op, rt, t)
}

// dateKernel returns the kernel of DATE ± INTERVAL that computes row i with
// at into values of type T (DATE days or TIMESTAMP milliseconds) and
// reports the first non-NULL row at finds out of range.
func dateKernel[T int32 | int64](values func(*result, int) []T, at func(in []*vector, i int) (int64, bool),
	op plan.BinOp, lt, rt, t types.T) kernel {
	return func(in []*vector, n int, out *result) error {
		r := values(out, n)
		ok := true
		for i := range r {
			v, fits := at(in, i)
			r[i], ok = T(v), ok && fits
		}
		if ok {
			return nil
		}
		return timeArithError(in, n, out, op, lt, rt, t, func(i int) bool {
			_, fits := at(in, i)
			return !fits
		})
	}
}
