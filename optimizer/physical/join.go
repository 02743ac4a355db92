package physical

import (
	"fmt"
	"strings"

	"github.com/eddysql/eddy/optimizer/cost"
	"github.com/eddysql/eddy/planner/plan"
)

// equiKey is one conjunct l = r of a join condition, l over the left
// side's columns only and r over the right's, compared in one physical
// type: a hash join key.
type equiKey struct{ l, r plan.Expr }

// splitJoinCondition splits a join condition into equi-join keys and the
// residual rest.
func splitJoinCondition(on plan.Expr, left, right plan.ColSet) (keys []equiKey, residual []plan.Expr) {
	if on == nil {
		return nil, nil
	}
	for _, c := range plan.Conjuncts(on) {
		if eq, ok := c.(*plan.Binary); ok && eq.Op == plan.OpEq &&
			eq.L.Type().Physical() == eq.R.Type().Physical() {
			lc, rc := plan.ColsUsed(eq.L), plan.ColsUsed(eq.R)
			switch {
			case !lc.Empty() && !rc.Empty() && lc.SubsetOf(left) && rc.SubsetOf(right):
				keys = append(keys, equiKey{eq.L, eq.R})
				continue
			case !lc.Empty() && !rc.Empty() && lc.SubsetOf(right) && rc.SubsetOf(left):
				keys = append(keys, equiKey{eq.R, eq.L})
				continue
			}
		}
		if !plan.IsTrue(c) {
			residual = append(residual, c)
		}
	}
	return keys, residual
}

// buildJoin plans a join as a HashJoin whose sides are hash-partitioned on
// the equi-join keys (both sent to one instance when there are none). A
// key that is an expression rather than a column is computed by a Calc
// below its side, and a Calc above the join drops it again.
func (b *builder) buildJoin(n *plan.Join) (Node, error) {
	b.joins++
	ordinal := b.joins
	keys, residual := splitJoinCondition(n.On, plan.OutputSet(n.Left), plan.OutputSet(n.Right))
	var lk, rk []plan.Expr
	for _, k := range keys {
		lk, rk = append(lk, k.l), append(rk, k.r)
	}
	left, lcols, lords, err := b.buildJoinSide(n.Left, lk)
	if err != nil {
		return nil, err
	}
	right, rcols, rords, err := b.buildJoinSide(n.Right, rk)
	if err != nil {
		return nil, err
	}
	p := b.opts.Parallelism
	dist := b.chooseDistribution(n, left, right, len(keys) > 0, ordinal)
	switch {
	case len(keys) == 0:
		p = 1
		left, right = b.exchange(left, Single, nil, 1), b.exchange(right, Single, nil, 1)
	case dist.broadcast:
		// The left side stays where it is; each of its instances gets all
		// of the right side.
		p = left.Hdr().Parallelism
		left, right = b.exchange(left, Forward, nil, p), b.exchange(right, Broadcast, nil, p)
	default:
		left, right = b.keyedSide(left, lords, right, rords), b.keyedSide(right, rords, left, lords)
	}
	all := append(append(plan.ColList(nil), lcols...), rcols...)
	out := all
	if n.Kind == plan.SemiJoin || n.Kind == plan.AntiJoin {
		out = lcols
	}
	j := &HashJoin{Header: b.header(out, p, left, right), Kind: n.Kind, LeftKeys: lords, RightKeys: rords, Lookup: n.Lookup,
		Hashed:  len(keys) > 0 && !dist.broadcast,
		Ordinal: ordinal, Adaptive: dist.adaptive, MayBroadcast: b.mayBroadcast(n, len(keys) > 0, right, ordinal),
		LeftAppendOnly: n.Left.Props().AppendOnly, LeftRows: dist.leftRows, Budget: dist.budget}
	for _, k := range keys {
		j.KeyText = append(j.KeyText, k.l.String()+" = "+k.r.String())
	}
	if len(residual) > 0 {
		if j.Residual, err = bind(plan.MakeAnd(residual), ordinalsOf(all)); err != nil {
			return nil, err
		}
	}
	lp, rp := n.Left.Props(), n.Right.Props()
	lr, rr := left.Hdr().Est.RowsPerSec, right.Hdr().Est.RowsPerSec
	rows := cost.DefaultDistinct
	j.Est = Estimate{RowsPerSec: lr + rr, Stateful: true, StateRows: 2 * rows,
		StateBytes:   rows * (cost.RowWidth(left.Hdr().Types()) + cost.RowWidth(right.Hdr().Types())),
		StateBounded: (lp.Bounded || lp.RowsExpire) && (rp.Bounded || rp.RowsExpire), Growth: "with every row of both inputs"}
	if tb, ok := n.Windowed(); ok {
		j.Windowed, j.Lo, j.Hi, j.LeftLag, j.RightLag = true, tb.Lo, tb.Hi, tb.LeftLag, tb.RightLag
		j.LeftTime, j.RightTime = lcols.Find(tb.Left), rcols.Find(tb.Right)
		j.TimeText = b.md.Ref(tb.Left).String() + " - " + b.md.Ref(tb.Right).String() + " in " + tb.String()
		// Each side keeps the rows of a time span the watermark moves on.
		j.Est.StateBounded = true
	}
	if n.Lookup {
		// It keeps the table's current rows only.
		j.Est.RowsPerSec, j.Est.StateRows, j.Est.StateBounded = lr, rows, true
		j.Est.StateBytes = rows * cost.RowWidth(right.Hdr().Types())
	}
	b.joinTTL(j)
	if dist.decision != nil {
		j.Decisions = append(j.Decisions, *dist.decision)
	}
	if dist.broadcast {
		// Every instance keeps all of the right side.
		j.Est.StateRows *= float64(p)
		j.Est.StateBytes *= float64(p)
	}
	if len(out) == len(n.Output()) {
		return j, nil
	}
	// Drop the computed keys.
	c := &Calc{Header: b.header(n.Output(), p, j)}
	if c.Projs, err = b.bindRefs(n.Output(), out, nil); err != nil {
		return nil, err
	}
	c.Est.RowsPerSec = j.Est.RowsPerSec
	return c, nil
}

