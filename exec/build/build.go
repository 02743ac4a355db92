package build

import (
	"context"
	"fmt"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/agg"
	"github.com/eddysql/eddy/exec/basic"
	"github.com/eddysql/eddy/exec/dataflow"
	"github.com/eddysql/eddy/exec/dedup"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/exec/internal/ordtree"
	"github.com/eddysql/eddy/exec/join"
	"github.com/eddysql/eddy/exec/over"
	"github.com/eddysql/eddy/exec/sessionwin"
	"github.com/eddysql/eddy/exec/setop"
	"github.com/eddysql/eddy/exec/tempfilter"
	"github.com/eddysql/eddy/exec/topn"
	"github.com/eddysql/eddy/exec/window"
	"github.com/eddysql/eddy/optimizer/physical"
	"github.com/eddysql/eddy/planner/plan"
)

// SourceFactory creates the source of a physical Source node for one
// instance. The engine provides it: it knows the storage logs, connectors
// and views the sources read.
type SourceFactory func(src *physical.Source, instance int) (exec.Source, error)

// Services are what the engine provides to turn a plan into a dataflow.
type Services struct {
	// Sources creates the sources.
	Sources SourceFactory
	// Watermarks returns the event-time handling of a source, or nil.
	Watermarks func(src *physical.Source) *dataflow.WatermarkSpec
}

// Graph cuts a physical plan into stages — a new stage starts at every
// source and every exchange; everything else fuses into its input's stage —
// and appends sink as the last operator of the root's stage.
//
// Every operator's state table, and every source's table of positions,
// is named by the operator's place in the plan (inputPath), which does not
// depend on the exchanges: a change of parallelism that adds or removes
// exchanges, and so renumbers the stages, keeps the names, and the
// checkpoint of one parallelism restores at another. The sink's table is
// "state/sink".
func Graph(root physical.Node, svc Services, sink dataflow.OpSpec) (dataflow.GraphSpec, error) {
	b := &graphBuilder{svc: svc}
	si, err := b.build(root, "r")
	if err != nil {
		return dataflow.GraphSpec{}, err
	}
	if si != len(b.g.Stages)-1 {
		return dataflow.GraphSpec{}, fmt.Errorf("exec: the root stage is not the last stage")
	}
	last := &b.g.Stages[si]
	sink.StateKey = "state/sink"
	last.Ops = append(last.Ops, sink)
	return b.g, nil
}

// inputPath returns the path of input k of the operator at path. An
// operator's path is its place in the plan: "r" for the root, and for the
// k-th input of the operator at path p, p + "." + k. An
// exchange has no place of its own (its input has the exchange's), so
// the path of every other operator is the same whatever exchanges the
// physical planner puts in at one parallelism or another. Its state
// table is "state/" + path, its source's positions "source/" + path.
func inputPath(path string, k int) string { return fmt.Sprintf("%s.%d", path, k) }

type graphBuilder struct {
	g   dataflow.GraphSpec
	svc Services
	// built are the stages of the exchanges' inputs built so far: a
	// sub-plan the query shares (physical.ShareSubplans) is the input of
	// several exchanges and runs as one stage, which each reads.
	built map[physical.Node]int
}

// buildInput returns the stage of in, the input of an exchange at path:
// the one built already when in is shared, else a new one. Its stage's
// chain ends with in, since an exchange starts a new stage above it.
func (b *graphBuilder) buildInput(in physical.Node, path string) (int, error) {
	if si, ok := b.built[in]; ok {
		return si, nil
	}
	si, err := b.build(in, path)
	if err != nil {
		return 0, err
	}
	if b.built == nil {
		b.built = map[physical.Node]int{}
	}
	b.built[in] = si
	return si, nil
}

