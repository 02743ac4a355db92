package agg

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/accum"
)

// restoring is a HashAgg that restores from a state as it opens, as the
// runtime restores an operator after Open and before any input.
type restoring struct {
	*HashAgg
	state  *exectest.State
	groups exec.KeyGroupRange
}

func (r *restoring) Open(ctx context.Context, env *exec.Env) error {
	if err := r.HashAgg.Open(ctx, env); err != nil {
		return err
	}
	return r.HashAgg.Restore(ctx, r.state, r.groups)
}

// recording runs an operator and records, by step, its output lines and
// the key group of each (of the group key columns, the output's first
// keyCols), draining the collector.
type recording struct {
	exec.Operator
	keyCols int
	out     *exectest.Collector
	lines   [][]string
	groups  [][]int
}

func (r *recording) Process(ctx context.Context, in int, c exec.Chunk, _ exec.Emitter) error {
	r.lines, r.groups = append(r.lines, nil), append(r.groups, nil)
	return r.Operator.Process(ctx, in, c, r)
}

func (r *recording) OnControl(ctx context.Context, m exec.Control, _ exec.Emitter) error {
	r.lines, r.groups = append(r.lines, nil), append(r.groups, nil)
	return r.Operator.OnControl(ctx, m, r)
}

func (r *recording) Emit(ctx context.Context, c exec.Chunk) error {
	groups, err := rowGroups(c.Batch, r.keyCols)
	if err != nil {
		return err
	}
	if err := r.out.Emit(ctx, c); err != nil {
		return err
	}
	k := len(r.lines) - 1
	r.lines[k] = append(r.lines[k], strings.Split(r.out.Take(), "\n")...)
	r.groups[k] = append(r.groups[k], groups...)
	return nil
}

// rowGroups returns the key group of each row of rec by its first
// keyCols columns, as the hash exchange computes it (0 without keys).
func rowGroups(rec arrow.RecordBatch, keyCols int) ([]int, error) {
	n := int(rec.NumRows())
	groups := make([]int, n)
	if keyCols == 0 {
		return groups, nil
	}
	hashes := make([]uint64, n)
	if err := exec.HashRows(rec.Columns()[:keyCols], hashes); err != nil {
		return nil, err
	}
	for i, h := range hashes {
		groups[i] = exec.KeyGroup(h)
	}
	return groups, nil
}

// routed returns the chunk text of step's rows that instance i of p
// receives through the hash exchange on cfg's group keys, and whether
// there is any.
func routed(t *testing.T, cfg HashConfig, text string, i, p int) (string, bool) {
	alloc := exectest.Alloc(t)
	ch := exectest.Chunk(t, alloc, text)
	defer ch.Batch.Release()
	cols := make([]arrow.Array, len(cfg.GroupKeys))
	for c, ord := range cfg.GroupKeys {
		cols[c] = ch.Batch.Column(ord)
	}
	hashes := make([]uint64, ch.NumRows())
	if len(cols) > 0 {
		if err := exec.HashRows(cols, hashes); err != nil {
			t.Fatal(err)
		}
	}
	lines := strings.Split(strings.TrimSpace(text), "\n")
	out := []string{lines[0]}
	for r, h := range hashes {
		if len(cols) == 0 || exec.InstanceForKeyGroup(exec.KeyGroup(h), p) == i {
			out = append(out, lines[1+r])
		}
	}
	return strings.Join(out, "\n"), len(out) > 1
}

// TestHashAggSnapshotIsIncremental checks that a snapshot writes what
// changed since the previous one: after 10,000 groups, touching 1% of
// them (some emptied) writes an entry for each of those and nothing else,
// a few percent of the bytes of the full snapshot.
func TestHashAggSnapshotIsIncremental(t *testing.T) {
	for _, tc := range []struct {
		name  string
		input string
		keys  []int
	}{
		{"int-key", "bigint bigint", []int{0}},
		{"string-key", "varchar bigint", []int{0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, tc.input, tc.keys, "count(*)", "sum(1)", "max(1)", "count(distinct 1)")
			h := openAgg(t, cfg)
			alloc, ctx := h.env.Alloc, context.Background()
			key := func(g int) string {
				if tc.input == "varchar bigint" {
					return fmt.Sprintf("key%05d", g)
				}
				return fmt.Sprint(g)
			}
			feed := func(lines []string) {
				t.Helper()
				ch := exectest.Chunk(t, alloc, tc.input+"\n"+strings.Join(lines, "\n"))
				defer ch.Batch.Release()
				if err := h.Process(ctx, 0, ch, exec.EmitterFunc(func(_ context.Context, c exec.Chunk) error {
					c.Batch.Release()
					return nil
				})); err != nil {
					t.Fatal(err)
				}
			}
			const groups = 10000
			var lines []string
			for g := range groups {
				lines = append(lines, fmt.Sprintf("+I %s %d", key(g), g%7), fmt.Sprintf("+I %s %d", key(g), g%5))
			}
			feed(lines)
			state := exectest.NewState()
			state.Snapshot(t, h, 1)
			full := state.Bytes
			if state.Puts != groups || state.Deletes != 0 || state.Len() != groups {
				t.Fatalf("first snapshot: %d puts, %d deletes, %d entries; want %d puts", state.Puts, state.Deletes, state.Len(), groups)
			}
			state.Snapshot(t, h, 2)
			if state.Puts != 0 || state.Deletes != 0 {
				t.Fatalf("snapshot of no change: %d puts, %d deletes", state.Puts, state.Deletes)
			}
			// 1%: 80 groups get a row, 20 lose both of theirs.
			lines = lines[:0]
			for g := 0; g < groups; g += 100 {
				if g%500 == 0 {
					lines = append(lines, fmt.Sprintf("-D %s %d", key(g), g%7), fmt.Sprintf("-D %s %d", key(g), g%5))
				} else {
					lines = append(lines, fmt.Sprintf("+I %s 100", key(g)))
				}
			}
			feed(lines)
			state.Snapshot(t, h, 3)
			if state.Puts != 80 || state.Deletes != 20 || state.Len() != groups-20 {
				t.Fatalf("snapshot of 1%%: %d puts, %d deletes, %d entries; want 80, 20, %d", state.Puts, state.Deletes, state.Len(), groups-20)
			}
			t.Logf("full snapshot %d bytes, 1%% of the groups %d bytes", full, state.Bytes)
			if state.Bytes*100 > 2*full {
				t.Fatalf("snapshot of 1%% wrote %d bytes, the full one %d", state.Bytes, full)
			}
		})
	}
}

