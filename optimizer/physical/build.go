package physical

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/optimizer/cost"
	"github.com/eddysql/eddy/planner/plan"
)

// Options configure physical planning.
type Options struct {
	// Parallelism is the number of instances of each keyed (stateful)
	// operator; sources and their stateless chains run at their number of
	// splits (one for every source eddy has so far).
	Parallelism int
	// Cost estimates sizes for the cost-based choices (nil: defaults).
	Cost *cost.Estimator
	// BroadcastBudget is the most bytes a broadcast join side may take in
	// all its replicas together (0: DefaultBroadcastBudget).
	BroadcastBudget float64
	// TwoPhase forces two-phase aggregation "on" or "off" where it is
	// possible ("" or "auto": the cost model decides).
	TwoPhase string
	// JoinDistribution forces the distribution of the joins that could be
	// broadcast: "hash" or "broadcast" ("" or "auto": the cost model
	// decides).
	JoinDistribution string
	// StateTTL, when positive, evicts the keys of regular joins and of
	// aggregates not freed by watermarks once idle that long (ttl.go).
	StateTTL time.Duration
	// AdaptiveJoins marks the joins whose distribution may switch between
	// hash and broadcast at run time (HashJoin.Adaptive, adaptive.go).
	AdaptiveJoins bool
	// JoinSwitches force the distribution of joins by their ordinal
	// (HashJoin.Ordinal): the switches made at run time.
	JoinSwitches []JoinSwitch
	// ShareSubplans computes once each sub-plan the query uses in several
	// places (share.go).
	ShareSubplans bool
	// ParallelRoot says the root's consumer runs at the root's
	// parallelism (a sink that discards its rows): the root's output is
	// not gathered into one instance.
	ParallelRoot bool
}

// DefaultBroadcastBudget bounds the memory the replicas of a broadcast
// join side may take together.
const DefaultBroadcastBudget = 256 << 20

// Decisions returns the cost-based choices made while building the plan.
func Decisions(n Node) []cost.Decision {
	var out []cost.Decision
	eachNode(n, func(n Node) { out = append(out, n.Hdr().Decisions...) })
	return out
}

// Build turns an optimized logical plan into a physical plan, binding column
// references to input ordinals and inserting exchanges. The root's output
// columns are the logical root's, in order; when the root runs at
// parallelism above one a single-distribution exchange gathers it, since
// result sinks run as one instance — unless opts.ParallelRoot.
func Build(md *plan.Metadata, root plan.Node, opts Options) (Node, error) {
	if opts.Parallelism < 1 {
		opts.Parallelism = 1
	}
	b := &builder{md: md, opts: opts}
	build := b.buildSingle
	if opts.ParallelRoot {
		build = b.build
	}
	phys, err := build(root)
	if err != nil {
		return nil, err
	}
	if opts.AdaptiveJoins {
		markAdaptive(phys, false)
	}
	if opts.ShareSubplans {
		phys = ShareSubplans(phys)
	}
	return phys, nil
}

type builder struct {
	md     *plan.Metadata
	opts   Options
	nextID int
	joins  int // the joins planned so far (HashJoin.Ordinal)
}

func (b *builder) header(cols plan.ColList, p int, inputs ...Node) Header {
	b.nextID++
	h := Header{ID: b.nextID, Parallelism: p, Inputs: inputs}
	for _, id := range cols {
		c := b.md.Column(id)
		h.Cols = append(h.Cols, Col{Name: c.Name, Type: c.Type, Nullable: c.Nullable})
	}
	return h
}

func (b *builder) exchange(in Node, d DistKind, keys []int, p int) Node {
	b.nextID++
	ih := in.Hdr()
	return &Exchange{
		Header: Header{ID: b.nextID, Cols: ih.Cols, Inputs: []Node{in}, Parallelism: p,
			Est: Estimate{RowsPerSec: ih.Est.RowsPerSec}},
		Dist: d, Keys: keys,
	}
}

