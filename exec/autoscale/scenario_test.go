package autoscale_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/eddysql/eddy/exec/autoscale"
	"github.com/eddysql/eddy/exec/autoscale/internal/sim"
)

// underProvisioned returns the random dataflow of seed with one instance
// per operator four times too few: every operator needs between half an
// instance and four, and the one needing most needs exactly four, so the
// dataflow takes a quarter of its sources' rates.
func underProvisioned(seed uint64) []sim.Op {
	ops := randomOps(seed, sim.RandomOptions{MinNeed: 0.5, MaxNeed: 4, Broadcast: 0.3, FixedSink: seed%4 == 0})
	n := needs(ops)
	top := -1
	for i, op := range ops {
		if !op.Fixed && (top < 0 || n[i] > n[top]) {
			top = i
		}
	}
	part, bcast := sim.Loads(ops)
	ops[top].Cost = sim.CostFor(4, part[top], bcast[top])
	return ops
}

// TestOneStep: from four times too few instances, with instances alike,
// the controller reaches a configuration that keeps up in one step — in
// the first interval after the warm-up, since the sources lag — and makes
// no other change while the sources catch up on their backlog.
func TestOneStep(t *testing.T) {
	for seed := range uint64(seeds) {
		ops := underProvisioned(seed)
		l := newLoop(t, sim.Config{Ops: ops, CatchUp: true, Seed: seed}, cfg(8), ones(ops))
		if l.s.Feasible(l.par) {
			t.Fatalf("seed %d: one instance each keeps up", seed)
		}
		l.step()
		if _, d := l.step(); d.Action != autoscale.Apply || !d.Backpressured {
			t.Fatalf("seed %d: second interval: %v", seed, d)
		}
		if !l.s.Feasible(l.par) {
			t.Errorf("seed %d: %v does not keep up", seed, l.par)
		}
		for range 20 {
			l.step()
		}
		if l.applied != 1 {
			t.Errorf("seed %d: %d changes: %v", seed, l.applied, l.c.Log())
		}
	}
}

// TestThreeSteps: the same with instances ±20% apart in speed — an
// instance added may be slower than any measured — takes at most three
// steps, and the configuration reached keeps up from then on.
func TestThreeSteps(t *testing.T) {
	hist := map[int]int{}
	for seed := range uint64(seeds) {
		ops := underProvisioned(seed)
		l := newLoop(t, sim.Config{Ops: ops, Variation: 0.2, CatchUp: true, Seed: seed}, cfg(8), ones(ops))
		steps := -1
		for range 40 {
			l.step()
			if feasible := l.s.Feasible(l.par); feasible && steps < 0 {
				steps = l.applied
			} else if !feasible && steps >= 0 {
				t.Errorf("seed %d: %v no longer keeps up: %v", seed, l.par, l.c.Log())
				break
			}
		}
		hist[steps]++
		if steps < 0 || steps > 3 {
			t.Errorf("seed %d: %d steps to keep up (%d changes): %v", seed, steps, l.applied, l.c.Log())
		}
	}
	t.Logf("steps to keep up: %v", hist)
}

