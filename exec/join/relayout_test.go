package join

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/planner/plan"
)

// switchRun runs steps through a join of cfg from at parallelism pFrom,
// with a snapshot at a few random steps before cut and one at cut;
// restores it into a join of cfg to (Relayout set) at parallelism pTo,
// which runs the steps up to cut2 and snapshots; restores that into a
// join of cfg to without Relayout (the layout moved for good), which runs
// the rest. After every step past cut the integrated output of all the
// runs must be the reference join of the inputs so far.
func switchRun(t *testing.T, from, to Config, pFrom, pTo int, steps []step, cut, cut2 int, rng *rand.Rand) error {
	t.Helper()
	alloc := exectest.Alloc(t)
	out := exectest.NewCollector(t, exectest.CollectorOptions{})
	inputs := [2]*exectest.Integral{exectest.NewIntegral(from.Left), exectest.NewIntegral(from.Right)}
	match := stateMatch(from.Residual != nil, false)
	apply := func(c *cluster, i int, s step) {
		t.Helper()
		b := types.BuildRecord(alloc, names(len(inputs[s.in].Types)), inputs[s.in].Types, s.rows)
		inputs[s.in].Add(exec.Chunk{Batch: b, Ops: s.ops})
		b.Release()
		if err := c.send(s.in, s.rows, s.ops); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	check := func(i int, what string) {
		t.Helper()
		want := strings.Join(referenceJoin(from.Kind, inputs[0], inputs[1], match, exectest.Text), "\n")
		if got := strings.Join(out.Rows(), "\n"); got != want {
			t.Fatalf("step %d %s: integrated output\n%s\nbrute force\n%s", i, what, got, want)
		}
	}
	st := exectest.NewState()
	first := newCluster(t, from, pFrom, alloc, out)
	epoch := uint64(0)
	for i, s := range steps[:cut] {
		apply(first, i, s)
		if rng.IntN(6) == 0 {
			epoch++
			first.snapshot(st, epoch)
		}
	}
	epoch++
	first.snapshot(st, epoch)
	to.Relayout = true
	second := newCluster(t, to, pTo, alloc, out)
	if err := second.restore(st); err != nil {
		return err
	}
	for i, s := range steps[cut:cut2] {
		apply(second, cut+i, s)
		check(cut+i, "after the switch")
	}
	epoch++
	second.snapshot(st, epoch)
	to.Relayout = false
	third := newCluster(t, to, pTo, alloc, out)
	if err := third.restore(st); err != nil {
		t.Fatalf("a restore without Relayout of the switched join's snapshot: %v", err)
	}
	if got, want := third.held(), second.held(); got != want {
		t.Fatalf("restored %d rows of the switched join's snapshot, it held %d", got, want)
	}
	for i, s := range steps[cut2:] {
		apply(third, cut2+i, s)
		check(cut2+i, "after a restore of the switched join")
	}
	return nil
}

// appendOnlyLeft drops the left side's retractions from steps.
func appendOnlyLeft(steps []step) []step {
	var out []step
	for _, s := range steps {
		if s.in == 1 {
			out = append(out, s)
			continue
		}
		var rows [][]types.Datum
		for i, r := range s.rows {
			if s.ops == nil || s.ops[i] == exec.Insert {
				rows = append(rows, r)
			}
		}
		if len(rows) > 0 {
			out = append(out, step{in: 0, rows: rows})
		}
	}
	return out
}

// broadcastKinds are the join kinds the optimizer may broadcast.
var broadcastKinds = []plan.JoinKind{plan.InnerJoin, plan.LeftJoin, plan.SemiJoin, plan.AntiJoin}

// TestJoinSwitchBroadcastToHash switches broadcast joins of every kind
// that broadcasts, over a left input that retracts, to hash partitioning
// at parallelism 1 to 3: the left rows move to the instance of their key,
// where their retractions now arrive, and the run goes on as one that ran
// hash throughout would (the reference join).
func TestJoinSwitchBroadcastToHash(t *testing.T) {
	for _, kind := range broadcastKinds {
		t.Run(kind.String(), func(t *testing.T) {
			from := stateConfig(kind, true, false)
			from.Broadcast = true
			to := stateConfig(kind, true, false)
			for seed := range uint64(3) {
				rng := rand.New(rand.NewPCG(seed, 21))
				steps := changelogSteps(rng, 90)
				for _, pTo := range []int{1, 2, 3} {
					pFrom := 2 + rng.IntN(2)
					cut := 10 + rng.IntN(30)
					if err := switchRun(t, from, to, pFrom, pTo, steps, cut, cut+20, rng); err != nil {
						t.Fatalf("broadcast at %d → hash at %d: %v", pFrom, pTo, err)
					}
				}
			}
		})
	}
}

// TestJoinSwitchToBroadcast switches hash joins, and broadcast joins at
// another parallelism, to broadcast over an append-only left input: each
// instance takes the left rows of its key groups, and the run goes on as
// the reference join. A left input that retracts is refused with
// errSwitchRetracting (its rows' retractions would reach other instances),
// while restoring a broadcast join's own layout with Relayout set works as
// without.
func TestJoinSwitchToBroadcast(t *testing.T) {
	for _, kind := range broadcastKinds {
		t.Run(kind.String(), func(t *testing.T) {
			hash := stateConfig(kind, true, false)
			bcast := stateConfig(kind, true, false)
			bcast.Broadcast, bcast.LeftAppendOnly = true, true
			for seed := range uint64(3) {
				rng := rand.New(rand.NewPCG(seed, 23))
				steps := appendOnlyLeft(changelogSteps(rng, 90))
				for _, c := range []struct {
					from        Config
					pFrom, pTo  int
					description string
				}{
					{hash, 1 + rng.IntN(3), 2, "hash → broadcast"},
					{hash, 2, 3, "hash → broadcast"},
					{bcast, 2, 3, "broadcast → broadcast"},
					{bcast, 3, 2, "broadcast → broadcast"},
				} {
					cut := 10 + rng.IntN(30)
					if err := switchRun(t, c.from, bcast, c.pFrom, c.pTo, steps, cut, cut+20, rng); err != nil {
						t.Fatalf("%s at %d → %d: %v", c.description, c.pFrom, c.pTo, err)
					}
				}
			}
			retracting := bcast
			retracting.LeftAppendOnly = false
			steps := changelogSteps(rand.New(rand.NewPCG(4, 4)), 60)
			err := switchRun(t, hash, retracting, 2, 2, steps, 40, 50, rand.New(rand.NewPCG(1, 2)))
			if !errors.Is(err, errSwitchRetracting) {
				t.Fatalf("hash → broadcast over a retracting left input: %v, want %v", err, errSwitchRetracting)
			}
			for _, p := range []int{2, 3} {
				if err := switchRun(t, retracting, retracting, p, p, steps, 30, 45, rand.New(rand.NewPCG(uint64(p), 2))); err != nil {
					t.Fatalf("broadcast at %d restored with Relayout at %[1]d: %v", p, err)
				}
			}
		})
	}
}

// TestJoinSwitchRefusesWindowedAndCross checks that Relayout is refused
// for windowed joins, whose watermark entries are laid out by the
// distribution, and cross joins, which have one.
func TestJoinSwitchRefusesWindowedAndCross(t *testing.T) {
	for _, cfg := range []Config{intervalConfig(plan.InnerJoin, -5, 5), stateConfig(plan.InnerJoin, false, true)} {
		cfg.Relayout = true
		err := NewHashJoin(cfg).Open(t.Context(), exectest.InstanceEnv(exectest.Alloc(t), 0, 1, nil))
		if err == nil || !strings.HasPrefix(err.Error(), "not supported yet") {
			t.Fatalf("%s: Open with Relayout: %v, want not supported yet", fmt.Sprint(cfg.Kind), err)
		}
	}
}
