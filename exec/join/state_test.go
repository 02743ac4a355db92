package join

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/rowstore"
	"github.com/eddysql/eddy/planner/plan"
)

// step is one input chunk of a randomized restore test, or a control
// message.
type step struct {
	in   int
	rows [][]types.Datum
	ops  []exec.Op
	ctl  *exec.Control
	// wms, when set, are watermarks of their own for each instance (a
	// broadcast join's, which follow the left rows forwarded to it).
	wms []int64
	// to, when positive, forwards the left rows to instance to-1 (a
	// broadcast join's, from the upstream instance matched with it).
	to int
}

// stateTypes are the columns of both inputs of the restore tests: a key,
// a value the residual condition compares, and a string.
var stateTypes = []types.T{types.BigIntT, types.BigIntT, types.VarcharT}

// changelogSteps returns n random chunks of inserts and retractions (of
// rows inserted before) on both inputs: keys 0..5, sometimes NULL,
// duplicates included.
func changelogSteps(rng *rand.Rand, n int) []step {
	held := [2][][]types.Datum{}
	var steps []step
	for range n {
		st := step{in: rng.IntN(2)}
		for k := 1 + rng.IntN(5); k > 0; k-- {
			if h := held[st.in]; len(h) > 0 && rng.IntN(3) == 0 {
				i := rng.IntN(len(h))
				st.rows, st.ops = append(st.rows, h[i]), append(st.ops, exec.Delete)
				held[st.in] = append(h[:i], h[i+1:]...)
				continue
			}
			r := []types.Datum{types.IntDatum(int64(rng.IntN(6))), types.IntDatum(int64(rng.IntN(5))),
				types.StringDatum([]string{"", "a", "bé"}[rng.IntN(3)])}
			if rng.IntN(8) == 0 {
				r[0] = types.NullDatum
			}
			if rng.IntN(8) == 0 {
				r[2] = types.NullDatum
			}
			held[st.in] = append(held[st.in], r)
			st.rows, st.ops = append(st.rows, r), append(st.ops, exec.Insert)
		}
		steps = append(steps, st)
	}
	return steps
}

// stateConfig is a join of kind over two inputs of stateTypes on the first
// column (none when cross), with the residual l.v < r.v if asked.
func stateConfig(kind plan.JoinKind, residual, cross bool) Config {
	cfg := Config{Kind: kind, Left: stateTypes, Right: stateTypes, LeftKeys: []int{0}, RightKeys: []int{0},
		Names: []string{"lk", "lv", "ls", "rk", "rv", "rs"}}
	if kind == plan.SemiJoin || kind == plan.AntiJoin {
		cfg.Names = cfg.Names[:3]
	}
	if cross {
		cfg.LeftKeys, cfg.RightKeys = nil, nil
	}
	if residual {
		cfg.Residual = &plan.Binary{Op: plan.OpLt, L: &plan.InputRef{Ord: 1, Typ: types.BigIntT},
			R: &plan.InputRef{Ord: 4, Typ: types.BigIntT}, Typ: types.BoolT}
	}
	return cfg
}

// stateMatch is the condition of stateConfig's join.
func stateMatch(residual, cross bool) func(l, r []types.Datum) bool {
	return func(l, r []types.Datum) bool {
		return (cross || keysMatch(l, r)) && (!residual || l[1].I < r[1].I)
	}
}

