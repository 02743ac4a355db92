package build

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/agg"
	"github.com/eddysql/eddy/exec/dataflow"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/planner/plan"
)

// The Zipf law of the keys: zipfKeys keys, exponent zipfS (the hottest
// key has about a quarter of the rows, the ten hottest about two thirds).
const (
	zipfKeys = 1000
	zipfS    = 1.3
)

// The aggregate of the benchmarks below, SELECT k, COUNT(*), SUM(v)
// GROUP BY k over (k BIGINT, v BIGINT): oneAgg computes it in one phase;
// localAgg is the first of two phases and finalAgg, summing localAgg's
// partials, the second.
var (
	aggInput = []types.T{types.BigIntT, types.BigIntT}
	oneAgg   = agg.HashConfig{Input: aggInput, GroupKeys: []int{0}, Names: []string{"k", "n", "s"}, AppendOnly: true,
		Aggs: []accum.Spec{{Func: plan.AggCountStar, Arg: -1, Type: types.BigIntT},
			{Func: plan.AggSum, Arg: 1, ArgType: types.BigIntT, Type: types.BigIntT}}}
	localAgg = agg.LocalConfig{Input: aggInput, GroupKeys: []int{0}, Names: []string{"k", "pn", "ps"},
		Partials: []agg.PartialSpec{{Kind: agg.PartialCountStar, Arg: -1, Type: types.BigIntT}, {Kind: agg.PartialSum, Arg: 1, Type: types.BigIntT}}}
	finalAgg = agg.HashConfig{Input: []types.T{types.BigIntT, types.BigIntT, types.BigIntT}, GroupKeys: []int{0},
		Names: []string{"k", "n", "s"}, AppendOnly: true,
		Aggs: []accum.Spec{{Func: plan.AggSum, Arg: 1, ArgType: types.BigIntT, Type: types.BigIntT},
			{Func: plan.AggSum, Arg: 2, ArgType: types.BigIntT, Type: types.BigIntT}}}
)

// BenchmarkTwoPhaseAgg aggregates 4M rows of Zipf-skewed keys — SELECT k,
// COUNT(*), SUM(v) GROUP BY k — at parallelism 2 (two source splits, two
// aggregate instances), in one phase (every row shuffled by key: the hot
// keys' instance does most of the work) and in two (a LocalAgg per source
// split, then the partials shuffled), in one run. Both jobs coalesce small
// exchanged batches, as eddy's views and blackhole sinks do. Run it as
//
//	go test ./exec/build -run XXX -bench BenchmarkTwoPhaseAgg -count 5 -cpu 2
func BenchmarkTwoPhaseAgg(b *testing.B) {
	alloc := memory.NewGoAllocator()
	const rows = 4 << 20
	// rows (k BIGINT, v BIGINT) whose keys follow the Zipf law.
	z := rand.NewZipf(rand.New(rand.NewPCG(7, 8)), zipfS, 1, zipfKeys-1)
	batches := benchBatches(b, alloc, rows, []string{"k", "v"}, aggInput, func(i int) []types.Datum {
		return []types.Datum{types.IntDatum(int64(z.Uint64())), types.IntDatum(int64(i % 4096))}
	})
	// graph shuffles the rows of source by key to the aggregate cfg.
	graph := func(source dataflow.StageSpec, cfg agg.HashConfig) dataflow.GraphSpec {
		return dataflow.GraphSpec{Stages: []dataflow.StageSpec{
			source,
			{Parallelism: 2, Inputs: []dataflow.InputSpec{{From: 0, Dist: dataflow.DistHash, Keys: []int{0}}},
				Ops: []dataflow.OpSpec{{Name: "agg", New: func(int) (exec.Operator, error) { return agg.NewHashAgg(cfg), nil }}}},
			{Parallelism: 2, Inputs: []dataflow.InputSpec{{From: 1, Dist: dataflow.DistForward}},
				Ops: []dataflow.OpSpec{counters("count", nil)}},
			endStage(2),
		}}
	}
	// Two phases: a LocalAgg on each source split, partials shuffled.
	local := splitSource(batches, 2)
	local.Ops = []dataflow.OpSpec{{Name: "local", New: func(int) (exec.Operator, error) { return agg.NewLocalAgg(localAgg), nil }}}
	graphs := map[string]dataflow.GraphSpec{
		"one-phase": graph(splitSource(batches, 2), oneAgg),
		"two-phase": graph(local, finalAgg),
	}
	for _, name := range []string{"one-phase", "two-phase"} {
		g := graphs[name]
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				runBench(b, g, dataflow.JobOptions{Alloc: alloc, Coalesce: true})
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkAggCosts measures the per-row costs the two-phase choice
// weighs (cost.AggRow, cost.LocalAggRow) on one core: a HashAgg and a
// LocalAgg over 1M rows of 1,000 uniform keys.
//
//	go test ./exec/build -run XXX -bench BenchmarkAggCosts -count 5 -cpu 1
func BenchmarkAggCosts(b *testing.B) {
	alloc := memory.NewGoAllocator()
	const n = 1 << 20
	rng := rand.New(rand.NewPCG(9, 10))
	batches := benchBatches(b, alloc, n, []string{"k", "v"}, aggInput, func(i int) []types.Datum {
		return []types.Datum{types.IntDatum(rng.Int64N(1000)), types.IntDatum(int64(i % 4096))}
	})
	ops := map[string]func() exec.Operator{
		"hashagg":  func() exec.Operator { return agg.NewHashAgg(oneAgg) },
		"localagg": func() exec.Operator { return agg.NewLocalAgg(localAgg) },
	}
	for _, name := range []string{"hashagg", "localagg"} {
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				op := ops[name]()
				if err := op.Open(context.Background(), &exec.Env{Alloc: alloc, Metrics: &exec.OperatorMetrics{}}); err != nil {
					b.Fatal(err)
				}
				sink := exec.EmitterFunc(func(context.Context, exec.Chunk) error { return nil })
				for _, r := range batches {
					if err := op.Process(context.Background(), 0, exec.Chunk{Batch: r}, sink); err != nil {
						b.Fatal(err)
					}
				}
				op.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/row")
		})
	}
}