// converged returns a loop over the random dataflow of seed that has
// settled from four times too few instances (so every operator has been
// through a change and has its headroom), with the simulation replaced by
// one with noise, and the change count reset.
func converged(t *testing.T, seed uint64, variation, noise float64) *loop {
	t.Helper()
	ops := underProvisioned(seed)
	l := newLoop(t, sim.Config{Ops: ops, Variation: variation, CatchUp: true, Seed: seed}, cfg(8), ones(ops))
	if !l.settle(5, 60) {
		t.Fatalf("seed %d: no steady state: %v", seed, l.c.Log())
	}
	s, err := sim.New(sim.Config{Ops: ops, Variation: variation, Noise: noise, CatchUp: true, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	l.s, l.applied = s, 0
	return l
}

// TestSteadyNoise: once settled, 30 intervals with ±5% noise on every
// source's rate and every instance's cost change nothing.
func TestSteadyNoise(t *testing.T) {
	for seed := range uint64(seeds) {
		variation := 0.0
		if seed%2 == 1 {
			variation = 0.2
		}
		l := converged(t, seed, variation, 0.05)
		for range 30 {
			l.step()
		}
		if l.applied != 0 {
			t.Errorf("seed %d: %d changes: %v", seed, l.applied, l.c.Log())
		}
	}
}

// TestSquareWave: when the sources' rates triple for ten intervals and
// drop back for ten, three times over, with ±5% noise, each change of
// load costs at most two reconfigurations (three when instances are ±20%
// apart in speed: each instance added can be slower than those measured,
// as from an under-provisioned start); the high load is kept up with by
// its end (when Max instances can), and the low load gives instances
// back.
func TestSquareWave(t *testing.T) {
	for seed := range uint64(seeds) {
		variation, limit := 0.0, 2
		if seed%2 == 1 {
			variation, limit = 0.2, 3
		}
		ops := randomOps(seed, sim.RandomOptions{MinNeed: 0.5, MaxNeed: 2, Broadcast: 0.3})
		l := newLoop(t, sim.Config{Ops: ops, Variation: variation, Noise: 0.05, CatchUp: true, Seed: seed}, cfg(8), ones(ops))
		for range 10 {
			l.step()
		}
		low := slices.Clone(ops)
		for half := range 6 {
			factor := 3.0
			if half%2 == 1 {
				factor = 1
			}
			for i, op := range low {
				if len(op.Inputs) == 0 {
					l.s.SetRate(i, factor*op.Rate)
				}
			}
			before, applied := slices.Clone(l.par), l.applied
			for range 10 {
				l.step()
			}
			if n := l.applied - applied; n > limit {
				t.Errorf("seed %d, half %d: %d changes: %v", seed, half, n, l.c.Log())
			}
			if factor > 1 && !l.s.Feasible(l.par) && l.s.Feasible(filled(ops, 8)) {
				t.Errorf("seed %d, half %d: %v does not keep up: %v", seed, half, l.par, l.c.Log())
			}
			if factor == 1 && total(l.par) >= total(before) && !slices.Equal(before, l.par) {
				t.Errorf("seed %d, half %d: %v after %v at the high rate", seed, half, l.par, before)
			}
			if factor == 1 && !slices.Equal(before, ones(ops)) && total(l.par) >= total(before) {
				t.Errorf("seed %d, half %d: kept %v at the low rate: %v", seed, half, l.par, l.c.Log())
			}
		}
	}
}

// TestZipfNeverScalesDown: an operator whose keys follow Zipf(1.2) loads
// the instance holding the hottest keys far more than the others. Sized
// so that this instance is 87% to 150% busy at its starting parallelism
// (2 to 6) — the operator's capacity is its hot instance's — it is never
// scaled down over 30 intervals with ±5% noise, though the mean rate of
// its instances would often have it scaled down. Sized so that the
// instance is 40% to 87% busy, it may give instances back, but never so
// many that it could not keep up.
func TestZipfNeverScalesDown(t *testing.T) {
	for _, hotter := range []bool{true, false} {
		meanWouldShrink, shrunk := 0, 0
		for seed := range uint64(seeds) {
			rng := rand.New(rand.NewPCG(seed, 7))
			ops := randomOps(seed, sim.RandomOptions{MinNeed: 0.3, MaxNeed: 2.5, Broadcast: 0.3})
			var free []int
			for i, op := range ops {
				if !op.Fixed {
					free = append(free, i)
				}
			}
			hot := free[rng.IntN(len(free))]
			ops[hot].Skew = 1.2
			par := ones(ops)
			for _, i := range free {
				par[i] = 2 + rng.IntN(5)
			}
			busy := 0.4 + 0.47*rng.Float64()
			if hotter {
				busy = 0.87 + 0.63*rng.Float64()
			}
			ops[hot].Cost *= busy / busiest(t, ops, seed, hot, par[hot])
			l := newLoop(t, sim.Config{Ops: ops, Noise: 0.05, CatchUp: true, Seed: seed}, cfg(8), par)
			shrink := false
			for range 30 {
				p := l.par[hot]
				_, d := l.step()
				switch {
				case l.par[hot] >= p:
				case hotter:
					t.Errorf("seed %d: %s (%.0f%% busy) scaled down from %d to %d: %v", seed, ops[hot].Name, 100*busy, p, l.par[hot], l.c.Log())
				case l.s.Busy(hot, l.par[hot]) > 1:
					t.Errorf("seed %d: %s scaled down from %d to %d, where it needs %.0f%% of an instance: %v",
						seed, ops[hot].Name, p, l.par[hot], 100*l.s.Busy(hot, l.par[hot]), l.c.Log())
				default:
					shrunk++
				}
				// What the rules would make of the mean rate of the instances.
				if e := d.Ops[hot].Estimate; e.Known && e.Target*(1+cfg(8).DownHeadroom)/e.ProcRate <= float64(p-1) {
					shrink = true
				}
			}
			if shrink {
				meanWouldShrink++
			}
		}
		if hotter && meanWouldShrink < seeds/4 {
			t.Errorf("the mean rate would scale the hot operator down in only %d of %d runs", meanWouldShrink, seeds)
		}
		t.Logf("hot instance above 87%% %v: the mean rate would have scaled the operator down in %d of %d runs; it gave back instances %d times",
			hotter, meanWouldShrink, seeds, shrunk)
	}
}

// busiest returns the busy fraction of the busiest of p instances of
// operator o of ops at its sources' rates, its keys hashed with seed.
func busiest(t *testing.T, ops []sim.Op, seed uint64, o, p int) float64 {
	t.Helper()
	s, err := sim.New(sim.Config{Ops: ops, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return s.Busy(o, p)
}
