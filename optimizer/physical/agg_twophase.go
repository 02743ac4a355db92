package physical

import (
	"fmt"
	"strings"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/optimizer/cost"
	"github.com/eddysql/eddy/planner/plan"
)

// batchRows is the rows of a typical batch, which a LocalAgg reduces to
// one row per group it holds.
const batchRows = 4096.0

type twoPhaseChoice struct {
	twoPhase bool
	decision *cost.Decision
}

// chooseTwoPhase decides between aggregating in one phase (every input row
// shuffled by its group to the aggregate) and two (each batch aggregated
// where it is, on the input's instances, and only one row per group and
// batch shuffled). Two phases need an append-only input and aggregates
// that merge (COUNT, SUM, AVG, MIN, MAX; not DISTINCT). With R input rows
// per second, G groups and batches of B rows, a LocalAgg emits about
// min(1, G/B) rows per input row:
//
//	one phase  = R × (shuffle + aggregate)
//	two phases = R × local + R × min(1, G/B) × (shuffle + aggregate)
//
// with the measured per-row costs of cost.ShuffleRow, cost.AggRow and
// cost.LocalAggRow. Two phases win when groups are few relative to the
// batch — and, under key skew, they also spread a hot key's rows over
// every instance instead of sending them all to one.
func (b *builder) chooseTwoPhase(n *plan.Aggregate, in Node) twoPhaseChoice {
	if !n.Input.Props().AppendOnly || len(n.Aggs) == 0 {
		return twoPhaseChoice{}
	}
	inTypes := in.Hdr().Types()
	inCols := n.Input.Output()
	for _, a := range n.Aggs {
		if a.Distinct || !mergeable(a.Func, a.Arg, inCols, inTypes) {
			return twoPhaseChoice{}
		}
	}
	if b.opts.TwoPhase == "off" {
		return twoPhaseChoice{}
	}
	est := b.opts.Cost
	r := in.Hdr().Est.RowsPerSec
	g := 1.0
	for _, c := range n.Group {
		g *= est.Distinct(c)
	}
	f := min(1, g/batchRows)
	one := r * (cost.ShuffleRow + cost.AggRow)
	two := r*cost.LocalAggRow + r*f*(cost.ShuffleRow+cost.AggRow)
	d := &cost.Decision{What: fmt.Sprintf("aggregation of %s rows/s into about %s groups", Human(r), Human(g))}
	d.Alternatives = []cost.Alternative{
		{Desc: "one phase: shuffle every row to its group's instance", Cost: one},
		{Desc: fmt.Sprintf("two phases: aggregate each batch locally, shuffle about %.2g rows per input row", f), Cost: two},
	}
	switch {
	case b.opts.TwoPhase == "on":
		d.Chosen, d.Why = 1, "SET two_phase_agg = on"
	case two < one:
		d.Chosen, d.Why = 1, "few groups per batch: the local phase shrinks what is shuffled and spreads hot keys"
	default:
		d.Chosen, d.Why = 0, "too many groups per batch for the local phase to shrink the shuffle"
	}
	return twoPhaseChoice{twoPhase: d.Chosen == 1, decision: d}
}

// mergeable reports whether an aggregate splits into partials the final
// phase can merge, over a column type the LocalAgg handles.
func mergeable(f plan.AggFunc, arg plan.ColumnID, inCols plan.ColList, inTypes []types.T) bool {
	switch f {
	case plan.AggCountStar, plan.AggCount:
		return true
	case plan.AggSum, plan.AggAvg, plan.AggMin, plan.AggMax:
		i := inCols.Find(arg)
		if i < 0 {
			return false
		}
		switch inTypes[i].Physical() {
		case types.PhysInt64, types.PhysFloat64, types.PhysDecimal:
			return true
		case types.PhysTimestamp, types.PhysDuration, types.PhysDate32, types.PhysString:
			return f == plan.AggMin || f == plan.AggMax
		}
	}
	return false
}