// restoreRun runs steps through a join of cfg at parallelism from, with
// snapshots at a few random steps before cut and one after it; restores the
// last into fresh instances at parallelism to; runs the rest of the steps
// there; and checks after every later step that the integrated output of
// both runs together is the reference join of the inputs so far.
func restoreRun(t *testing.T, cfg Config, steps []step, cut, from, to int, rng *rand.Rand, match func(l, r []types.Datum) bool) {
	t.Helper()
	alloc := exectest.Alloc(t)
	out := exectest.NewCollector(t, exectest.CollectorOptions{})
	inputs := [2]*exectest.Integral{exectest.NewIntegral(cfg.Left), exectest.NewIntegral(cfg.Right)}
	apply := func(c *cluster, i int, s step) {
		t.Helper()
		if s.ctl != nil {
			if err := c.control(*s.ctl); err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
			return
		}
		b := types.BuildRecord(alloc, names(len(inputs[s.in].Types)), inputs[s.in].Types, s.rows)
		inputs[s.in].Add(exec.Chunk{Batch: b, Ops: s.ops})
		b.Release()
		if err := c.send(s.in, s.rows, s.ops); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	st := exectest.NewState()
	first := newCluster(t, cfg, from, alloc, out)
	epoch := uint64(0)
	var snaps []int
	for i, s := range steps[:cut] {
		apply(first, i, s)
		if rng.IntN(6) == 0 {
			epoch++
			first.snapshot(st, epoch)
			snaps = append(snaps, i)
		}
	}
	first.snapshot(st, epoch+1)
	steppedRun(t, cfg, from, steps[:cut], append(snaps, cut-1), exectest.CollectorOptions{})
	second := newCluster(t, cfg, to, alloc, out)
	if err := second.restore(st); err != nil {
		t.Fatalf("restore at parallelism %d of a snapshot at %d: %v", to, from, err)
	}
	if got, want := second.held(), first.held(); !cfg.Broadcast && got != want {
		t.Fatalf("restored %d rows, the snapshotted instances held %d", got, want)
	}
	for i, s := range steps[cut:] {
		apply(second, cut+i, s)
		want := strings.Join(referenceJoin(cfg.Kind, inputs[0], inputs[1], match, exectest.Text), "\n")
		if got := strings.Join(out.Rows(), "\n"); got != want {
			t.Fatalf("step %d after a restore at %d of a snapshot at %d: integrated output\n%s\nbrute force\n%s", cut+i, to, from, got, want)
		}
	}
}

// TestHashJoinRestoreContinuesTheRun snapshots every kind of regular join,
// keyed or cross, with and without a residual condition, at a random step
// of a random changelog of both inputs, restores it at parallelism 1, 2
// and 3 (a cross join runs as one instance), and checks that the restored
// instances continue the run: the integrated output of the run before the
// snapshot and of the restored instances after it is the join of the
// inputs after every step.
func TestHashJoinRestoreContinuesTheRun(t *testing.T) {
	kinds := []plan.JoinKind{plan.InnerJoin, plan.LeftJoin, plan.RightJoin, plan.FullJoin, plan.SemiJoin, plan.AntiJoin}
	for _, kind := range kinds {
		for _, residual := range []bool{false, true} {
			for _, cross := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/residual=%v/cross=%v", kind, residual, cross), func(t *testing.T) {
					cfg := stateConfig(kind, residual, cross)
					ps := []int{1, 2, 3}
					if cross {
						ps = []int{1}
					}
					for seed := range uint64(3) {
						rng := rand.New(rand.NewPCG(seed, 5))
						steps := changelogSteps(rng, 60)
						for _, p := range ps {
							from := 1 // a cross join runs as one instance
							if !cross {
								from = 1 + rng.IntN(3)
							}
							restoreRun(t, cfg, steps, 10+rng.IntN(40), from, p, rng, stateMatch(residual, cross))
						}
					}
				})
			}
		}
	}
}

// TestBroadcastJoinRestore restores broadcast joins (the right side
// replicated in every instance, the left side forwarded) at the
// parallelism of their snapshot, and checks that restoring one at another
// parallelism is refused with errRescaledBroadcast, not a wrong result.
func TestBroadcastJoinRestore(t *testing.T) {
	for _, kind := range []plan.JoinKind{plan.InnerJoin, plan.LeftJoin, plan.SemiJoin, plan.AntiJoin} {
		t.Run(kind.String(), func(t *testing.T) {
			cfg := stateConfig(kind, true, false)
			cfg.Broadcast = true
			for seed := range uint64(3) {
				rng := rand.New(rand.NewPCG(seed, 9))
				steps := changelogSteps(rng, 60)
				for _, p := range []int{1, 2, 3} {
					restoreRun(t, cfg, steps, 10+rng.IntN(40), p, p, rng, stateMatch(true, false))
				}
			}
			alloc := exectest.Alloc(t)
			out := exectest.NewCollector(t, exectest.CollectorOptions{})
			c := newCluster(t, cfg, 2, alloc, out)
			for i, s := range changelogSteps(rand.New(rand.NewPCG(1, 1)), 20) {
				if err := c.send(s.in, s.rows, s.ops); err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
			}
			st := exectest.NewState()
			c.snapshot(st, 1)
			err := newCluster(t, cfg, 3, alloc, out).restore(st)
			if !errors.Is(err, errRescaledBroadcast) {
				t.Fatalf("a restore at parallelism 3 of a snapshot at 2: %v, want %v", err, errRescaledBroadcast)
			}
		})
	}
}

