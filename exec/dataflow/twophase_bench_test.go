package dataflow

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/agg"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/planner/plan"
)

// The Zipf law of the keys: zipfKeys keys, exponent zipfS (the hottest
// key has about a quarter of the rows, the ten hottest about two thirds).
const (
	zipfKeys = 1000
	zipfS    = 1.3
)

// zipfBatches builds n rows (k BIGINT, v BIGINT) whose keys follow the
// Zipf law, in batches of 4096.
func zipfBatches(alloc memory.Allocator, n int) []arrow.RecordBatch {
	rng := rand.New(rand.NewPCG(7, 8))
	z := rand.NewZipf(rng, zipfS, 1, zipfKeys-1)
	var out []arrow.RecordBatch
	for start := 0; start < n; start += 4096 {
		rows := make([][]types.Datum, 4096)
		for i := range rows {
			rows[i] = []types.Datum{types.IntDatum(int64(z.Uint64())), types.IntDatum(int64(i))}
		}
		out = append(out, types.BuildRecord(alloc, []string{"k", "v"}, []types.T{types.BigIntT, types.BigIntT}, rows))
	}
	return out
}

// BenchmarkTwoPhaseAgg aggregates 4M rows of Zipf-skewed keys — SELECT k,
// COUNT(*), SUM(v) GROUP BY k — at parallelism 2 (two source splits, two
// aggregate instances), in one phase (every row shuffled by key: the hot
// keys' instance does most of the work) and in two (a LocalAgg per source
// split, then the partials shuffled), in one run. Both jobs coalesce small
// exchanged batches, as eddy's views and blackhole sinks do. Run it as
//
//	go test ./exec/dataflow -run XXX -bench BenchmarkTwoPhaseAgg -count 5 -cpu 2
func BenchmarkTwoPhaseAgg(b *testing.B) {
	alloc := memory.NewGoAllocator()
	const rows = 4 << 20
	batches := zipfBatches(alloc, rows)
	defer func() {
		for _, r := range batches {
			r.Release()
		}
	}()
	in := []types.T{types.BigIntT, types.BigIntT}
	source := StageSpec{Parallelism: 2, Source: func(inst int) (exec.Source, error) {
		var mine []arrow.RecordBatch
		for k := inst; k < len(batches); k += 2 {
			mine = append(mine, batches[k])
		}
		return &batchSource{batches: mine}, nil
	}}
	end := StageSpec{Parallelism: 1, Inputs: []InputSpec{{From: 2, Dist: DistSingle}},
		Ops: []OpSpec{{Name: "end", New: func(int) (exec.Operator, error) { return &countSink{}, nil }}}}
	final := func(aggIn []types.T, aggs []accum.Spec) OpSpec {
		cfg := agg.HashConfig{Input: aggIn, GroupKeys: []int{0}, Aggs: aggs, Names: []string{"k", "n", "s"}, AppendOnly: true}
		return OpSpec{Name: "agg", New: func(int) (exec.Operator, error) { return agg.NewHashAgg(cfg), nil }}
	}
	graphs := map[string]GraphSpec{}
	// One phase: rows are shuffled by key to the aggregate.
	graphs["one-phase"] = GraphSpec{Stages: []StageSpec{
		source,
		{Parallelism: 2, Inputs: []InputSpec{{From: 0, Dist: DistHash, Keys: []int{0}}},
			Ops: []OpSpec{final(in, []accum.Spec{
				{Func: plan.AggCountStar, Arg: -1, Type: types.BigIntT},
				{Func: plan.AggSum, Arg: 1, ArgType: types.BigIntT, Type: types.BigIntT}})}},
		{Parallelism: 2, Inputs: []InputSpec{{From: 1, Dist: DistForward}},
			Ops: []OpSpec{{Name: "count", New: func(int) (exec.Operator, error) { return &countSink{}, nil }}}},
		end,
	}}
	// Two phases: a LocalAgg on each source split, partials shuffled.
	local := source
	local.Ops = []OpSpec{{Name: "local", New: func(int) (exec.Operator, error) {
		return agg.NewLocalAgg(agg.LocalConfig{Input: in, GroupKeys: []int{0}, Names: []string{"k", "pn", "ps"},
			Partials: []agg.PartialSpec{{Kind: agg.PartialCountStar, Arg: -1, Type: types.BigIntT}, {Kind: agg.PartialSum, Arg: 1, Type: types.BigIntT}}}), nil
	}}}
	partialTypes := []types.T{types.BigIntT, types.BigIntT, types.BigIntT}
	graphs["two-phase"] = GraphSpec{Stages: []StageSpec{
		local,
		{Parallelism: 2, Inputs: []InputSpec{{From: 0, Dist: DistHash, Keys: []int{0}}},
			Ops: []OpSpec{final(partialTypes, []accum.Spec{
				{Func: plan.AggSum, Arg: 1, ArgType: types.BigIntT, Type: types.BigIntT},
				{Func: plan.AggSum, Arg: 2, ArgType: types.BigIntT, Type: types.BigIntT}})}},
		{Parallelism: 2, Inputs: []InputSpec{{From: 1, Dist: DistForward}},
			Ops: []OpSpec{{Name: "count", New: func(int) (exec.Operator, error) { return &countSink{}, nil }}}},
		end,
	}}
	for _, name := range []string{"one-phase", "two-phase"} {
		g := graphs[name]
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				job, err := StartJob(context.Background(), g, JobOptions{Alloc: alloc, Coalesce: true})
				if err != nil {
					b.Fatal(err)
				}
				if err := job.Wait(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkAggCosts measures the per-row costs the two-phase choice
// weighs (cost.AggRow, cost.LocalAggRow) on one core: a HashAgg and a
// LocalAgg over 1M rows of 1,000 uniform keys.
//
//	go test ./exec/dataflow -run XXX -bench BenchmarkAggCosts -count 5 -cpu 1
func BenchmarkAggCosts(b *testing.B) {
	alloc := memory.NewGoAllocator()
	const n = 1 << 20
	rng := rand.New(rand.NewPCG(9, 10))
	var batches []arrow.RecordBatch
	for start := 0; start < n; start += 4096 {
		rows := make([][]types.Datum, 4096)
		for i := range rows {
			rows[i] = []types.Datum{types.IntDatum(rng.Int64N(1000)), types.IntDatum(int64(i))}
		}
		batches = append(batches, types.BuildRecord(alloc, []string{"k", "v"}, []types.T{types.BigIntT, types.BigIntT}, rows))
	}
	defer func() {
		for _, r := range batches {
			r.Release()
		}
	}()
	in := []types.T{types.BigIntT, types.BigIntT}
	ops := map[string]func() exec.Operator{
		"hashagg": func() exec.Operator {
			return agg.NewHashAgg(agg.HashConfig{Input: in, GroupKeys: []int{0}, Names: []string{"k", "n", "s"}, AppendOnly: true,
				Aggs: []accum.Spec{{Func: plan.AggCountStar, Arg: -1, Type: types.BigIntT},
					{Func: plan.AggSum, Arg: 1, ArgType: types.BigIntT, Type: types.BigIntT}}})
		},
		"localagg": func() exec.Operator {
			return agg.NewLocalAgg(agg.LocalConfig{Input: in, GroupKeys: []int{0}, Names: []string{"k", "pn", "ps"},
				Partials: []agg.PartialSpec{{Kind: agg.PartialCountStar, Arg: -1, Type: types.BigIntT}, {Kind: agg.PartialSum, Arg: 1, Type: types.BigIntT}}})
		},
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
