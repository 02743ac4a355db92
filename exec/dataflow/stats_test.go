package dataflow

import (
	"reflect"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// TestInstanceStats: a finished job's figures per instance list every
// instance of every operator, in the order of Stats, and sum to what
// Stats reports; the hash exchange spread the rows over the instances.
func TestInstanceStats(t *testing.T) {
	alloc := exectest.Alloc(t)
	job := runJob(t, exchanged(intReplay(t, alloc, 0, 10000, 1), DistHash, 3, only("pass", &passthrough{}), &recorder{}), JobOptions{Alloc: alloc})
	per := job.InstanceStats()
	sums := job.Stats()
	if len(per) != len(sums) || len(per) != 3 {
		t.Fatalf("%d operators per instance, %d summed; want 3 (source, pass, sink)", len(per), len(sums))
	}
	for k, insts := range per {
		for _, in := range insts {
			if in.Instances != 1 || in.Name != sums[k].Name || in.Source != sums[k].Source {
				t.Errorf("operator %d: instance %+v of %q", k, in, sums[k].Name)
			}
		}
		if got := SumStats(insts); !reflect.DeepEqual(got, sums[k]) {
			t.Errorf("operator %d: instances sum to %+v, Stats says %+v", k, got, sums[k])
		}
	}
	pass := per[1]
	if len(pass) != 3 {
		t.Fatalf("pass has %d instances, want 3", len(pass))
	}
	var in int64
	for i, s := range pass {
		if s.RowsIn == 0 {
			t.Errorf("instance %d of pass got no rows", i)
		}
		if s.Wall <= 0 || s.Busy+s.Idle+s.Backpressure > s.Wall+time.Millisecond {
			t.Errorf("instance %d: busy %v + idle %v + backpressure %v over wall %v", i, s.Busy, s.Idle, s.Backpressure, s.Wall)
		}
		in += s.RowsIn
	}
	if in != 10000 || sums[1].RowsIn != 10000 || sums[0].RowsOut != 10000 {
		t.Errorf("pass got %d rows over its instances, %d summed, the source sent %d; want 10000", in, sums[1].RowsIn, sums[0].RowsOut)
	}
}

// TestSumStats: summed figures add counts and times, keep the lowest
// watermark set and the longest lag, and add counters by name.
func TestSumStats(t *testing.T) {
	a := OpStats{NodeID: 4, Name: "agg", Instances: 1, RowsIn: 10, RowsOut: 2, Busy: time.Second, Wall: 2 * time.Second,
		Watermark: 0, Lag: time.Second, StateKeys: 3, StateBytes: 100, Counts: []exec.Count{{Name: "evicted", Value: 1}}}
	b := OpStats{NodeID: 4, Name: "agg", Instances: 1, RowsIn: 5, RowsOut: 1, Busy: time.Second, Wall: 2 * time.Second,
		Watermark: 2000, Lag: 3 * time.Second, StateKeys: 1, StateBytes: 50, LateRows: 7, Counts: []exec.Count{{Name: "evicted", Value: 2}}}
	c := b
	c.Watermark = 1000
	c.Counts = []exec.Count{{Name: "spilled", Value: 5}}
	got := SumStats([]OpStats{a, b, c})
	want := OpStats{NodeID: 4, Name: "agg", Instances: 3, RowsIn: 20, RowsOut: 4, Busy: 3 * time.Second, Wall: 6 * time.Second,
		Watermark: 1000, Lag: 3 * time.Second, StateKeys: 5, StateBytes: 200, LateRows: 14,
		Counts: []exec.Count{{Name: "evicted", Value: 3}, {Name: "spilled", Value: 5}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SumStats = %+v, want %+v", got, want)
	}
	if a.Counts[0].Value != 1 {
		t.Errorf("SumStats changed an instance's counters: %v", a.Counts)
	}
}

// TestCheckpointTotals: the job counts and sums the durations of the checkpoints it
// takes.
func TestCheckpointTotals(t *testing.T) {
	ctx, store := checkpointed(t)
	src := exectest.NewSource(t, exectest.Alloc(t), input...)
	count := OpSpec{Name: "count", New: func(int) (exec.Operator, error) { return &keyCounter{}, nil }}
	job := startJob(t, exchanged(src, DistHash, 2, count, &passthrough{}), JobOptions{Alloc: exectest.Alloc(t), State: store})
	for i := range 3 {
		checkpointAfterFlush(t, ctx, job, uint64(i+1), uint64(i+1))
	}
	var sum time.Duration
	for _, c := range job.Checkpoints() {
		sum += c.Duration
	}
	if taken, failed, total := job.CheckpointTotals(); taken != 3 || failed != 0 || total != sum || sum <= 0 {
		t.Errorf("%d checkpoints (%d failed) took %v in all, want 3 taking %v", taken, failed, total, sum)
	}
}

// TestDistributionString: every distribution has the name EXPLAIN gives
// its physical counterpart.
func TestDistributionString(t *testing.T) {
	want := map[Distribution]string{DistForward: "forward", DistHash: "hash", DistBroadcast: "broadcast",
		DistSingle: "single", DistRoundRobin: "round-robin", 0: "unknown"}
	for d, name := range want {
		if d.String() != name {
			t.Errorf("Distribution(%d).String() = %q, want %q", d, d.String(), name)
		}
	}
}