// TestHashJoinSnapshotIsIncremental checks that after a full snapshot of
// a join of 2000 keys, changing 1% of the keys writes at most 5% of the
// full snapshot's bytes, with deletes for the retracted rows only.
func TestHashJoinSnapshotIsIncremental(t *testing.T) {
	cfg := stateConfig(plan.LeftJoin, false, false)
	alloc := exectest.Alloc(t)
	c := newCluster(t, cfg, 1, alloc, exectest.NewCollector(t, exectest.CollectorOptions{}))
	const keys = 2000
	row := func(k, v int64) []types.Datum {
		return []types.Datum{types.IntDatum(k), types.IntDatum(v), types.StringDatum("some text")}
	}
	for in := range 2 {
		var rows [][]types.Datum
		for k := range int64(keys) {
			rows = append(rows, row(k, 1), row(k, 2))
		}
		if err := c.send(in, rows, nil); err != nil {
			t.Fatal(err)
		}
	}
	st := exectest.NewState()
	full := c.snapshot(st, 1)
	if st.Puts != 4*keys {
		t.Fatalf("the full snapshot put %d entries for %d rows", st.Puts, 4*keys)
	}
	// 1% of the keys: a left row retracted, a right row added (which
	// changes the match counts of the key's left rows).
	for k := int64(0); k < keys/100; k++ {
		if err := c.send(0, [][]types.Datum{row(k*100, 1)}, []exec.Op{exec.Delete}); err != nil {
			t.Fatal(err)
		}
		if err := c.send(1, [][]types.Datum{row(k*100, 3)}, nil); err != nil {
			t.Fatal(err)
		}
	}
	delta := c.snapshot(st, 2)
	if st.Deletes != keys/100 {
		t.Errorf("the delta deleted %d entries for %d rows retracted", st.Deletes, keys/100)
	}
	if delta*20 > full {
		t.Errorf("after 1%% of the keys changed the snapshot wrote %d bytes, more than 5%% of the full snapshot's %d", delta, full)
	}
	if empty := c.snapshot(st, 3); empty != 0 || st.Deletes != 0 {
		t.Errorf("a snapshot with no change wrote %d bytes and %d deletes", empty, st.Deletes)
	}
}

