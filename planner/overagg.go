package planner

import (
	"fmt"
	"math"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/eddysql/eddy/planner/plan"
)

// overWindow is one distinct window (partition, order and frame) of the
// select list's aggregate calls, with the calls over it.
type overWindow struct {
	spec    *ast.WindowSpec
	frame   plan.Frame
	ordered bool // the order matters to a call
	calls   []*ast.WindowFuncExpr
}

// overAggs binds the aggregate window calls (AGG(x) OVER (...)) and the
// window functions other than ROW_NUMBER: the calls
// sharing a window become one OverAggregate, stacked over the current input
// in the order their windows first appear. Each call's result column is
// recorded in out under its restored text.
func (wb *windowBinder) overAggs(calls []*ast.WindowFuncExpr, out map[string]plan.ColumnID) error {
	var windows []*overWindow
	byKey := map[string]*overWindow{}
	for _, w := range calls {
		var frame plan.Frame // FrameNone: ranking and offset functions ignore frames
		if usesFrame(w) {
			var err error
			if frame, err = wb.b.frameOf(w, wb.sel); err != nil {
				return err
			}
		}
		// The whole partition's aggregates read it in any order; a value
		// function (FIRST_VALUE, ...) reads it in its ORDER BY.
		ordered := frame.Kind != plan.FramePartition || winFuncs[strings.ToLower(w.Name)] != 0
		key := windowKey(&w.Spec, frame, ordered)
		ow := byKey[key]
		if ow == nil {
			ow = &overWindow{spec: &w.Spec, frame: frame, ordered: ordered}
			byKey[key] = ow
			windows = append(windows, ow)
		}
		ow.calls = append(ow.calls, w)
	}
	for _, ow := range windows {
		wb.startPre()
		part, order, err := wb.partitionOrder(ow.spec)
		if err != nil {
			return err
		}
		if !ow.ordered {
			order = nil // every row's frame is the whole partition, in any order
		}
		node := &plan.OverAggregate{Partition: part, Order: order, Frame: ow.frame}
		seen := map[string]bool{}
		for _, w := range ow.calls {
			key := windowText(w)
			if seen[key] {
				continue
			}
			seen[key] = true
			if winFuncs[strings.ToLower(w.Name)] != 0 {
				f, err := wb.winFuncCall(w)
				if err != nil {
					return err
				}
				f.Out = wb.b.md.AddColumn(strings.ToLower(w.Name), "", f.Typ, plan.WinFuncNullable(f.Kind))
				node.Funcs = append(node.Funcs, f)
				out[key] = f.Out
				continue
			}
			a, err := wb.overAggCall(w)
			if err != nil {
				return err
			}
			node.Aggs = append(node.Aggs, a)
			out[key] = a.Out
		}
		node.Input = wb.finishPre()
		wb.in = node
	}
	return nil
}

// windowKey identifies a window by its partition and order expressions
// as written (the order only when ordered) and its frame.
func windowKey(spec *ast.WindowSpec, f plan.Frame, ordered bool) string {
	var sb strings.Builder
	if spec.PartitionBy != nil {
		for _, it := range spec.PartitionBy.Items {
			sb.WriteString(restore(it.Expr))
			sb.WriteByte(',')
		}
	}
	sb.WriteByte('|')
	if spec.OrderBy != nil && ordered {
		for _, it := range spec.OrderBy.Items {
			sb.WriteString(restore(it.Expr))
			if it.Desc {
				sb.WriteString(" DESC")
			}
			sb.WriteByte(',')
		}
	}
	sb.WriteByte('|')
	sb.WriteString(f.String())
	return sb.String()
}