func (b *builder) build(n plan.Node) (Node, error) {
	switch n := n.(type) {
	case *plan.Scan:
		return b.buildScan(n), nil
	case *plan.Values:
		v := &Values{Header: b.header(n.Cols, 1), Rows: n.Rows}
		v.Est.RowsPerSec = float64(len(n.Rows))
		return v, nil
	case *plan.Filter:
		return b.buildCalc(n.Input, n.Pred, b.md.IdentityItems(n.Input.Output()), n.Output())
	case *plan.Project:
		return b.buildCalc(n.Input, nil, n.Items, n.Output())
	case *plan.Calc:
		return b.buildCalc(n.Input, n.Pred, n.Items, n.Output())
	case *plan.Aggregate:
		return b.buildAgg(n)
	case *plan.Window:
		in, err := b.build(n.Input)
		if err != nil {
			return nil, err
		}
		w := &WindowAssign{Header: b.header(n.Output(), in.Hdr().Parallelism, in), Kind: n.Kind,
			TimeCol: n.Input.Output().Find(n.TimeCol), Size: n.Size, Slide: n.Slide}
		factor := 1.0
		if n.Kind != plan.Tumble && n.Slide > 0 {
			factor = float64(n.Size) / float64(n.Slide) // rows per window a row belongs to
		}
		w.Est.RowsPerSec = in.Hdr().Est.RowsPerSec * factor
		return w, nil
	case *plan.SessionAggregate:
		return b.buildSessionAgg(n)
	case *plan.TopN:
		return b.buildTopN(n)
	case *plan.TemporalFilter:
		return b.buildTemporalFilter(n)
	case *plan.OverAggregate:
		return b.buildOverAgg(n)
	case *plan.RowNumber:
		if !n.Props().Bounded {
			// Without a rank filter every row is numbered, incrementally.
			return b.buildOverAgg(&plan.OverAggregate{Input: n.Input, Partition: n.Partition, Order: n.Order,
				Funcs: []plan.WinFunc{{Kind: plan.WinRowNumber, Out: n.Out, Typ: types.BigIntT, Text: "ROW_NUMBER()"}}})
		}
		// A bounded input (a pull query) numbers every row at once.
		return b.buildTopN(&plan.TopN{Input: n.Input, Partition: n.Partition, Order: n.Order, Limit: math.MaxInt64, Out: n.Out})
	case *plan.Union:
		return b.buildUnion(n)
	case *plan.SetOp:
		return b.buildSetOp(n)
	case *plan.Join:
		return b.buildJoin(n)
	case *plan.Sort:
		in, err := b.buildSingle(n.Input)
		if err != nil {
			return nil, err
		}
		s := &Sort{Header: b.header(n.Output(), 1, in), Keys: sortKeysOf(n.Input.Output(), n.Keys)}
		s.Est = Estimate{RowsPerSec: in.Hdr().Est.RowsPerSec, Stateful: true, StateBounded: true,
			StateRows: cost.DefaultSnapshotRows, StateBytes: cost.DefaultSnapshotRows * cost.RowWidth(s.Types())}
		return s, nil
	case *plan.Limit:
		in, err := b.buildSingle(n.Input)
		if err != nil {
			return nil, err
		}
		l := &Limit{Header: b.header(n.Output(), 1, in), Count: n.Count, Offset: n.Offset,
			AppendOnlyInput: n.Input.Props().AppendOnly}
		l.Est.RowsPerSec = in.Hdr().Est.RowsPerSec
		return l, nil
	}
	return nil, fmt.Errorf("physical: no physical operator for %T", n)
}

// buildSingle builds n and gathers its output into one instance.
func (b *builder) buildSingle(n plan.Node) (Node, error) {
	out, err := b.build(n)
	if err != nil {
		return nil, err
	}
	if out.Hdr().Parallelism > 1 {
		out = b.exchange(out, Single, nil, 1)
	}
	return out, nil
}

func (b *builder) buildScan(n *plan.Scan) Node {
	bounded := n.Props().Bounded
	p := 1
	if n.Object.Traits.Splittable {
		p = b.opts.Parallelism // a split per instance
	}
	src := &Source{Header: b.header(n.Output(), p), Object: n.Object, Ords: n.Ords, Mode: n.Mode, Bounded: bounded, TimeOrd: -1,
		Keep: n.Keep != 0}
	if wm := n.Object.Watermark; wm != nil {
		ts := n.Object.ColumnIndex(wm.Column)
		for i, o := range n.Ords {
			if o == ts {
				src.TimeOrd = i
			}
		}
	}
	src.Est.RowsPerSec = b.opts.Cost.SourceRate(n.Object, bounded)
	if d := n.Object.Dedup; d != nil && n.Object.Kind == catalog.Stream {
		return b.buildDedup(n, src, d)
	}
	if n.Object.Kind != catalog.Table || len(n.Object.PrimaryKey) == 0 {
		// A table without a key holds a multiset of rows: its log's
		// inserts and deletions are its changelog as they are.
		return src
	}
	// A table's log holds upserts; Upsert turns them into its changelog,
	// partitioned by the primary key.
	var keys []int
	for _, pk := range n.Object.PrimaryKey {
		for i, o := range n.Ords {
			if o == pk {
				keys = append(keys, i)
			}
		}
	}
	in := Node(src)
	if b.opts.Parallelism > 1 {
		in = b.exchange(src, Hash, keys, b.opts.Parallelism)
	}
	u := &Upsert{Header: b.header(n.Cols, in.Hdr().Parallelism, in), Keys: keys}
	rows := cost.DefaultDistinct
	u.Est = Estimate{RowsPerSec: src.Est.RowsPerSec, Stateful: true, StateBounded: false,
		StateRows: rows, StateBytes: rows * cost.RowWidth(u.Types())}
	return u
}