// buildJoinSide plans one side of a join and returns its columns with the
// ordinals of its keys, adding a Calc that computes the keys that are not
// columns.
func (b *builder) buildJoinSide(in plan.Node, keys []plan.Expr) (Node, plan.ColList, []int, error) {
	node, err := b.build(in)
	if err != nil {
		return nil, nil, nil, err
	}
	cols := in.Output()
	var ords []int
	var extra []plan.Expr
	ext := append(plan.ColList(nil), cols...)
	for _, k := range keys {
		if c, ok := k.(*plan.ColRef); ok {
			ords = append(ords, cols.Find(c.ID))
			continue
		}
		id := b.md.AddColumn(k.String(), "", k.Type(), k.Nullable())
		ext = append(ext, id)
		ords = append(ords, len(ext)-1)
		extra = append(extra, k)
	}
	if len(extra) == 0 {
		return node, cols, ords, nil
	}
	calc := &Calc{Header: b.header(ext, node.Hdr().Parallelism, node)}
	colOrds := ordinalsOf(cols)
	for _, id := range cols {
		e, _ := bind(b.md.Ref(id), colOrds)
		calc.Projs = append(calc.Projs, e)
	}
	for _, k := range extra {
		e, err := bind(k, colOrds)
		if err != nil {
			return nil, nil, nil, err
		}
		calc.Projs = append(calc.Projs, e)
	}
	calc.Est.RowsPerSec = node.Hdr().Est.RowsPerSec
	return calc, ext, ords, nil
}

// distChoice is how a join's inputs are distributed.
type distChoice struct {
	broadcast bool
	decision  *cost.Decision
	// adaptive: the join could be broadcast, and a run-time switch may
	// change its distribution (with the sizes and budget it was planned
	// with).
	adaptive bool
	leftRows float64
	budget   float64
}

// DistributionCosts returns the costs chooseDistribution compares for a
// join of a left side of leftRows rows and a right side of rightRows at
// parallelism p: hash-partitioning both sides, and broadcasting the right
// one. A run-time switch compares them with the sizes it observes.
func DistributionCosts(leftRows, rightRows float64, p int) (hash, broadcast float64) {
	hash = (leftRows+rightRows)*cost.ShuffleRow + rightRows*cost.InsertRowAt(rightRows/float64(p))
	broadcast = leftRows*cost.ForwardRow + float64(p)*rightRows*(cost.BroadcastRow+cost.InsertRowAt(rightRows))
	return hash, broadcast
}