// TestHashJoinRestoreRejectsDamage checks that damaged entries — garbage
// values, truncated rows, an entry in the wrong key group or under
// another key, an unknown tag — make Restore fail with an error wrapping
// errRestore, never panic.
func TestHashJoinRestoreRejectsDamage(t *testing.T) {
	cfg := stateConfig(plan.FullJoin, false, false)
	alloc := exectest.Alloc(t)
	build := func() *exectest.State {
		c := newCluster(t, cfg, 1, alloc, exectest.NewCollector(t, exectest.CollectorOptions{}))
		for i, s := range changelogSteps(rand.New(rand.NewPCG(2, 2)), 30) {
			if err := c.send(s.in, s.rows, s.ops); err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
		}
		st := exectest.NewState()
		c.snapshot(st, 1)
		return st
	}
	// anEntry returns the group and key of some row entry of st.
	anEntry := func(st *exectest.State) (int, string) {
		for g := range exec.NumKeyGroups {
			for k := range st.Entries[g] {
				return g, k
			}
		}
		t.Fatal("no entry")
		return 0, ""
	}
	damages := map[string]func(st *exectest.State){
		"garbage":   func(st *exectest.State) { st.Damage([]byte{7, 7, 7}) },
		"empty":     func(st *exectest.State) { st.Damage(nil) },
		"truncated": func(st *exectest.State) { g, k := anEntry(st); v := st.Entries[g][k]; st.Entries[g][k] = v[:len(v)-2] },
		"trailing":  func(st *exectest.State) { g, k := anEntry(st); st.Entries[g][k] = append(st.Entries[g][k], 0) },
		"moved": func(st *exectest.State) {
			g, k := anEntry(st)
			other := (g + 1) % exec.NumKeyGroups
			if st.Entries[other] == nil {
				st.Entries[other] = map[string][]byte{}
			}
			st.Entries[other][k] = st.Entries[g][k]
			delete(st.Entries[g], k)
		},
		"rekeyed": func(st *exectest.State) {
			g, k := anEntry(st)
			b := []byte(k)
			b[len(b)-9] ^= 1 // a byte of the join key
			st.Entries[g][string(b)] = st.Entries[g][k]
			delete(st.Entries[g], k)
		},
		"unknown tag": func(st *exectest.State) {
			g, _ := anEntry(st)
			st.Entries[g][string(rowstore.AppendEntryKey(nil, 9, "x", 1))] = []byte{0}
		},
		"short key": func(st *exectest.State) { g, _ := anEntry(st); st.Entries[g]["\x01"] = []byte{0} },
	}
	for name, damage := range damages {
		t.Run(name, func(t *testing.T) {
			st := build()
			damage(st)
			err := newCluster(t, cfg, 1, alloc, exectest.NewCollector(t, exectest.CollectorOptions{})).restore(st)
			if !errors.Is(err, errRestore) {
				t.Fatalf("restore of damaged entries: %v, want an error wrapping %v", err, errRestore)
			}
		})
	}
}

// TestJoinTracksNoChangesBeforeItsFirstSnapshot adds rows to a join that
// never snapshots and checks that its change tracking holds nothing (a
// query without checkpoints keeps no list of every row it added), and
// that the first snapshot then writes every row held, and only those. In
// a job that checkpoints, the join tracks its changes from the start, so
// that its first snapshot begins as any other does, in constant time, and
// writes the same.
func TestJoinTracksNoChangesBeforeItsFirstSnapshot(t *testing.T) {
	for _, checkpointing := range []bool{false, true} {
		t.Run(fmt.Sprintf("checkpointing=%v", checkpointing), func(t *testing.T) {
			firstSnapshotOfRowsHeld(t, checkpointing)
		})
	}
}

// firstSnapshotOfRowsHeld is TestJoinTracksNoChangesBeforeItsFirstSnapshot
// in a job that checkpoints or not.
func firstSnapshotOfRowsHeld(t *testing.T, checkpointing bool) {
	cfg := stateConfig(plan.LeftJoin, false, false)
	c := newCluster(t, cfg, 1, exectest.Alloc(t), exectest.NewCollector(t, exectest.CollectorOptions{}),
		func(e *exec.Env) { e.Checkpointing = checkpointing })
	const keys = 1000
	for in := range 2 {
		var rows [][]types.Datum
		for k := range int64(keys) {
			rows = append(rows, []types.Datum{types.IntDatum(k), types.IntDatum(1), types.StringDatum("x")})
		}
		if err := c.send(in, rows, nil); err != nil {
			t.Fatal(err)
		}
	}
	// Half the left rows go again.
	var gone [][]types.Datum
	for k := int64(0); k < keys; k += 2 {
		gone = append(gone, []types.Datum{types.IntDatum(k), types.IntDatum(1), types.StringDatum("x")})
	}
	if err := c.send(0, gone, slices.Repeat([]exec.Op{exec.Delete}, len(gone))); err != nil {
		t.Fatal(err)
	}
	for in, s := range c.js[0].sides {
		if n := s.changes.Bytes(); (n != 0) != checkpointing || s.changes.Tracking() != checkpointing {
			t.Fatalf("side %d tracks %d bytes of changes before any snapshot (tracking %v)", in, n, s.changes.Tracking())
		}
	}
	st := exectest.NewState()
	c.snapshot(st, 1)
	if want := keys/2 + keys; st.Puts != want || st.Deletes != 0 {
		t.Fatalf("the first snapshot put %d entries and deleted %d, want %d puts of the rows held", st.Puts, st.Deletes, want)
	}
}