// build returns the index of the stage whose chain ends with n, which is
// at path in the plan (inputPath).
func (b *graphBuilder) build(n physical.Node, path string) (int, error) {
	h := n.Hdr()
	switch n := n.(type) {
	case *physical.Source:
		st := dataflow.StageSpec{
			Parallelism: h.Parallelism, SourceName: physical.Line(n), SourceNodeID: h.ID, SourceKey: "source/" + path,
			Source: func(inst int) (exec.Source, error) { return b.svc.Sources(n, inst) },
			Keep:   n.Keep,
		}
		if b.svc.Watermarks != nil {
			st.Watermark = b.svc.Watermarks(n)
		}
		b.g.Stages = append(b.g.Stages, st)
		return len(b.g.Stages) - 1, nil
	case *physical.Values:
		names, ts, rows := h.Names(), h.Types(), n.Rows
		b.g.Stages = append(b.g.Stages, dataflow.StageSpec{
			Parallelism: 1, SourceName: physical.Line(n), SourceNodeID: h.ID, SourceKey: "source/" + path,
			Source: func(int) (exec.Source, error) { return &basic.ValuesSource{Names: names, Types: ts, Rows: rows}, nil },
		})
		return len(b.g.Stages) - 1, nil
	case *physical.Union:
		return b.buildMultiInput(n, path, func(int) (exec.Operator, error) { return unionOp{}, nil })
	case *physical.SetOp:
		kind := setop.Intersect
		switch {
		case n.Kind == plan.Intersect && n.All:
			kind = setop.IntersectAll
		case n.Kind == plan.Except && n.All:
			kind = setop.ExceptAll
		case n.Kind == plan.Except:
			kind = setop.Except
		}
		cfg := setop.Config{Kind: kind, Types: h.Types(), Names: h.Names()}
		return b.buildMultiInput(n, path, func(int) (exec.Operator, error) { return setop.New(cfg) })
	case *physical.HashJoin:
		cfg := join.Config{Kind: n.Kind, Left: h.Inputs[0].Hdr().Types(), Right: h.Inputs[1].Hdr().Types(),
			LeftKeys: n.LeftKeys, RightKeys: n.RightKeys, Residual: n.Residual, Names: h.Names(), Lookup: n.Lookup,
			Windowed: n.Windowed, LeftTime: n.LeftTime, RightTime: n.RightTime, Lo: n.Lo, Hi: n.Hi, LeftLag: n.LeftLag, RightLag: n.RightLag, StateTTL: n.StateTTL,
			Relayout: n.Adaptive, LeftAppendOnly: n.LeftAppendOnly}
		if ex, ok := h.Inputs[1].(*physical.Exchange); ok && ex.Dist == physical.Broadcast {
			cfg.Broadcast = true
		}
		stage, err := b.buildMultiInput(n, path, func(int) (exec.Operator, error) { return join.NewHashJoin(cfg), nil })
		if err == nil && n.Lookup {
			// The table side carries no event time.
			b.g.Stages[stage].Inputs[1].IgnoreWatermarks = true
		}
		if err == nil {
			b.g.Stages[stage].Ops[0].AnyDistribution = n.Adaptive
		}
		return stage, err
	case *physical.Exchange:
		up, err := b.buildInput(h.Inputs[0], path)
		if err != nil {
			return 0, err
		}
		b.g.Stages = append(b.g.Stages, dataflow.StageSpec{
			Parallelism: h.Parallelism,
			Inputs:      []dataflow.InputSpec{{From: up, Dist: distOf(n.Dist), Keys: n.Keys, NodeID: h.ID, Project: n.Project}},
		})
		return len(b.g.Stages) - 1, nil
	}
	if len(h.Inputs) != 1 {
		return 0, fmt.Errorf("exec: no runtime for %s", physical.Line(n))
	}
	si, err := b.build(h.Inputs[0], inputPath(path, 0))
	if err != nil {
		return 0, err
	}
	spec, err := b.opSpec(n)
	if err != nil {
		return 0, err
	}
	spec.NodeID, spec.StateKey = h.ID, "state/"+path
	if b.g.Stages[si].Parallelism != h.Parallelism {
		return 0, fmt.Errorf("exec: %s runs at parallelism %d but its input at %d without an exchange",
			physical.Line(n), h.Parallelism, b.g.Stages[si].Parallelism)
	}
	b.g.Stages[si].Ops = append(b.g.Stages[si].Ops, spec)
	return si, nil
}

