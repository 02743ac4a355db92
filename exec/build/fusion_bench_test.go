package build

import (
	"runtime"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/basic"
	"github.com/eddysql/eddy/exec/dataflow"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/planner/plan"
)

type chainStep struct {
	filter plan.Expr
	projs  []plan.Expr
}

// arithSteps are five stateless steps over (a BIGINT, b BIGINT) doing
// arithmetic: each keeps the two columns and rewrites one; the third
// filters. mergedArith is the one Calc MergeCalcs composes of them.
func arithSteps() (steps []chainStep, merged chainStep) {
	bin := func(l, r plan.Expr, op plan.BinOp) plan.Expr {
		return &plan.Binary{Op: op, L: l, R: r, Typ: types.BigIntT}
	}
	a, b := benchCol(0), benchCol(1)
	steps = []chainStep{
		{nil, []plan.Expr{bin(a, benchInt(1), plan.OpAdd), b}},
		{nil, []plan.Expr{a, bin(b, benchInt(3), plan.OpMul)}},
		{&plan.Binary{Op: plan.OpNe, L: bin(a, benchInt(7), plan.OpMod), R: benchInt(0), Typ: types.BoolT}, []plan.Expr{a, b}},
		{nil, []plan.Expr{bin(a, b, plan.OpAdd), b}},
		{nil, []plan.Expr{a, bin(b, a, plan.OpSub)}},
	}
	// a = (a+1)+(b*3); b = (b*3) - ((a+1)+(b*3)), where (a+1) % 7 != 0.
	a1, b3 := bin(a, benchInt(1), plan.OpAdd), bin(b, benchInt(3), plan.OpMul)
	sum := bin(a1, b3, plan.OpAdd)
	merged = chainStep{&plan.Binary{Op: plan.OpNe, L: bin(a1, benchInt(7), plan.OpMod), R: benchInt(0), Typ: types.BoolT},
		[]plan.Expr{sum, bin(b3, sum, plan.OpSub)}}
	return steps, merged
}

// lightSteps are five cheap stateless steps, as pipelines are often made
// of: filters that keep almost every row and projections that rename or
// reorder columns (no copies). Merged they are one filter.
func lightSteps() (steps []chainStep, merged chainStep) {
	a, b := benchCol(0), benchCol(1)
	ge := func(c *plan.InputRef, v int64) plan.Expr {
		return &plan.Binary{Op: plan.OpGe, L: c, R: benchInt(v), Typ: types.BoolT}
	}
	steps = []chainStep{
		{ge(b, 0), []plan.Expr{a, b}},
		{nil, []plan.Expr{a, b}},
		{ge(a, 1), []plan.Expr{a, b}},
		{nil, []plan.Expr{a, b}},
		{ge(b, 1), []plan.Expr{a, b}},
	}
	merged = chainStep{&plan.And{Args: []plan.Expr{ge(b, 0), ge(a, 1), ge(b, 1)}}, []plan.Expr{a, b}}
	return steps, merged
}

// BenchmarkFusion runs the same five-step stateless chain over 4M rows
// three ways, measured in one run:
//
//   - merged: what eddy runs — the optimizer's MergeCalcs composes the
//     five steps into one Calc, whose expr.Program computes the
//     subexpressions the composition repeats once (one pass per batch, no
//     intermediate columns);
//   - chained: five Calcs in one stage (one goroutine, operators calling
//     each other, each step materializing its columns);
//   - unfused: five Calcs in five stages connected by forward exchanges
//     (a goroutine each, batches through bounded channels).
//
// for two chains: light steps (near-total filters and column renames, where
// the per-batch cost of a stage boundary dominates) and arithmetic steps
// (where computing dominates). Each stage runs at GOMAXPROCS instances, so
// -cpu 2 runs the chain at parallelism 2. Run it as
//
//	go test ./exec/build -run XXX -bench BenchmarkFusion -count 5 -cpu 1,2
func BenchmarkFusion(b *testing.B) {
	alloc := memory.NewGoAllocator()
	par := runtime.GOMAXPROCS(0)
	const rows = 4 << 20
	in := []types.T{types.BigIntT, types.BigIntT}
	names := []string{"a", "b"}
	batches := benchBatches(b, alloc, rows, names, in, func(i int) []types.Datum {
		return []types.Datum{types.IntDatum(int64(i)), types.IntDatum(int64(i % 4096))}
	})
	calc := func(s chainStep) dataflow.OpSpec {
		return dataflow.OpSpec{Name: "calc", New: func(int) (exec.Operator, error) { return basic.NewCalc(in, s.filter, s.projs, names), nil }}
	}
	graph := func(steps []chainStep, merged chainStep, variant string, sink []exectest.Counter) dataflow.GraphSpec {
		src := splitSource(batches, par)
		sinkOp := counters("sink", sink)
		switch variant {
		case "merged":
			src.Ops = []dataflow.OpSpec{calc(merged), sinkOp}
			return dataflow.GraphSpec{Stages: []dataflow.StageSpec{src, endStage(0)}}
		case "chained":
			for _, s := range steps {
				src.Ops = append(src.Ops, calc(s))
			}
			src.Ops = append(src.Ops, sinkOp)
			return dataflow.GraphSpec{Stages: []dataflow.StageSpec{src, endStage(0)}}
		}
		g := dataflow.GraphSpec{Stages: []dataflow.StageSpec{src}}
		for i, s := range steps {
			g.Stages = append(g.Stages, dataflow.StageSpec{Parallelism: par, Inputs: []dataflow.InputSpec{{From: i, Dist: dataflow.DistForward}},
				Ops: []dataflow.OpSpec{calc(s)}})
		}
		last := &g.Stages[len(g.Stages)-1]
		last.Ops = append(last.Ops, sinkOp)
		g.Stages = append(g.Stages, endStage(len(g.Stages)-1))
		return g
	}
	for _, chain := range []struct {
		name string
		make func() ([]chainStep, chainStep)
	}{{"light", lightSteps}, {"arith", arithSteps}} {
		steps, merged := chain.make()
		for _, variant := range []string{"merged", "chained", "unfused"} {
			b.Run(chain.name+"/"+variant, func(b *testing.B) {
				var kept int64
				for i := 0; i < b.N; i++ {
					sink := make([]exectest.Counter, par)
					runBench(b, graph(steps, merged, variant, sink), dataflow.JobOptions{Alloc: alloc})
					kept = 0
					for i := range sink {
						kept += sink[i].Rows()
					}
				}
				b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
				if kept == 0 || kept == rows {
					b.Fatalf("the filters kept %d of %d rows", kept, rows)
				}
			})
		}
	}
}
