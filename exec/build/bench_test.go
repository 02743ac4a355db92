package build

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/dataflow"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/planner/plan"
)

// The benchmarks of this package run dataflows of real operators: they
// measure what the optimizer's choices weigh (fusion, the join
// distribution, two-phase aggregation), where plans and operators meet.

// benchBatches builds n rows of the columns names (of types ts) in
// batches of 4096, row(i) giving row i (called in order), and releases
// them when b ends.
func benchBatches(b *testing.B, alloc memory.Allocator, n int, names []string, ts []types.T, row func(i int) []types.Datum) []arrow.RecordBatch {
	var out []arrow.RecordBatch
	for start := 0; start < n; start += 4096 {
		rows := make([][]types.Datum, min(4096, n-start))
		for i := range rows {
			rows[i] = row(start + i)
		}
		out = append(out, types.BuildRecord(alloc, names, ts, rows))
	}
	b.Cleanup(func() {
		for _, r := range out {
			r.Release()
		}
	})
	return out
}

// splitSource returns a source stage of parallelism par whose instance i
// replays batches i, i+par, i+2·par, ...
func splitSource(batches []arrow.RecordBatch, par int) dataflow.StageSpec {
	return dataflow.StageSpec{Parallelism: par, Source: func(inst int) (exec.Source, error) {
		var mine []arrow.RecordBatch
		for k := inst; k < len(batches); k += par {
			mine = append(mine, batches[k])
		}
		return &exectest.Replay{Batches: mine}, nil
	}}
}

// endStage is the single-instance stage a job must end with, reading
// stage from; it counts what it receives (the counting sinks before it
// emit nothing, so it receives only control records).
func endStage(from int) dataflow.StageSpec {
	return dataflow.StageSpec{Parallelism: 1, Inputs: []dataflow.InputSpec{{From: from, Dist: dataflow.DistSingle}},
		Ops: []dataflow.OpSpec{counters("end", nil)}}
}

// counters returns an operator spec whose instance i is the counter
// sinks[i], or a fresh counter when sinks is nil.
func counters(name string, sinks []exectest.Counter) dataflow.OpSpec {
	return dataflow.OpSpec{Name: name, New: func(i int) (exec.Operator, error) {
		if sinks == nil {
			return &exectest.Counter{}, nil
		}
		return &sinks[i], nil
	}}
}

// runBench runs the job g to its end, failing b on an error.
func runBench(b *testing.B, g dataflow.GraphSpec, opts dataflow.JobOptions) {
	job, err := dataflow.StartJob(context.Background(), g, opts)
	if err != nil {
		b.Fatal(err)
	}
	if err := job.Wait(context.Background()); err != nil {
		b.Fatal(err)
	}
}

// benchCol and benchInt build the column references and constants of the
// benchmarks' expressions.
func benchCol(ord int) *plan.InputRef {
	return &plan.InputRef{Ord: ord, Typ: types.BigIntT, Null: true}
}
func benchInt(v int64) *plan.Const { return &plan.Const{Val: types.IntDatum(v), Typ: types.BigIntT} }
