package planner

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// rangeFrame binds a RANGE frame with offsets (RANGE BETWEEN 5 PRECEDING
// AND CURRENT ROW, RANGE INTERVAL '1' HOUR PRECEDING): its ORDER BY is one
// column of an integer type or DOUBLE with numeric offsets, or TIMESTAMP or
// DATE with INTERVAL offsets of a fixed length (up to WEEK; whole days for
// a DATE). A frame of the current row's peers alone (CURRENT ROW AND
// CURRENT ROW) is bound so too, with offsets 0.
func (b *Builder) rangeFrame(w *ast.WindowFuncExpr, sel *exprCtx, unbStart, unbEnd bool) (plan.Frame, error) {
	spec := &w.Spec
	if spec.OrderBy == nil || len(spec.OrderBy.Items) != 1 {
		return plan.Frame{}, b.errAt(w, "a RANGE frame with offsets needs ORDER BY one column, whose values the offsets move")
	}
	// The column's type (bound again below the node, as every ORDER BY).
	col, err := b.bindExpr(spec.OrderBy.Items[0].Expr, sel)
	if err != nil {
		return plan.Frame{}, err
	}
	t := col.Type()
	f := plan.Frame{Range: true}
	switch t.Physical() {
	case types.PhysInt64, types.PhysFloat64:
	case types.PhysTimestamp:
		f.Unit = "ms"
	case types.PhysDate32:
		f.Unit = "DAY"
	default:
		return plan.Frame{}, b.unsupported(w, "RANGE frames with offsets over "+t.String()+
			" (the ORDER BY column must be an integer, DOUBLE, TIMESTAMP or DATE)")
	}
	start, end := spec.Frame.Extent.Start, spec.Frame.Extent.End
	lo, lof, err := b.rangeBound(w, start, t)
	if err != nil {
		return plan.Frame{}, err
	}
	hi, hif, err := b.rangeBound(w, end, t)
	if err != nil {
		return plan.Frame{}, err
	}
	f.Preceding, f.PrecedingF, f.Following, f.FollowingF = -lo, -lof, hi, hif
	switch {
	case unbStart:
		f.Kind = plan.FrameRowsUnbounded
	case unbEnd:
		f.Kind = plan.FrameRowsToEnd
	default:
		f.Kind = plan.FrameRows
		if lo > hi || lof > hif {
			return plan.Frame{}, b.errAt(w, "a frame cannot start after its end")
		}
	}
	return f, nil
}

// rangeBound returns a bounded RANGE frame bound's offset from the current
// row's value, in the values of type t (negative PRECEDING): an integer,
// or for a DOUBLE column a number (the second result).
func (b *Builder) rangeBound(w *ast.WindowFuncExpr, fb ast.FrameBound, t types.T) (int64, float64, error) {
	if fb.UnBounded || fb.Type == ast.CurrentRow {
		return 0, 0, nil
	}
	sign := int64(1)
	if fb.Type == ast.Preceding {
		sign = -1
	}
	const msg = "a RANGE frame's offset must be a non-negative constant"
	x, err := b.bindExpr(fb.Expr, &exprCtx{sc: &scope{}, clause: "a window frame"})
	if err != nil || b.Fold == nil || !isConstTree(x) {
		return 0, 0, b.errAt(w, "%s", msg)
	}
	timeCol := t.Physical() == types.PhysTimestamp || t.Physical() == types.PhysDate32
	if (fb.Unit != ast.TimeUnitInvalid) != timeCol {
		if timeCol {
			return 0, 0, b.errAt(w, "a RANGE frame over %s needs INTERVAL offsets", t)
		}
		return 0, 0, b.errAt(w, "a RANGE frame over %s needs numeric offsets, not INTERVAL", t)
	}
	if t.Physical() == types.PhysFloat64 {
		if x, err = b.coerce(fb.Expr, x, types.DoubleT); err != nil {
			return 0, 0, err
		}
		d, err := b.Fold(x)
		if err != nil || d.Null || d.F < 0 || d.F != d.F {
			return 0, 0, b.errAt(w, "%s", msg)
		}
		return 0, float64(sign) * d.F, nil
	}
	if timeCol {
		// An INTERVAL's length is written as text ('10' SECOND).
		if x, err = b.coerce(fb.Expr, x, types.BigIntT); err != nil {
			return 0, 0, b.errAt(w, "%s", msg)
		}
	}
	if !x.Type().IsInteger() {
		return 0, 0, b.errAt(w, "%s (an integer)", msg)
	}
	d, err := b.Fold(x)
	if err != nil || d.Null || d.I < 0 {
		return 0, 0, b.errAt(w, "%s", msg)
	}
	n := d.I
	if timeCol {
		// The front end writes MILLISECOND as MICROSECOND × 1000.
		unitMs, perMs := int64(1), int64(1)
		if fb.Unit == ast.TimeUnitMicrosecond {
			perMs = 1000
		} else if ms, ok := types.IntervalUnitMs(fb.Unit.String()); ok {
			unitMs = ms
		} else {
			return 0, 0, b.unsupported(w, "INTERVAL unit "+fb.Unit.String()+" in a RANGE frame (only MILLISECOND to WEEK have a fixed length)")
		}
		if n%perMs != 0 {
			return 0, 0, b.errAt(w, "eddy keeps milliseconds: an INTERVAL of %d microseconds is too fine", n)
		}
		n = min(n/perMs, 1<<40) * unitMs // capped at 34 years of ms times a week
		if t.Physical() == types.PhysDate32 {
			const day = 24 * 3600 * 1000
			if n%day != 0 {
				return 0, 0, b.errAt(w, "a RANGE frame over DATE needs whole days, not %s", strings.ToUpper(fb.Unit.String()))
			}
			n /= day
		}
	}
	return sign * min(n, 1<<52), 0, nil
}