// TestHashAggRestoreRefusesCorruptState checks that a corrupt entry (a
// truncated state, a key that is not a group key, trailing bytes) makes
// Restore fail with an error naming the operator, and that a snapshot
// taken before Open fails instead of panicking.
func TestHashAggRestoreRefusesCorruptState(t *testing.T) {
	cfg := testConfig(t, "bigint varchar", []int{1}, "count(*)", "min(0)", "count(distinct 0)")
	alloc := exectest.Alloc(t)
	ctx := context.Background()
	h := NewHashAgg(cfg)
	if err := h.Snapshot(ctx, 1, exectest.NewState()); err == nil {
		t.Fatal("snapshot before Open succeeded")
	}
	state := exectest.NewState()
	(&exectest.Runner{Op: h, Env: exec.NewTestEnv(alloc), Out: newCollector(t, cfg), Inputs: nil}).Run(t, []exectest.Step{{
		In: "bigint varchar\n+I 1 a\n+I 2 a\n+I 3 b\n+I 4 b\n+I 5 b\n+I 6 b\n+I 7 b", AnyOut: true,
		Check: func(t *testing.T) { state.Snapshot(t, h, 1) },
	}})
	var g int
	var key string
	for g = range state.Entries {
		for key = range state.Entries[g] {
			break
		}
	}
	good := state.Entries[g][key]
	for _, tc := range []struct {
		name  string
		edit  func()
		wrapd error
	}{
		{"truncated", func() { state.Entries[g][key] = good[:len(good)-1] }, accum.ErrCorruptState},
		{"trailing", func() { state.Entries[g][key] = append(slices.Clone(good), 0) }, errRestore},
		{"bad key", func() { delete(state.Entries[g], key); state.Entries[g]["\x01\x05"] = good }, errEntryKey},
		{"zero rows", func() { state.Entries[g][key] = append([]byte{0}, good[1:]...) }, errRestore},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := maps.Clone(state.Entries[g])
			defer func() { state.Entries[g] = old }()
			tc.edit()
			r := NewHashAgg(cfg)
			if err := r.Open(ctx, exec.NewTestEnv(alloc)); err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			err := r.Restore(ctx, state, exec.KeyGroupsOf(0, 1))
			if !errors.Is(err, tc.wrapd) || !errors.Is(err, errRestore) || !strings.Contains(fmt.Sprint(err), "hash aggregate") {
				t.Fatalf("got %v, want an error of the hash aggregate wrapping %v", err, tc.wrapd)
			}
		})
	}
}

// TestHashAggDeltaIsBoundedWithoutCheckpoints checks that without
// snapshots the delta does not grow with the history: groups created and
// deleted over and over leave at most an entry per slot and no deletion
// records, and the first snapshot still writes exactly the live groups.
func TestHashAggDeltaIsBoundedWithoutCheckpoints(t *testing.T) {
	cfg := testConfig(t, "bigint bigint", []int{0}, "count(*)", "sum(1)")
	var steps []exectest.Step
	for k := range 50 {
		steps = append(steps, exectest.Step{In: fmt.Sprintf("bigint bigint\n+I %d 1\n+I %d 2\n+I 1000 %d", k, k+1, k), AnyOut: true},
			exectest.Step{In: fmt.Sprintf("bigint bigint\n-D %d 1\n-D %d 2", k, k+1), AnyOut: true})
	}
	h := NewHashAgg(cfg)
	state := exectest.NewState()
	steps[len(steps)-1].Check = func(t *testing.T) {
		if d := &h.delta; len(d.slots) > h.keys.high() || len(d.delEnds) != 0 {
			t.Fatalf("after 100 batches: %d dirty entries for %d slots, %d deletions recorded", len(d.slots), h.keys.high(), len(d.delEnds))
		}
		state.Snapshot(t, h, 1)
		if state.Puts != 1 || state.Deletes != 0 {
			t.Fatalf("first snapshot: %d puts, %d deletes; want the one live group", state.Puts, state.Deletes)
		}
	}
	(&exectest.Runner{Op: h, Env: exec.NewTestEnv(exectest.Alloc(t)), Out: newCollector(t, cfg)}).Run(t, steps)
}
