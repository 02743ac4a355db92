package plan

import (
	"fmt"
	"math"
	"slices"

	"github.com/eddysql/eddy/catalog/types"
)

// TimeBound is what a join condition says about the event times of the
// rows it pairs: Lo <= L - R <= Hi (ms) for a time column L of the left
// side and R of the right side (see Props.TimeCols). An interval join
// (`a.ts BETWEEN b.ts - INTERVAL '5' SECOND AND b.ts + ...`) has both
// bounds; a window join (`a.window_end = b.window_end`) has Lo = Hi = 0.
// A missing bound is math.MinInt64 (Lo) or math.MaxInt64 (Hi).
//
// LeftLag and RightLag are how far behind the watermark the two columns
// follow it (Props.TimeLags; 0 for time columns): a window join on
// window_start has lags of the window size. A left row is then freed once
// the watermark passes L - Lo + RightLag (no later right change, of a time
// of at least W - RightLag, can match it), a right row once it passes
// R + Hi + LeftLag.
type TimeBound struct {
	Left, Right       ColumnID
	Lo, Hi            int64
	LeftLag, RightLag int64
}

// Bounded reports whether both bounds are set: then the state of both
// sides can be freed as the watermark passes.
func (b TimeBound) Bounded() bool { return b.Lo != math.MinInt64 && b.Hi != math.MaxInt64 }

// String renders the bound for EXPLAIN.
func (b TimeBound) String() string {
	lo, hi := "-inf", "+inf"
	if b.Lo != math.MinInt64 {
		lo = fmt.Sprintf("%dms", b.Lo)
	}
	if b.Hi != math.MaxInt64 {
		hi = fmt.Sprintf("%dms", b.Hi)
	}
	if b.LeftLag != 0 || b.RightLag != 0 {
		return fmt.Sprintf("[%s, %s] (watermark lags %dms, %dms)", lo, hi, b.LeftLag, b.RightLag)
	}
	return fmt.Sprintf("[%s, %s]", lo, hi)
}

// watermarkCols returns the columns of p that follow the watermark, at a
// lag or not.
func watermarkCols(p *Props) ColSet {
	s := p.TimeCols
	if len(p.TimeLags) > 0 {
		var lagged ColSet
		for c := range p.TimeLags {
			lagged.Add(c)
		}
		s = s.Union(lagged)
	}
	return s
}

// TimeBound returns the tightest bound the join condition puts on the
// difference of one left time column and one right time column, when the
// condition has one. Of several pairs it bounds, the one that frees rows
// soonest: bounded on both sides, then the least time a row is kept past
// its own (-Lo + RightLag and Hi + LeftLag together), then the first in
// condition order — window_end = window_end before window_start =
// window_start, whose columns follow the watermark a window behind.
func (n *Join) TimeBound() (TimeBound, bool) {
	if n.On == nil {
		return TimeBound{}, false
	}
	lp, rp := n.Left.Props(), n.Right.Props()
	lt, rt := watermarkCols(lp), watermarkCols(rp)
	var pairs []TimeBound
	for _, c := range Conjuncts(n.On) {
		l, r, lo, hi, ok := differenceBound(c, lt, rt)
		if !ok {
			continue
		}
		i := slices.IndexFunc(pairs, func(b TimeBound) bool { return b.Left == l && b.Right == r })
		if i < 0 {
			ll, _ := lp.TimeLag(l)
			rl, _ := rp.TimeLag(r)
			pairs = append(pairs, TimeBound{Left: l, Right: r, Lo: math.MinInt64, Hi: math.MaxInt64, LeftLag: ll, RightLag: rl})
			i = len(pairs) - 1
		}
		pairs[i].Lo, pairs[i].Hi = max(pairs[i].Lo, lo), min(pairs[i].Hi, hi)
	}
	if len(pairs) == 0 {
		return TimeBound{}, false
	}
	best := pairs[0]
	for _, b := range pairs[1:] {
		switch {
		case b.Bounded() != best.Bounded():
			if b.Bounded() {
				best = b
			}
		case b.Bounded() && b.kept() < best.kept():
			best = b
		}
	}
	return best, true
}

// kept is how long, in ms of watermark, a bounded join keeps a row past
// its time: the left's and the right's together.
func (b TimeBound) kept() float64 {
	return float64(b.RightLag) - float64(b.Lo) + float64(b.Hi) + float64(b.LeftLag)
}

// differenceBound reads a comparison `x op y` of a left and a right time
// column, each plus or minus a constant interval, as bounds on L - R.
func differenceBound(e Expr, left, right ColSet) (l, r ColumnID, lo, hi int64, ok bool) {
	b, isBin := e.(*Binary)
	if !isBin || !b.Op.IsComparison() || b.Op == OpNe {
		return 0, 0, 0, 0, false
	}
	xc, xoff, ok1 := timeTerm(b.L)
	yc, yoff, ok2 := timeTerm(b.R)
	if !ok1 || !ok2 {
		return 0, 0, 0, 0, false
	}
	op := b.Op
	switch {
	case left.Contains(xc) && right.Contains(yc):
	case left.Contains(yc) && right.Contains(xc):
		// y op' x: swap the sides and mirror the operator.
		xc, yc, xoff, yoff = yc, xc, yoff, xoff
		op = op.Commute()
	default:
		return 0, 0, 0, 0, false
	}
	// x + xoff op y + yoff  ⇔  L - R op yoff - xoff.
	d := yoff - xoff
	lo, hi = math.MinInt64, math.MaxInt64
	switch op {
	case OpEq:
		lo, hi = d, d
	case OpGe:
		lo = d
	case OpGt:
		lo = d + 1 // event times are whole milliseconds
	case OpLe:
		hi = d
	case OpLt:
		hi = d - 1
	default:
		return 0, 0, 0, 0, false
	}
	return xc, yc, lo, hi, true
}

// timeTerm reads `col`, `col + INTERVAL c` or `col - INTERVAL c`.
func timeTerm(e Expr) (ColumnID, int64, bool) {
	switch x := e.(type) {
	case *ColRef:
		return x.ID, 0, x.Typ.Kind == types.Timestamp
	case *Binary:
		c, ok := x.L.(*ColRef)
		k, isConst := x.R.(*Const)
		if !ok || !isConst || k.Val.Null || k.Typ.Kind != types.Interval || c.Typ.Kind != types.Timestamp {
			return 0, 0, false
		}
		switch x.Op {
		case OpAdd:
			return c.ID, k.Val.I, true
		case OpSub:
			return c.ID, -k.Val.I, true
		}
	}
	return 0, 0, false
}
