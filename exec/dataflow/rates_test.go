package dataflow

import (
	"context"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// near reports whether got is want up to a relative 1e-9.
func near(got, want float64) bool {
	return math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want))
}

// TestDelta: an interval's figures are what each instance's counters
// added between the samples, its gauges are as at the end, and a zero
// first sample is the job's start.
func TestDelta(t *testing.T) {
	a := OpStats{Name: "agg", Instances: 1, RowsIn: 100, RowsOut: 10, LateRows: 1, Busy: time.Second, Idle: 2 * time.Second,
		Backpressure: time.Second, Wall: 4 * time.Second, StateKeys: 5, Watermark: 1000,
		Counts: []exec.Count{{Name: "evicted", Value: 3}}}
	b := OpStats{Name: "agg", Instances: 1, RowsIn: 300, RowsOut: 50, LateRows: 4, Busy: 3 * time.Second, Idle: 3 * time.Second,
		Backpressure: 2 * time.Second, Wall: 8 * time.Second, StateKeys: 7, Watermark: 2000,
		Counts: []exec.Count{{Name: "evicted", Value: 5}, {Name: "spilled", Value: 2}}}
	start := time.Unix(100, 0)
	prev := Sample{Wall: 4 * time.Second, At: start.Add(4 * time.Second), Ops: [][]OpStats{{a}}}
	cur := Sample{Wall: 8 * time.Second, At: start.Add(8 * time.Second), Ops: [][]OpStats{{b}}}
	iv := Delta(prev, cur)
	want := OpStats{Name: "agg", Instances: 1, RowsIn: 200, RowsOut: 40, LateRows: 3, Busy: 2 * time.Second, Idle: time.Second,
		Backpressure: time.Second, Wall: 4 * time.Second, StateKeys: 7, Watermark: 2000,
		Counts: []exec.Count{{Name: "evicted", Value: 2}, {Name: "spilled", Value: 2}}}
	if iv.Length != 4*time.Second || !iv.End.Equal(cur.At) {
		t.Errorf("interval of %v ending %v, want 4s ending %v", iv.Length, iv.End, cur.At)
	}
	if len(iv.Ops) != 1 || !reflect.DeepEqual(iv.Ops[0].Instances, []OpStats{want}) || !reflect.DeepEqual(iv.Ops[0].Total, want) {
		t.Fatalf("Delta = %+v, want one instance %+v", iv.Ops, want)
	}
	if first := Delta(Sample{}, prev); first.Length != 4*time.Second || first.Ops[0].Total.RowsIn != 100 {
		t.Errorf("from the start: %v long, %d rows in; want 4s, 100", first.Length, first.Ops[0].Total.RowsIn)
	}
}

// TestRatesOf: λp and λo are rows per second of busy time, the observed
// rates rows per second of wall time, per instance for true rates and
// for the whole operator for observed ones.
func TestRatesOf(t *testing.T) {
	one := OpStats{Instances: 1, RowsIn: 1000, RowsOut: 500, Busy: 500 * time.Millisecond, Wall: 2 * time.Second}
	r := RatesOf(one)
	if !near(r.TrueProcessing, 2000) || !near(r.TrueOutput, 1000) || !near(r.ObservedIn, 500) || !near(r.ObservedOut, 250) ||
		!near(r.Selectivity, 0.5) || !r.HasInput {
		t.Errorf("RatesOf(%+v) = %+v", one, r)
	}
	// Two instances over 2 s: 3000 rows in 1.5 s of busy time together.
	two := SumStats([]OpStats{one, {Instances: 1, RowsIn: 2000, RowsOut: 2000, Busy: time.Second, Wall: 2 * time.Second}})
	r = RatesOf(two)
	if !near(r.TrueProcessing, 2000) || !near(r.TrueOutput, 5000.0/3) || !near(r.ObservedIn, 1500) || !near(r.ObservedOut, 1250) ||
		!near(r.Selectivity, 2500.0/3000) {
		t.Errorf("RatesOf(%+v) = %+v", two, r)
	}
	if r := RatesOf(OpStats{Instances: 1, Wall: time.Second}); r != (Rates{}) {
		t.Errorf("an operator that did nothing has rates %+v, want zeros", r)
	}
}

// TestCapacity: an operator's capacity is its rows over its busiest
// instance's busy time, and its utilization that instance's busy share.
func TestCapacity(t *testing.T) {
	o := opInterval(time.Second, inst(600, 0, 300*time.Millisecond), inst(400, 0, 100*time.Millisecond))
	if c := o.Capacity(); !near(c, 1000/0.3) {
		t.Errorf("capacity %v, want %v", c, 1000/0.3)
	}
	if u := o.Utilization(); !near(u, 0.3) {
		t.Errorf("utilization %v, want 0.3", u)
	}
	if c := opInterval(time.Second, inst(0, 0, 0)).Capacity(); c != 0 {
		t.Errorf("an idle operator's capacity is %v, want 0", c)
	}
}