func (b *builder) buildCalc(input plan.Node, pred plan.Expr, items []plan.ProjItem, out plan.ColList) (Node, error) {
	in, err := b.build(input)
	if err != nil {
		return nil, err
	}
	inCols := ordinalsOf(input.Output())
	var filter plan.Expr
	var projs []plan.Expr
	if pred != nil {
		if filter, err = bind(pred, inCols); err != nil {
			return nil, err
		}
	}
	for _, it := range items {
		e, err := bind(it.Expr, inCols)
		if err != nil {
			return nil, err
		}
		projs = append(projs, e)
	}
	if src, ok := in.(*Source); ok {
		pushRanges(src, filter)
	}
	var d *cost.Decision
	in, d = b.chooseFusion(input, in, pred, items)
	c := &Calc{Header: b.header(out, in.Hdr().Parallelism, in), Filter: filter, Projs: projs}
	if d != nil {
		c.Decisions = append(c.Decisions, *d)
	}
	c.Est.RowsPerSec = in.Hdr().Est.RowsPerSec * b.opts.Cost.Selectivity(pred)
	return c, nil
}

func (b *builder) buildAgg(n *plan.Aggregate) (Node, error) {
	in, err := b.build(n.Input)
	if err != nil {
		return nil, err
	}
	inCols := n.Input.Output()
	keys := ordsOf(inCols, n.Group)
	// Input hashed on some of the keys already needs no shuffle for a
	// local phase to save (hashed.go), unless the session forces one.
	hashedOn, hashed := b.hashedWithin(in, keys)
	var two twoPhaseChoice
	if !hashed || b.opts.TwoPhase == "on" {
		two = b.chooseTwoPhase(n, in)
	}
	if two.twoPhase {
		return b.buildTwoPhaseAgg(n, in, keys, two.decision)
	}
	var p int
	var part []int
	if hashed {
		p, part = in.Hdr().Parallelism, hashedOn
		in = b.exchange(in, Forward, nil, p)
	} else if sunk, sp, ok := b.sinkExchange(in, keys); ok {
		in, p, part = sunk, b.opts.Parallelism, sp
	} else {
		in, p = b.partitioned(in, keys)
	}
	agg := &HashAgg{Header: b.header(n.Output(), p, in), GroupKeys: keys, PartKeys: part, AppendOnlyInput: n.Input.Props().AppendOnly, CloseKey: -1,
		Aggs: aggSpecs(inCols, n.Aggs)}
	shareDistinct(n, agg.Aggs)
	if two.decision != nil {
		agg.Decisions = append(agg.Decisions, *two.decision)
	}
	if n.WindowClose != 0 {
		agg.CloseKey, agg.CloseOffset, agg.EmitOnClose = n.Group.Find(n.WindowClose), n.WindowCloseOffset, n.EmitOnClose
	}
	retractable := false
	for _, a := range n.Aggs {
		if a.Distinct || a.Func == plan.AggMin || a.Func == plan.AggMax {
			retractable = true
		}
	}
	inProps := n.Input.Props()
	groups := b.stateGroups(n, inProps.Bounded)
	agg.Est = Estimate{
		RowsPerSec: in.Hdr().Est.RowsPerSec,
		Stateful:   true,
		StateRows:  groups,
		StateBytes: groups * (cost.RowWidth(agg.Types()) + 16),
		StateBounded: inProps.Bounded || inProps.RowsExpire || (len(keys) == 0 && (!retractable || inProps.AppendOnly)) ||
			// A window's state is freed when it closes only if nothing
			// can change it afterwards (exec/build.go).
			n.ClosesWindows(),
	}
	b.aggTTL(agg)
	return agg, nil
}

func (b *builder) buildSessionAgg(n *plan.SessionAggregate) (Node, error) {
	in, err := b.build(n.Input)
	if err != nil {
		return nil, err
	}
	inCols := n.Input.Output()
	keys := ordsOf(inCols, n.Keys)
	in, p := b.partitioned(in, keys)
	s := &SessionAgg{Header: b.header(n.Output(), p, in), Keys: keys, TimeCol: inCols.Find(n.TimeCol), Gap: n.Gap,
		EmitOnClose: n.EmitOnClose, Aggs: aggSpecs(inCols, n.Aggs)}
	inProps := n.Input.Props()
	groups := cost.GroupCount(len(keys), cost.DefaultSnapshotRows, inProps.Bounded)
	s.Est = Estimate{RowsPerSec: in.Hdr().Est.RowsPerSec, Stateful: true, StateRows: groups,
		StateBytes: groups * (cost.RowWidth(s.Types()) + 16), StateBounded: inProps.Bounded || inProps.Watermarked}
	return s, nil
}