func (b *graphBuilder) opSpec(n physical.Node) (dataflow.OpSpec, error) {
	h := n.Hdr()
	name := physical.Line(n)
	inTypes := h.Inputs[0].Hdr().Types()
	names, ts := h.Names(), h.Types()
	switch n := n.(type) {
	case *physical.Calc:
		return dataflow.OpSpec{Name: name, New: func(int) (exec.Operator, error) {
			return basic.NewCalc(inTypes, n.Filter, n.Projs, names), nil
		}}, nil
	case *physical.HashAgg:
		cfg := agg.HashConfig{Input: inTypes, GroupKeys: n.GroupKeys, PartKeys: n.PartKeys, Names: names, AppendOnly: n.AppendOnlyInput, StateTTL: n.StateTTL}
		// A window's state is freed when it closes if nothing can change
		// it afterwards: its rows are emitted then (EMIT ON WINDOW CLOSE),
		// or the input only inserts, so late rows are all it could see.
		if n.CloseKey >= 0 && (n.EmitOnClose || n.AppendOnlyInput) {
			cfg.Close = &agg.WindowClose{Key: n.CloseKey, Offset: n.CloseOffset, Emit: n.EmitOnClose}
		}
		for _, a := range n.Aggs {
			cfg.Aggs = append(cfg.Aggs, accum.Spec{Func: a.Func, Distinct: a.Distinct, Arg: a.Arg, ArgType: a.ArgType, Type: a.Type, Share: a.Share})
		}
		return dataflow.OpSpec{Name: name, New: func(int) (exec.Operator, error) { return agg.NewHashAgg(cfg), nil }}, nil
	case *physical.LocalAgg:
		cfg := agg.LocalConfig{Input: inTypes, GroupKeys: n.GroupKeys, Names: names}
		for _, p := range n.Partials {
			kind := map[plan.AggFunc]agg.PartialKind{plan.AggCountStar: agg.PartialCountStar, plan.AggCount: agg.PartialCount,
				plan.AggSum: agg.PartialSum, plan.AggMin: agg.PartialMin, plan.AggMax: agg.PartialMax}[p.Kind]
			cfg.Partials = append(cfg.Partials, agg.PartialSpec{Kind: kind, Arg: p.Arg, Type: p.Type})
		}
		return dataflow.OpSpec{Name: name, New: func(int) (exec.Operator, error) { return agg.NewLocalAgg(cfg), nil }}, nil
	case *physical.WindowAssign:
		kind := map[plan.WindowKind]window.Kind{plan.Tumble: window.Tumble, plan.Hop: window.Hop, plan.Cumulate: window.Cumulate}[n.Kind]
		cfg := window.AssignConfig{Input: inTypes, TimeCol: n.TimeCol, Kind: kind, Size: n.Size, Slide: n.Slide, Names: names}
		return dataflow.OpSpec{Name: name, New: func(int) (exec.Operator, error) { return window.NewAssign(cfg), nil }}, nil
	case *physical.SessionAgg:
		cfg := sessionwin.Config{Input: inTypes, GroupKeys: n.Keys, TimeCol: n.TimeCol, Gap: n.Gap, Names: names, EmitOnClose: n.EmitOnClose}
		for _, a := range n.Aggs {
			cfg.Aggs = append(cfg.Aggs, accum.Spec{Func: a.Func, Distinct: a.Distinct, Arg: a.Arg, ArgType: a.ArgType, Type: a.Type})
		}
		return dataflow.OpSpec{Name: name, New: func(int) (exec.Operator, error) { return sessionwin.NewAgg(cfg) }}, nil
	case *physical.TopN:
		cfg := topn.Config{Input: inTypes, Partition: n.Partition, PartKeys: n.PartKeys, Limit: n.Limit, RowNumber: n.RowNumber,
			AppendOnly: n.AppendOnlyInput, Names: names}
		for _, k := range n.Order {
			cfg.Order = append(cfg.Order, ordtree.SortKey{Col: k.Ord, Desc: k.Desc})
		}
		return dataflow.OpSpec{Name: name, New: func(int) (exec.Operator, error) { return topn.New(cfg) }}, nil
	case *physical.OverAgg:
		cfg := over.Config{Input: inTypes, Partition: n.Partition, Frame: n.Frame, Names: names}
		for _, k := range n.Order {
			cfg.Order = append(cfg.Order, ordtree.SortKey{Col: k.Ord, Desc: k.Desc})
		}
		for _, a := range n.Aggs {
			cfg.Aggs = append(cfg.Aggs, accum.Spec{Func: a.Func, Arg: a.Arg, ArgType: a.ArgType, Type: a.Type})
		}
		for _, f := range n.Funcs {
			cfg.Funcs = append(cfg.Funcs, over.Func{Kind: f.Kind, Arg: f.Arg, N: f.N, Default: f.Default, Type: f.Type})
		}
		return dataflow.OpSpec{Name: name, New: func(int) (exec.Operator, error) { return over.New(cfg) }}, nil
	case *physical.Dedup:
		cfg := dedup.Config{Input: inTypes, Keys: n.Keys, WindowMs: n.WindowMs, FPR: n.FPR, TimeCol: n.TimeCol}
		return dataflow.OpSpec{Name: name, New: func(int) (exec.Operator, error) { return dedup.New(cfg) }}, nil
	case *physical.TemporalFilter:
		cfg := tempfilter.Config{Input: inTypes, Names: names, TimeCol: n.TimeCol, Inclusive: n.Inclusive,
			Delay: n.Delay, Offset: n.Offset, NowUnit: n.NowUnit}
		return dataflow.OpSpec{Name: name, New: func(int) (exec.Operator, error) { return tempfilter.New(cfg) }}, nil
	case *physical.Upsert:
		return dataflow.OpSpec{Name: name, New: func(int) (exec.Operator, error) {
			return &basic.Upsert{Names: names, Types: ts, Keys: n.Keys}, nil
		}}, nil
	case *physical.Sort:
		keys := make([]ordtree.SortKey, len(n.Keys))
		for i, k := range n.Keys {
			keys[i] = ordtree.SortKey{Col: k.Ord, Desc: k.Desc}
		}
		return dataflow.OpSpec{Name: name, New: func(int) (exec.Operator, error) {
			return &basic.Sort{Names: names, Types: ts, Keys: keys}, nil
		}}, nil
	case *physical.Limit:
		_, sorted := h.Inputs[0].(*physical.Sort)
		return dataflow.OpSpec{Name: name, New: func(int) (exec.Operator, error) {
			return &basic.Limit{Names: names, Types: ts, Count: n.Count, Offset: n.Offset, AppendOnly: sorted || n.AppendOnlyInput}, nil
		}}, nil
	}
	return dataflow.OpSpec{}, fmt.Errorf("exec: no runtime for %s", name)
}