// buildTwoPhaseAgg plans LocalAgg → hash exchange → HashAgg (→ a Calc for
// AVG, the SUM of the partial sums over the SUM of the partial counts).
func (b *builder) buildTwoPhaseAgg(n *plan.Aggregate, in Node, keys []int, d *cost.Decision) (Node, error) {
	inCols := n.Input.Output()
	localCols := append(plan.ColList(nil), n.Group...)
	var partials []PartialSpec
	addPartial := func(kind plan.AggFunc, arg plan.ColumnID, t types.T, name string) int {
		spec := PartialSpec{Kind: kind, Arg: -1, Type: t}
		if arg != 0 {
			spec.Arg = inCols.Find(arg)
		}
		partials = append(partials, spec)
		localCols = append(localCols, b.md.AddColumn(name, "", t, true))
		return len(n.Group) + len(partials) - 1
	}
	type finalAgg struct {
		spec      AggSpec
		out       plan.ColumnID
		avgOf     int // for AVG: the index of its count in finals, else -1
		avgTarget plan.ColumnID
		count     bool // a COUNT: 0, not NULL, over no rows at all
	}
	var finals []finalAgg
	sumType := func(t types.T) types.T { return plan.AggResultType(plan.AggSum, t) }
	for _, a := range n.Aggs {
		text := a.String()
		switch a.Func {
		case plan.AggCountStar, plan.AggCount:
			kind := a.Func
			k := addPartial(kind, a.Arg, types.BigIntT, "partial "+text)
			finals = append(finals, finalAgg{spec: AggSpec{Func: plan.AggSum, Arg: k, ArgType: types.BigIntT, Type: types.BigIntT, Text: text}, out: a.Out, avgOf: -1, count: true})
		case plan.AggSum:
			t := sumType(a.ArgTyp)
			k := addPartial(plan.AggSum, a.Arg, t, "partial "+text)
			finals = append(finals, finalAgg{spec: AggSpec{Func: plan.AggSum, Arg: k, ArgType: t, Type: a.Typ, Text: text}, out: a.Out, avgOf: -1})
		case plan.AggMin, plan.AggMax:
			k := addPartial(a.Func, a.Arg, a.ArgTyp, "partial "+text)
			finals = append(finals, finalAgg{spec: AggSpec{Func: a.Func, Arg: k, ArgType: a.ArgTyp, Type: a.Typ, Text: text}, out: a.Out, avgOf: -1})
		case plan.AggAvg:
			t := sumType(a.ArgTyp)
			arg := strings.TrimSuffix(strings.TrimPrefix(text, "AVG("), ")")
			ks := addPartial(plan.AggSum, a.Arg, t, "partial SUM("+arg+")")
			kc := addPartial(plan.AggCount, a.Arg, types.BigIntT, "partial COUNT("+arg+")")
			sumID := b.md.AddColumn(text+" sum", "", t, true)
			cntID := b.md.AddColumn(text+" count", "", types.BigIntT, false)
			finals = append(finals,
				finalAgg{spec: AggSpec{Func: plan.AggSum, Arg: ks, ArgType: t, Type: t, Text: "SUM(" + arg + ")"}, out: sumID, avgOf: len(finals) + 1, avgTarget: a.Out},
				finalAgg{spec: AggSpec{Func: plan.AggSum, Arg: kc, ArgType: types.BigIntT, Type: types.BigIntT, Text: "COUNT(" + arg + ")"}, out: cntID, avgOf: -1})
		}
	}
	local := &LocalAgg{Header: b.header(localCols, in.Hdr().Parallelism, in), GroupKeys: keys, Partials: partials}
	var outKeys []int // the group columns lead the LocalAgg's output
	for i := range keys {
		outKeys = append(outKeys, i)
	}
	local.Est.RowsPerSec = in.Hdr().Est.RowsPerSec * min(1, b.groupsOf(n)/batchRows)
	ex, p := b.partitioned(local, outKeys)
	aggCols := append(plan.ColList(nil), n.Group...)
	for _, f := range finals {
		aggCols = append(aggCols, f.out)
	}
	agg := &HashAgg{Header: b.header(aggCols, p, ex), GroupKeys: outKeys, AppendOnlyInput: true, CloseKey: -1, Final: true}
	if n.WindowClose != 0 {
		agg.CloseKey, agg.CloseOffset, agg.EmitOnClose = n.Group.Find(n.WindowClose), n.WindowCloseOffset, n.EmitOnClose
	}
	for _, f := range finals {
		agg.Aggs = append(agg.Aggs, f.spec)
	}
	agg.Decisions = append(agg.Decisions, *d)
	groups := b.stateGroups(n, n.Input.Props().Bounded)
	agg.Est = Estimate{RowsPerSec: local.Est.RowsPerSec, Stateful: true, StateRows: groups,
		StateBytes:   groups * (cost.RowWidth(agg.Types()) + 16),
		StateBounded: n.Input.Props().Bounded || n.Input.Props().RowsExpire || len(keys) == 0 || (n.WindowClose != 0 && n.Input.Props().Watermarked)}
	b.aggTTL(agg)
	// AVG is the SUM of the partial sums over the SUM of the partial
	// counts; a global COUNT over no rows at all is 0, where the SUM of no
	// partial counts is NULL.
	byOut := map[plan.ColumnID]plan.Expr{}
	for i, f := range finals {
		ref := &plan.InputRef{Ord: len(n.Group) + i, Typ: f.spec.Type, Null: true, Name: f.spec.Text}
		switch {
		case f.avgOf >= 0:
			cnt := &plan.InputRef{Ord: len(n.Group) + f.avgOf, Typ: types.BigIntT, Null: true, Name: finals[f.avgOf].spec.Text}
			byOut[f.avgTarget] = &plan.Binary{Op: plan.OpDiv, L: &plan.Cast{Arg: ref, To: types.DoubleT},
				R: &plan.Cast{Arg: cnt, To: types.DoubleT}, Typ: types.DoubleT}
		case f.count && len(keys) == 0:
			byOut[f.out] = &plan.Func{Name: "coalesce", Args: []plan.Expr{ref, &plan.Const{Val: types.IntDatum(0), Typ: types.BigIntT}}, Typ: types.BigIntT}
		}
	}
	if len(byOut) == 0 {
		return agg, nil
	}
	c := &Calc{Header: b.header(n.Output(), p, agg)}
	var err error
	if c.Projs, err = b.bindRefs(n.Output(), aggCols, byOut); err != nil {
		return nil, err
	}
	c.Est.RowsPerSec = agg.Est.RowsPerSec
	return c, nil
}

// groupsOf estimates an aggregate's groups from its columns' distinct
// counts.
func (b *builder) groupsOf(n *plan.Aggregate) float64 {
	g := 1.0
	for _, c := range n.Group {
		g *= b.opts.Cost.Distinct(c)
	}
	return g
}

// stateGroups estimates the groups an aggregate keeps: from the grouping
// columns' statistics when every one has them (as the two-phase choice
// and plan estimate them), else the defaults' guess for its number of
// keys.
func (b *builder) stateGroups(n *plan.Aggregate, bounded bool) float64 {
	g := 1.0
	for _, c := range n.Group {
		d, known := b.opts.Cost.DistinctKnown(c)
		if !known {
			return cost.GroupCount(len(n.Group), cost.DefaultSnapshotRows, bounded)
		}
		g *= d
	}
	return g
}
