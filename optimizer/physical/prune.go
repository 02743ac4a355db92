package physical

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// ColumnRange bounds the values of a source's column, both ends included:
// what a filter over a pull query's read of a view keeps of it. The view
// skips the segments of its rows whose values all lie outside
// (exec/internal/rowset's zone maps); the filter still runs on what it
// reads. A BIGINT, TIMESTAMP, INTERVAL or DATE column has Lo and Hi, a
// DOUBLE LoF and HiF.
type ColumnRange struct {
	Ord      int // the source's output column
	Lo, Hi   int64
	LoF, HiF float64
	// Text shows the conjuncts the range comes from, for EXPLAIN.
	Text string
}

// pushRanges gives src, when it reads a view's rows for a pull query, the
// ranges filter's conjuncts set on its columns (filter over src's output
// ordinals): comparisons of a numeric column with a constant.
func pushRanges(src *Source, filter plan.Expr) {
	if filter == nil || src.Object.Kind != catalog.View || src.Mode != plan.ScanSnapshot {
		return
	}
	byOrd := map[int]*ColumnRange{}
	var texts map[int][]string
	for _, c := range plan.Conjuncts(filter) {
		b, ok := c.(*plan.Binary)
		if !ok || !b.Op.IsComparison() {
			continue
		}
		ref, lok := b.L.(*plan.InputRef)
		k, rok := b.R.(*plan.Const)
		op := b.Op
		if !lok || !rok {
			ref, lok = b.R.(*plan.InputRef)
			k, rok = b.L.(*plan.Const)
			op = op.Commute()
		}
		if !lok || !rok || k.Val.Null || ref.Ord >= len(src.Cols) || k.Typ != src.Cols[ref.Ord].Type {
			continue
		}
		t := src.Cols[ref.Ord].Type
		r := byOrd[ref.Ord]
		if r == nil {
			r = &ColumnRange{Ord: ref.Ord, Lo: math.MinInt64, Hi: math.MaxInt64, LoF: math.Inf(-1), HiF: math.Inf(1)}
		}
		if !narrow(r, t, op, k.Val) {
			continue
		}
		byOrd[ref.Ord] = r
		if texts == nil {
			texts = map[int][]string{}
		}
		texts[ref.Ord] = append(texts[ref.Ord], fmt.Sprint(c))
	}
	for ord, r := range byOrd {
		r.Text = strings.Join(texts[ord], " AND ")
		src.Prune = append(src.Prune, *r)
	}
	slices.SortFunc(src.Prune, func(a, b ColumnRange) int { return a.Ord - b.Ord })
}

// narrow narrows r, a range of a column of type t, to the values for
// which `column op v` holds, and reports whether it could (a column or
// an operator it does not bound leaves r as it is).
func narrow(r *ColumnRange, t types.T, op plan.BinOp, v types.Datum) bool {
	switch t.Physical() {
	case types.PhysInt64, types.PhysTimestamp, types.PhysDuration, types.PhysDate32:
		x := v.I
		switch op {
		case plan.OpEq:
			r.Lo, r.Hi = max(r.Lo, x), min(r.Hi, x)
		case plan.OpGt:
			if x == math.MaxInt64 {
				r.Lo, r.Hi = 1, 0 // nothing is greater
			} else {
				r.Lo = max(r.Lo, x+1)
			}
		case plan.OpGe:
			r.Lo = max(r.Lo, x)
		case plan.OpLt:
			if x == math.MinInt64 {
				r.Lo, r.Hi = 1, 0
			} else {
				r.Hi = min(r.Hi, x-1)
			}
		case plan.OpLe:
			r.Hi = min(r.Hi, x)
		default:
			return false
		}
		return true
	case types.PhysFloat64:
		x := v.F
		if math.IsNaN(x) {
			return false
		}
		switch op {
		case plan.OpEq:
			r.LoF, r.HiF = max(r.LoF, x), min(r.HiF, x)
		case plan.OpGt, plan.OpGe: // > keeps its bound: a range only has to hold what passes
			r.LoF = max(r.LoF, x)
		case plan.OpLt, plan.OpLe:
			r.HiF = min(r.HiF, x)
		default:
			return false
		}
		return true
	}
	return false
}

// pruneText shows a source's ranges for EXPLAIN.
func pruneText(rs []ColumnRange) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.Text
	}
	return fmt.Sprintf("[%s]", strings.Join(parts, ", "))
}