// frameOf returns the frame of an aggregate or value window call. Without
// a frame clause it is SQL's default: the rows up to the current row and
// its peers with ORDER BY, the whole partition without. ROWS frames run
// and GROUPS frames run with any bounds; RANGE frames run when unbounded on
// one side and ending (or starting) at the current row; RANGE frames with
// offsets do not run yet.
func (b *Builder) frameOf(w *ast.WindowFuncExpr, sel *exprCtx) (plan.Frame, error) {
	spec := &w.Spec
	f := spec.Frame
	if f == nil {
		if spec.OrderBy == nil {
			return plan.Frame{Kind: plan.FramePartition}, nil
		}
		return plan.Frame{Kind: plan.FramePeers}, nil
	}
	start, end := f.Extent.Start, f.Extent.End
	unbStart := start.Type == ast.Preceding && start.UnBounded
	unbEnd := end.Type == ast.Following && end.UnBounded
	switch {
	case start.Type == ast.Following && start.UnBounded:
		return plan.Frame{}, b.errAt(w, "a frame cannot start at UNBOUNDED FOLLOWING")
	case end.Type == ast.Preceding && end.UnBounded:
		return plan.Frame{}, b.errAt(w, "a frame cannot end at UNBOUNDED PRECEDING")
	case unbStart && unbEnd:
		return plan.Frame{Kind: plan.FramePartition}, nil
	}
	frameType := f.Type
	switch frameType {
	case ast.Ranges:
		switch {
		case unbStart && end.Type == ast.CurrentRow:
			return plan.Frame{Kind: plan.FramePeers}, nil
		case start.Type == ast.CurrentRow && unbEnd:
			return plan.Frame{Kind: plan.FramePeersToEnd}, nil
		case start.Type == ast.CurrentRow && end.Type == ast.CurrentRow && spec.OrderBy != nil && len(spec.OrderBy.Items) > 1:
			// The current row's peers: the group of the current row,
			// whatever the ORDER BY's columns (no offsets to move).
			frameType = ast.Groups
		default:
			return b.rangeFrame(w, sel, unbStart, unbEnd)
		}
	case ast.Groups:
		if spec.OrderBy == nil {
			return plan.Frame{}, b.errAt(w, "a GROUPS frame needs ORDER BY: its groups are the ORDER BY's peers")
		}
	}
	if spec.OrderBy == nil {
		return plan.Frame{}, b.errAt(w, "a ROWS frame needs ORDER BY: without it the frame depends on arrival order")
	}
	groups := frameType == ast.Groups
	var lo, hi int64 // the bounds' offsets from the current row
	var err error
	if !unbStart {
		if lo, err = b.frameBound(w, start); err != nil {
			return plan.Frame{}, err
		}
	}
	if !unbEnd {
		if hi, err = b.frameBound(w, end); err != nil {
			return plan.Frame{}, err
		}
	}
	switch {
	case unbStart:
		return plan.Frame{Kind: plan.FrameRowsUnbounded, Following: hi, Groups: groups}, nil
	case unbEnd:
		return plan.Frame{Kind: plan.FrameRowsToEnd, Preceding: -lo, Groups: groups}, nil
	case lo > hi:
		return plan.Frame{}, b.errAt(w, "a frame cannot start after its end")
	}
	return plan.Frame{Kind: plan.FrameRows, Preceding: -lo, Following: hi, Groups: groups}, nil
}

// frameBound returns a bounded ROWS frame bound's offset from the current
// row: -n for n PRECEDING, 0 for CURRENT ROW, n for n FOLLOWING.
func (b *Builder) frameBound(w *ast.WindowFuncExpr, fb ast.FrameBound) (int64, error) {
	if fb.Type == ast.CurrentRow {
		return 0, nil
	}
	n, err := b.frameOffset(w, fb.Expr)
	if err != nil {
		return 0, err
	}
	// A frame wider than any partition is capped, so that the offsets'
	// sums cannot overflow.
	n = min(n, math.MaxInt32)
	if fb.Type == ast.Preceding {
		return -n, nil
	}
	return n, nil
}

// frameOffset evaluates the n of ROWS n PRECEDING (or FOLLOWING): a
// non-negative integer constant.
func (b *Builder) frameOffset(w *ast.WindowFuncExpr, e ast.ExprNode) (int64, error) {
	const msg = "ROWS n PRECEDING needs a non-negative integer n"
	if e == nil {
		return 0, b.errAt(w, msg)
	}
	return b.nonNegativeConst(e, "a window frame", w, msg)
}

// overAggCall binds one aggregate window call; its argument is bound as the
// select list binds (above GROUP BY, it may read groups and aggregates) and
// becomes a column below the OverAggregate. Arguments are typed as in
// GROUP BY aggregates.
func (wb *windowBinder) overAggCall(w *ast.WindowFuncExpr) (plan.AggCall, error) {
	b := wb.b
	name := strings.ToUpper(w.Name)
	f := aggFuncs[strings.ToLower(w.Name)]
	if w.Distinct {
		return plan.AggCall{}, b.unsupported(w, name+"(DISTINCT ...) OVER")
	}
	if len(w.Args) != 1 {
		return plan.AggCall{}, b.errAt(w, "%s takes one argument", name)
	}
	arg := w.Args[0]
	if countsRows(f, arg) {
		return b.countStar(), nil
	}
	e, err := b.bindExpr(arg, &exprCtx{sc: wb.sel.sc, agg: wb.sel.agg, clause: "a window function's argument"})
	if err != nil {
		return plan.AggCall{}, err
	}
	e, t, err := b.typeAggArg(f, e, arg, name)
	if err != nil {
		return plan.AggCall{}, err
	}
	return b.aggResult(plan.AggCall{Func: f}, wb.column(e), t, fmt.Sprintf("%s(%s)", name, e.String())), nil
}
