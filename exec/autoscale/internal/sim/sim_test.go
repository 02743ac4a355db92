package sim

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec/autoscale"
)

// chain is source → a → b with known costs: a needs 2 instances, b 3.
func chain() []Op {
	ops := []Op{
		{Name: "src", Rate: 10000, Fixed: true, Selectivity: 1},
		{Name: "a", Inputs: []autoscale.Edge{{From: 0}}, Selectivity: 0.5},
		{Name: "b", Inputs: []autoscale.Edge{{From: 1}}, Selectivity: 1},
	}
	ops[0].Cost = CostFor(0.2, 10000, 0)
	ops[1].Cost = CostFor(2, 10000, 0)
	ops[2].Cost = CostFor(3, 5000, 0)
	return ops
}

func rowsIn(op autoscale.Op) (n int64) {
	for _, in := range op.Instances {
		n += in.RowsIn
	}
	return n
}

func rowsOut(op autoscale.Op) (n int64) {
	for _, in := range op.Instances {
		n += in.RowsOut
	}
	return n
}

// TestStepKeepsUp: with enough instances every row arriving is processed,
// each operator takes what its input produces, and busy time is rows
// times cost.
func TestStepKeepsUp(t *testing.T) {
	s, err := New(Config{Ops: chain()})
	if err != nil {
		t.Fatal(err)
	}
	par := []int{1, 4, 4}
	if !s.Feasible(par) {
		t.Fatal("4 instances each should keep up")
	}
	r := s.Step(par)
	if r.Throttled {
		t.Fatal("throttled")
	}
	ops := r.Interval.Ops
	if got := rowsIn(ops[0]); got != 10000 {
		t.Errorf("source read %d rows, want 10000", got)
	}
	if got := rowsIn(ops[2]); math.Abs(float64(got-rowsOut(ops[1]))) > 4 {
		t.Errorf("b took %d rows, a produced %d", got, rowsOut(ops[1]))
	}
	if ops[0].Rate != 10000 {
		t.Errorf("source rate %v, want 10000", ops[0].Rate)
	}
	// a needs 2 instances: at 4, each of them is about half busy.
	for k, in := range ops[1].Instances {
		if f := in.Busy.Seconds(); math.Abs(f-0.5) > 0.02 {
			t.Errorf("a's instance %d is %.3f busy, want 0.5", k, f)
		}
	}
}

// TestStepBackpressure: an operator with too few instances caps what the
// source emits at what its busiest instance can take; the rest waits in
// the backlog, and the source still reports its arrival rate.
func TestStepBackpressure(t *testing.T) {
	s, err := New(Config{Ops: chain()})
	if err != nil {
		t.Fatal(err)
	}
	par := []int{1, 4, 1} // b needs 3 instances and has 1
	if s.Feasible(par) {
		t.Fatal("1 instance of b should not keep up")
	}
	for range 3 {
		r := s.Step(par)
		if !r.Throttled {
			t.Fatal("not throttled")
		}
		ops := r.Interval.Ops
		if got := rowsIn(ops[0]); math.Abs(float64(got)-10000.0/3) > 2 {
			t.Errorf("source read %d rows, want a third of 10000", got)
		}
		if math.Abs(ops[0].Rate-10000) > 2 {
			t.Errorf("source rate %v, want 10000", ops[0].Rate)
		}
		if f := ops[2].Instances[0].Busy.Seconds(); math.Abs(f-1) > 0.001 {
			t.Errorf("b is %.4f busy, want fully", f)
		}
		// The true rates do not depend on the backpressure.
		if want := 1 / s.Ops()[1].Cost; math.Abs(r.ProcRate[1]/want-1) > 1e-3 {
			t.Errorf("a's true rate %v, want %v", r.ProcRate[1], want)
		}
	}
}

// TestCatchUp: a source that catches up reads its backlog once the
// dataflow has room, and the arrival rate it reports stays the rate of
// its input.
func TestCatchUp(t *testing.T) {
	s, err := New(Config{Ops: chain(), CatchUp: true})
	if err != nil {
		t.Fatal(err)
	}
	s.Step([]int{1, 4, 1}) // a backlog of 2/3 of 10000 rows
	r := s.Step([]int{1, 4, 6})
	if got := rowsIn(r.Interval.Ops[0]); got < 16000 {
		t.Errorf("source read %d rows, want its backlog too", got)
	}
	if rate := r.Interval.Ops[0].Rate; math.Abs(rate-10000) > 2 {
		t.Errorf("source rate %v, want 10000", rate)
	}
}

// TestSkewLoadsOneInstance: with Zipf(1.2) keys one instance takes far
// more than an even share, and more instances do not spread its hottest
// key.
func TestSkewLoadsOneInstance(t *testing.T) {
	ops := chain()
	ops[1].Skew = 1.2
	s, err := New(Config{Ops: ops})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []int{2, 4, 8} {
		var top float64
		for k := range p {
			top = max(top, s.share(1, k, p))
		}
		if top < 1.3/float64(p) || top < 0.2 {
			t.Errorf("at %d instances the hottest takes %.3f", p, top)
		}
	}
}

// TestVariationIsStable: an instance keeps its speed whatever the
// parallelism, and speeds stay within the variation.
func TestVariationIsStable(t *testing.T) {
	s, err := New(Config{Ops: chain(), Variation: 0.2, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := 2.0, 0.0
	for k := range 64 {
		v := s.speed(1, k)
		lo, hi = min(lo, v), max(hi, v)
		if v != s.speed(1, k) {
			t.Fatal("speed changed")
		}
	}
	if lo < 0.8 || hi > 1.2 || hi-lo < 0.2 {
		t.Errorf("speeds in [%.3f, %.3f], want spread over [0.8, 1.2]", lo, hi)
	}
}

// TestRandomNeeds: Random gives each operator the need it drew — at that
// many instances (rounded up) a uniform operator keeps up, at fewer it
// does not — and feeds every source to some operator.
func TestRandomNeeds(t *testing.T) {
	for seed := range uint64(50) {
		rng := rand.New(rand.NewPCG(seed, 1))
		ops := Random(rng, RandomOptions{Ops: 3 + int(seed%4), MinNeed: 1.2, MaxNeed: 6, Broadcast: 0.5})
		part, bcast := Loads(ops)
		read := map[int]bool{}
		for _, op := range ops {
			for _, e := range op.Inputs {
				read[e.From] = true
			}
		}
		for i, op := range ops {
			if len(op.Inputs) == 0 && !read[i] {
				t.Fatalf("seed %d: source %d feeds nothing", seed, i)
			}
			need := part[i] / (1/op.Cost - bcast[i])
			if len(op.Inputs) > 0 && (need < 1.2-1e-9 || need > 6+1e-9) {
				t.Errorf("seed %d: operator %d needs %.3f", seed, i, need)
			}
		}
		s, err := New(Config{Ops: ops, Interval: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		ones := make([]int, len(ops))
		for i := range ones {
			ones[i] = 1
		}
		if s.Feasible(ones) {
			t.Errorf("seed %d: one instance each keeps up", seed)
		}
	}
}