// TestSampler: a job with a policy interval keeps its last interval,
// numbered, with an entry per operator and instance in the order of
// Stats and the job's shape; one without keeps none.
func TestSampler(t *testing.T) {
	alloc := exectest.Alloc(t)
	src := exectest.NewSource(t, alloc)
	rec := &recorder{}
	job := startJob(t, exchanged(src, DistHash, 2, only("pass", &passthrough{}), rec),
		JobOptions{Alloc: alloc, PolicyInterval: 5 * time.Millisecond})
	src.Add("bigint\n+I 1\n+I 2\n+I 3")
	var iv Interval
	waitUntil(t, func() bool {
		var ok bool
		iv, ok = job.LastInterval()
		return ok && iv.Seq >= 2
	})
	if job.PolicyInterval() != 5*time.Millisecond {
		t.Errorf("policy interval %v", job.PolicyInterval())
	}
	if len(iv.Ops) != 3 || len(iv.Ops[1].Instances) != 2 || iv.Length <= 0 || iv.Latency.Markers != 0 {
		t.Fatalf("interval %+v: want 3 operators, the second with 2 instances, a length and no markers", iv)
	}
	want := Shape{Ops: []OpPlace{{0, -1}, {1, 0}, {2, 0}},
		Stages: []StageShape{{Parallelism: 1, Consumer: 1}, {Parallelism: 2, Consumer: 2, Hashed: true}, {Parallelism: 1, Consumer: -1}}}
	if !reflect.DeepEqual(iv.Shape, want) {
		t.Errorf("shape %+v, want %+v", iv.Shape, want)
	}
	src.End()
	if err := job.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	quiet := runJob(t, exchanged(intReplay(t, alloc, 0, 10, 1), DistHash, 2, only("pass", &passthrough{}), &recorder{}),
		JobOptions{Alloc: alloc})
	if _, ok := quiet.LastInterval(); ok || quiet.PolicyInterval() != 0 {
		t.Errorf("a job without a policy interval has one")
	}
}

// TestSourceBusyIsItsOwn: a source's busy time leaves out the operators
// chained behind it in its stage, which are charged their own, and the
// time after it ended.
func TestSourceBusyIsItsOwn(t *testing.T) {
	alloc := exectest.Alloc(t)
	slow := &exectest.Counter{Pass: true, Delay: 20 * time.Millisecond}
	g := GraphSpec{Stages: []StageSpec{sourceStage(intReplay(t, alloc, 0, 5*exec.BatchRows, 1), only("slow", slow))}}
	job := runJob(t, g, JobOptions{Alloc: alloc})
	st := job.Stats()
	if st[1].Busy < 100*time.Millisecond {
		t.Fatalf("the slow operator was busy %v, want at least 100ms", st[1].Busy)
	}
	if st[0].Busy >= st[1].Busy/2 {
		t.Errorf("the source was busy %v, its chained operator %v: the source is charged the operator's time", st[0].Busy, st[1].Busy)
	}
	if sum := st[0].Busy + st[0].Idle + st[0].Backpressure; sum != st[0].Wall {
		t.Errorf("the source's busy, idle and backpressured times sum to %v, its wall time is %v", sum, st[0].Wall)
	}
	// A source that ended long before its job is idle from then on.
	slow = &exectest.Counter{Delay: 20 * time.Millisecond}
	job = runJob(t, exchanged(intReplay(t, alloc, 0, 5*exec.BatchRows, 1), DistForward, 1, only("slow", slow), &recorder{}),
		JobOptions{Alloc: alloc})
	st = job.Stats()
	if st[1].Busy < 100*time.Millisecond || st[0].Busy >= st[1].Busy/2 {
		t.Errorf("the source was busy %v, the slow operator after it %v: the source is busy after its end", st[0].Busy, st[1].Busy)
	}
}

// waitUntil polls cond every millisecond for up to 10 seconds.
func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(time.Millisecond)
	}
}

// inst returns one instance's figures over an interval.
func inst(rowsIn, bpMs int64, busy time.Duration) OpStats {
	return OpStats{Instances: 1, RowsIn: rowsIn, RowsOut: rowsIn, Busy: busy, Backpressure: time.Duration(bpMs) * time.Millisecond}
}

// opInterval returns an operator's interval of length wall with insts.
func opInterval(wall time.Duration, insts ...OpStats) OpInterval {
	for i := range insts {
		insts[i].Wall = wall
		insts[i].Idle = max(wall-insts[i].Busy-insts[i].Backpressure, 0)
	}
	return OpInterval{Instances: insts, Total: SumStats(insts)}
}