// distOf maps a physical distribution to the runtime's.
func distOf(d physical.DistKind) dataflow.Distribution {
	return map[physical.DistKind]dataflow.Distribution{physical.Forward: dataflow.DistForward, physical.Hash: dataflow.DistHash,
		physical.Broadcast: dataflow.DistBroadcast, physical.Single: dataflow.DistSingle, physical.RoundRobin: dataflow.DistRoundRobin}[d]
}

// buildMultiInput builds the stage of an operator with several inputs,
// each behind an exchange: input k of the operator reads the k-th.
func (b *graphBuilder) buildMultiInput(n physical.Node, path string, newOp func(int) (exec.Operator, error)) (int, error) {
	h := n.Hdr()
	st := dataflow.StageSpec{Parallelism: h.Parallelism}
	for k, in := range h.Inputs {
		ex, ok := in.(*physical.Exchange)
		if !ok {
			return 0, fmt.Errorf("exec: input %d of %s is not an exchange", k, physical.Line(n))
		}
		up, err := b.buildInput(ex.Hdr().Inputs[0], inputPath(path, k))
		if err != nil {
			return 0, err
		}
		st.Inputs = append(st.Inputs, dataflow.InputSpec{From: up, Dist: distOf(ex.Dist), Keys: ex.Keys, Input: k, NodeID: ex.ID, Project: ex.Project})
	}
	st.Ops = []dataflow.OpSpec{{Name: physical.Line(n), NodeID: h.ID, StateKey: "state/" + path, New: newOp}}
	b.g.Stages = append(b.g.Stages, st)
	return len(b.g.Stages) - 1, nil
}

// unionOp passes every input's chunks through: the union of changelogs is
// their concatenation.
type unionOp struct{}

func (unionOp) Open(context.Context, *exec.Env) error { return nil }
func (unionOp) Process(ctx context.Context, in int, c exec.Chunk, out exec.Emitter) error {
	return out.Emit(ctx, c)
}
func (unionOp) OnControl(context.Context, exec.Control, exec.Emitter) error { return nil }

// KeepsNoState implements exec.Stateless.
func (unionOp) KeepsNoState() {}
func (unionOp) Close() error  { return nil }