func (b *builder) buildTopN(n *plan.TopN) (Node, error) {
	in, err := b.build(n.Input)
	if err != nil {
		return nil, err
	}
	inCols := n.Input.Output()
	t := &TopN{Limit: n.Limit, RowNumber: n.Out != 0, AppendOnlyInput: n.Input.Props().AppendOnly,
		Partition: ordsOf(inCols, n.Partition), Order: sortKeysOf(inCols, n.Order)}
	var p int
	if part, ok := b.hashedWithin(in, t.Partition); ok {
		p, t.PartKeys = in.Hdr().Parallelism, part
		in = b.exchange(in, Forward, nil, p)
	} else {
		in, p = b.partitioned(in, t.Partition)
	}
	t.Header = b.header(n.Output(), p, in)
	parts := cost.GroupCount(len(t.Partition), cost.DefaultSnapshotRows, n.Input.Props().Bounded)
	rows := parts * float64(min(n.Limit, 1000))
	if !t.AppendOnlyInput {
		rows = parts * cost.DefaultDistinct // every row of a partition is kept for when the top ones retract
	}
	t.Est = Estimate{RowsPerSec: in.Hdr().Est.RowsPerSec, Stateful: true, StateRows: rows,
		StateBytes: rows * cost.RowWidth(t.Types()), StateBounded: n.Input.Props().Bounded || n.Input.Props().RowsExpire || (t.AppendOnlyInput && len(t.Partition) == 0)}
	return t, nil
}

func (b *builder) buildUnion(n *plan.Union) (Node, error) {
	u := &Union{}
	rate := 0.0
	var ins []Node
	for k, input := range n.Ins {
		in, err := b.build(input)
		if err != nil {
			return nil, err
		}
		// Each input feeds the union's stage through its own exchange; a
		// projection puts the input's columns in the union's order.
		if cols := input.Output(); !slices.Equal(cols, n.InCols[k]) {
			c := &Calc{Header: b.header(n.InCols[k], in.Hdr().Parallelism, in)}
			for _, id := range n.InCols[k] {
				col := b.md.Column(id)
				c.Projs = append(c.Projs, &plan.InputRef{Ord: cols.Find(id), Name: col.Name, Typ: col.Type, Null: col.Nullable})
			}
			c.Est.RowsPerSec = in.Hdr().Est.RowsPerSec
			in = c
		}
		rate += in.Hdr().Est.RowsPerSec
		ins = append(ins, b.exchange(in, Single, nil, 1))
	}
	u.Header = b.header(n.Cols, 1, ins...)
	u.Est.RowsPerSec = rate
	return u, nil
}

// partitioned sends in to the instances of a keyed operator: hash-
// partitioned on keys over the configured parallelism or, without keys
// (one group, one partition), gathered into a single instance. It returns
// the exchange and the operator's parallelism.
func (b *builder) partitioned(in Node, keys []int) (Node, int) {
	if len(keys) == 0 {
		return b.exchange(in, Single, nil, 1), 1
	}
	return b.exchange(in, Hash, keys, b.opts.Parallelism), b.opts.Parallelism
}

// ordsOf returns the positions of ids in cols, an input's columns.
func ordsOf(cols, ids plan.ColList) []int {
	var out []int
	for _, id := range ids {
		out = append(out, cols.Find(id))
	}
	return out
}

// sortKeysOf binds sort keys to positions in cols, an input's columns.
func sortKeysOf(cols plan.ColList, keys []plan.SortKey) []SortKey {
	var out []SortKey
	for _, k := range keys {
		out = append(out, SortKey{Ord: cols.Find(k.Col), Desc: k.Desc})
	}
	return out
}

// aggSpecs binds aggregate calls to positions in cols, their input's
// columns.
func aggSpecs(cols plan.ColList, aggs []plan.AggCall) []AggSpec {
	var out []AggSpec
	for _, a := range aggs {
		spec := AggSpec{Func: a.Func, Distinct: a.Distinct, Arg: -1, ArgType: a.ArgTyp, Type: a.Typ, Text: a.String()}
		if a.Arg != 0 {
			spec.Arg = cols.Find(a.Arg)
		}
		out = append(out, spec)
	}
	return out
}

// bindRefs binds a reference to each column of out over cols, an input's
// columns; a column given an expression in given takes that instead.
func (b *builder) bindRefs(out, cols plan.ColList, given map[plan.ColumnID]plan.Expr) ([]plan.Expr, error) {
	ords := ordinalsOf(cols)
	var projs []plan.Expr
	for _, id := range out {
		if e, ok := given[id]; ok {
			projs = append(projs, e)
			continue
		}
		e, err := bind(b.md.Ref(id), ords)
		if err != nil {
			return nil, err
		}
		projs = append(projs, e)
	}
	return projs, nil
}
