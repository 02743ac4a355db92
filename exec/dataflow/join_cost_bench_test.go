package dataflow

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/join"
	"github.com/eddysql/eddy/planner/plan"
)

// joinCostRows builds n rows (k BIGINT, v VARCHAR) with distinct keys, in
// batches of 4096.
func joinCostRows(alloc memory.Allocator, n int) []arrow.RecordBatch {
	var out []arrow.RecordBatch
	for start := 0; start < n; start += 4096 {
		m := min(4096, n-start)
		rows := make([][]types.Datum, m)
		for i := range rows {
			rows[i] = []types.Datum{types.IntDatum(int64(start + i)), types.StringDatum(fmt.Sprintf("name-%d", start+i))}
		}
		out = append(out, types.BuildRecord(alloc, []string{"k", "v"}, []types.T{types.BigIntT, types.VarcharT}, rows))
	}
	return out
}

// BenchmarkJoinCosts measures the per-row costs the join distribution
// choice weighs (physical.shuffleWeight and the others), at -cpu 1:
//
//   - insert: a row of a join side inserted into the join's state;
//   - forward, hash, broadcast: a row crossing a stage boundary to a
//     consumer of parallelism 2 by each distribution (broadcast: per
//     replica), over a counting sink.
//
// Run it as
//
//	go test ./exec/dataflow -run XXX -bench BenchmarkJoinCosts -count 5 -cpu 1
func BenchmarkJoinCosts(b *testing.B) {
	alloc := memory.NewGoAllocator()
	const n = 1 << 20
	batches := joinCostRows(alloc, n)
	defer func() {
		for _, r := range batches {
			r.Release()
		}
	}()
	ts := []types.T{types.BigIntT, types.VarcharT}
	// The cost of an insert grows with the state it goes into (a small
	// state stays in cache): sides of 16K to 1M rows.
	for _, size := range []int{16 << 10, 64 << 10, 256 << 10, n} {
		name := "insert"
		if size != n {
			name = fmt.Sprintf("insert/%dK", size>>10)
		}
		b.Run(name, func(b *testing.B) {
			side := batches[:size/4096]
			for i := 0; i < b.N; i++ {
				j := join.NewHashJoin(join.Config{Kind: plan.InnerJoin, Left: ts, Right: ts, LeftKeys: []int{0}, RightKeys: []int{0},
					Names: []string{"a", "b", "c", "d"}})
				if err := j.Open(context.Background(), &exec.Env{Alloc: alloc, Metrics: &exec.OperatorMetrics{}}); err != nil {
					b.Fatal(err)
				}
				for _, r := range side {
					if err := j.Process(context.Background(), 1, exec.Chunk{Batch: r}, exec.EmitterFunc(func(context.Context, exec.Chunk) error { return nil })); err != nil {
						b.Fatal(err)
					}
				}
				j.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(size), "ns/row")
		})
	}
	for _, dist := range []Distribution{DistForward, DistHash, DistBroadcast} {
		name := map[Distribution]string{DistForward: "forward", DistHash: "hash", DistBroadcast: "broadcast"}[dist]
		b.Run(name, func(b *testing.B) {
			srcPar := 2
			if dist == DistBroadcast {
				srcPar = 1
			}
			for i := 0; i < b.N; i++ {
				sinks := make([]countSink, 2)
				g := GraphSpec{Stages: []StageSpec{
					{Parallelism: srcPar, Source: func(inst int) (exec.Source, error) {
						var mine []arrow.RecordBatch
						for k := inst; k < len(batches); k += srcPar {
							mine = append(mine, batches[k])
						}
						return &batchSource{batches: mine}, nil
					}},
					{Parallelism: 2, Inputs: []InputSpec{{From: 0, Dist: dist, Keys: []int{0}}},
						Ops: []OpSpec{{Name: "count", New: func(inst int) (exec.Operator, error) { return &sinks[inst], nil }}}},
					{Parallelism: 1, Inputs: []InputSpec{{From: 1, Dist: DistSingle}},
						Ops: []OpSpec{{Name: "end", New: func(int) (exec.Operator, error) { return &countSink{}, nil }}}},
				}}
				job, err := StartJob(context.Background(), g, JobOptions{Alloc: alloc})
				if err != nil {
					b.Fatal(err)
				}
				if err := job.Wait(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			rows := float64(n)
			if dist == DistBroadcast {
				rows *= 2 // per replica
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
		})
	}
}