// chooseDistribution decides between hash-partitioning both sides of an
// equi-join on its keys and broadcasting the right side to the instances
// of the left one (which is then not shuffled at all). Broadcast is
// considered when the left side already runs in parallel, the right side's
// state is bounded (a table, a bounded input, or the time span of a
// windowed join), the join kind needs no right row padded (inner, left,
// semi, anti, lookup), and all replicas fit the broadcast budget. It wins
// when it costs less:
//
//	hash      = (|left| + |right|) × shuffle + |right| × insert(|right| / p)
//	broadcast = |left| × forward + p × |right| × (send + insert(|right|))
//
// with sizes from the cost model and the measured per-row costs of
// cost.ShuffleRow, cost.ForwardRow, cost.BroadcastRow and
// cost.InsertRowAt (an insert costs more as the state it goes into grows:
// each hash instance keeps 1/p of the right side, each broadcast replica
// all of it). With equal costs it is the classic rule p × |small| <
// |large| + |small|; with eddy's, where inserting a row into a join's
// state costs far more than shuffling one, broadcasting pays only for
// much smaller tables.
func (b *builder) chooseDistribution(n *plan.Join, left, right Node, keyed bool, ordinal int) (c distChoice) {
	p := left.Hdr().Parallelism
	if !broadcastable(n, keyed) || p < 2 || b.opts.Parallelism < 2 {
		return distChoice{}
	}
	_, windowed := n.Windowed()
	est := b.opts.Cost
	ls, rs := est.Size(n.Left), est.Size(n.Right)
	width := cost.RowWidth(right.Hdr().Types())
	budget := b.broadcastBudget()
	hash, bcast := DistributionCosts(ls, rs, p)
	d := &cost.Decision{What: "distribution of the join " + strings.Join(joinNames(b, n), " ⋈ ")}
	d.Alternatives = []cost.Alternative{
		{Desc: fmt.Sprintf("hash both sides on the keys at parallelism %d: shuffle %s + %s rows, keep %s", b.opts.Parallelism, Human(ls), Human(rs), Human(rs)), Cost: hash},
		{Desc: fmt.Sprintf("broadcast the right side to the left's %d instances: keep %d × %s rows, shuffle none", p, p, Human(rs)), Cost: bcast},
	}
	fits := float64(p)*rs*width <= budget
	if b.opts.JoinDistribution == "" && b.opts.AdaptiveJoins && !windowed {
		// A windowed join does not switch: each of its replicas frees rows
		// by its own instance's watermark, so they cannot move between
		// layouts (exec/join's state.go).
		if sw := b.joinSwitch(ordinal); sw != nil {
			d.Chosen, d.Why = 0, sw.Why
			if sw.Broadcast {
				d.Chosen = 1
			}
			return distChoice{broadcast: sw.Broadcast, decision: d, adaptive: true, leftRows: ls, budget: budget}
		}
		// Whatever the cost model chooses below, the join may switch at
		// run time.
		defer func() {
			c.adaptive, c.leftRows, c.budget = true, ls, budget
		}()
	}
	switch b.opts.JoinDistribution {
	case "hash":
		d.Chosen, d.Why = 0, "SET join_distribution = hash"
		return distChoice{decision: d}
	case "broadcast":
		d.Chosen, d.Why = 1, "SET join_distribution = broadcast"
		return distChoice{broadcast: true, decision: d}
	}
	if bcast < hash && fits {
		d.Chosen = 1
		d.Why = "the left side is not shuffled, and the right side is small enough to keep whole in every instance"
		return distChoice{broadcast: true, decision: d}
	}
	d.Chosen = 0
	d.Why = "keeping the right side in every instance costs more than shuffling the left"
	if bcast < hash {
		d.Why = fmt.Sprintf("the replicas of the right side (%sB) would not fit the broadcast budget (%sB)", Human(float64(p)*rs*width), Human(budget))
	}
	return distChoice{decision: d}
}

// broadcastable reports whether the join's right side may be broadcast
// at some parallelism: the join keeps the rows of its left side where
// they are (an inner, left, semi or anti join), has keys, and its right
// side stays small: a regular join keeps every row of an unbounded right
// side, in every instance were it broadcast, while a windowed join keeps
// the rows of a time span (one row per window: q5's and q7's maxima), and
// a table or a bounded input has the rows it has.
func broadcastable(n *plan.Join, keyed bool) bool {
	switch n.Kind {
	case plan.InnerJoin, plan.LeftJoin, plan.SemiJoin, plan.AntiJoin:
	default:
		return false
	}
	_, windowed := n.Windowed()
	return keyed && (windowed || n.Right.Props().Bounded || plan.ReadsTable(n.Right))
}

// mayBroadcast reports whether the join's right side may be broadcast at
// some parallelism, or at run time: it is broadcastable and no setting
// forces hash partitioning, and it is a table or a window join's side,
// whose size statistics and the watermark decide, or a bounded input
// whose replicas, by the estimate of its size, would fit the broadcast
// budget at two instances (if they do not there, they fit at none).
// Options.JoinDistribution and a switch at run time force the choice.
func (b *builder) mayBroadcast(n *plan.Join, keyed bool, right Node, ordinal int) bool {
	if !broadcastable(n, keyed) {
		return false
	}
	switch b.opts.JoinDistribution {
	case "hash":
		return false
	case "broadcast":
		return true
	}
	if _, windowed := n.Windowed(); windowed || plan.ReadsTable(n.Right) || b.joinSwitch(ordinal) != nil {
		return true
	}
	return 2*b.opts.Cost.Size(n.Right)*cost.RowWidth(right.Hdr().Types()) <= b.broadcastBudget()
}

// broadcastBudget is the memory a broadcast side's replicas may take
// together: the session's, or DefaultBroadcastBudget.
func (b *builder) broadcastBudget() float64 {
	if b.opts.BroadcastBudget > 0 {
		return b.opts.BroadcastBudget
	}
	return DefaultBroadcastBudget
}

// joinNames names a join's sides for EXPLAIN: the tables or aliases they
// read.
func joinNames(b *builder, n *plan.Join) []string {
	name := func(side plan.Node) string {
		var names []string
		plan.WalkNodes(side, func(x plan.Node) {
			if s, ok := x.(*plan.Scan); ok {
				if s.Alias != "" {
					names = append(names, s.Alias)
				} else {
					names = append(names, s.Object.Name)
				}
			}
		})
		if len(names) == 1 {
			return names[0]
		}
		return "(" + strings.Join(names, " ⋈ ") + ")"
	}
	return []string{name(n.Left), name(n.Right)}
}
