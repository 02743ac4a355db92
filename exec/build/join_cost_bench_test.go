package build

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/dataflow"
	"github.com/eddysql/eddy/exec/join"
	"github.com/eddysql/eddy/planner/plan"
)

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
//	go test ./exec/build -run XXX -bench BenchmarkJoinCosts -count 5 -cpu 1
func BenchmarkJoinCosts(b *testing.B) {
	alloc := memory.NewGoAllocator()
	const n = 1 << 20
	ts := []types.T{types.BigIntT, types.VarcharT}
	// n rows (k BIGINT, v VARCHAR) with distinct keys.
	batches := benchBatches(b, alloc, n, []string{"k", "v"}, ts, func(i int) []types.Datum {
		return []types.Datum{types.IntDatum(int64(i)), types.StringDatum(fmt.Sprintf("name-%d", i))}
	})
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
	for _, dist := range []dataflow.Distribution{dataflow.DistForward, dataflow.DistHash, dataflow.DistBroadcast} {
		name := map[dataflow.Distribution]string{dataflow.DistForward: "forward", dataflow.DistHash: "hash", dataflow.DistBroadcast: "broadcast"}[dist]
		b.Run(name, func(b *testing.B) {
			srcPar := 2
			if dist == dataflow.DistBroadcast {
				srcPar = 1
			}
			for i := 0; i < b.N; i++ {
				g := dataflow.GraphSpec{Stages: []dataflow.StageSpec{
					splitSource(batches, srcPar),
					{Parallelism: 2, Inputs: []dataflow.InputSpec{{From: 0, Dist: dist, Keys: []int{0}}},
						Ops: []dataflow.OpSpec{counters("count", nil)}},
					endStage(1),
				}}
				runBench(b, g, dataflow.JobOptions{Alloc: alloc})
			}
			rows := float64(n)
			if dist == dataflow.DistBroadcast {
				rows *= 2 // per replica
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
		})
	}
}
