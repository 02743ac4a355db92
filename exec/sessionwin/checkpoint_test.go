package sessionwin

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/accum"
)

// TestSessionRestoreContinuesTheRun snapshots a SESSION aggregate at
// random steps of a random input (rows out of order, some late, sessions
// that merge across the last snapshot) and checks that instances restored
// from the last snapshot at parallelism 1, 2 and 3 continue exactly as the
// uninterrupted run: the same rows at every step, the same integral.
func TestSessionRestoreContinuesTheRun(t *testing.T) {
	for _, tc := range []struct {
		name  string
		input string
		keys  []int
		key   func(r *rand.Rand) string
	}{
		{"string-key", "varchar timestamp(3) bigint double", []int{0}, func(r *rand.Rand) string {
			return []string{"a", "b", "c", "d", "''", "NULL"}[r.IntN(6)]
		}},
		// -0 and 0 are one key: the first row's value is the output's.
		{"double-key", "double timestamp(3) bigint double", []int{0}, func(r *rand.Rand) string {
			return []string{"-0", "0", "1.5", "NULL"}[r.IntN(4)]
		}},
		{"no-keys", "bigint timestamp(3) bigint double", nil, func(r *rand.Rand) string { return fmt.Sprint(r.IntN(3)) }},
	} {
		for _, eoc := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/emit-on-close=%t", tc.name, eoc), func(t *testing.T) {
				cfg := testConfig(t, tc.input, tc.keys, 1, 10, "count(*)", "sum(2)", "avg(3)", "min(2)", "max(3)",
					"count(distinct 2)", "sum(distinct 3)")
				cfg.EmitOnClose = eoc
				for seed := range uint64(6) {
					r := rand.New(rand.NewPCG(seed, 3))
					steps, snaps := sessionSteps(r, tc.input, tc.key)
					exectest.CheckRestore(t, exectest.Restore{
						New:   exectest.Maker(t, func() (*Agg, error) { return NewAgg(cfg) }),
						Steps: steps, Keys: tc.keys, Snapshots: snaps,
						Options: exectest.CollectorOptions{Format: exectest.Millis},
					})
				}
			})
		}
	}
}

// sessionSteps returns 40 random steps of input (a key, the time, a bigint
// and a double) and the steps to snapshot after: chunks of rows around
// the watermark, some behind it, watermarks that advance, and end of
// input last.
func sessionSteps(r *rand.Rand, input string, key func(*rand.Rand) string) ([]exectest.Step, []int) {
	var steps []exectest.Step
	wm := int64(0)
	for k := range 39 {
		if k%3 == 2 {
			wm += int64(r.IntN(25))
			steps = append(steps, exectest.Step{Ctl: exectest.Watermark(wm)})
			continue
		}
		lines := []string{input}
		for range 1 + r.IntN(8) {
			ts := fmt.Sprint(wm + int64(r.IntN(40)) - 5) // some late
			if r.IntN(20) == 0 {
				ts = "NULL"
			}
			v, f := fmt.Sprint(r.IntN(7)-3), fmt.Sprint(float64(r.IntN(9))/4)
			if r.IntN(6) == 0 {
				v = "NULL"
			}
			lines = append(lines, strings.Join([]string{"+I", key(r), ts, v, f}, " "))
		}
		steps = append(steps, exectest.Step{In: strings.Join(lines, "\n")})
	}
	steps = append(steps, exectest.Step{Ctl: exectest.Control(exec.EndOfInput)})
	var snaps []int
	for k := range 26 {
		if r.IntN(6) == 0 {
			snaps = append(snaps, k)
		}
	}
	return steps, append(snaps, 26+r.IntN(8))
}

// TestSessionSnapshotIsIncremental checks that a snapshot writes only the
// group keys that changed: after 10,000 keys, 1% of them changing (80 a
// session extended, 20 their last session closed) writes 80 puts and 20
// deletes, a few percent of the bytes of the full snapshot.
func TestSessionSnapshotIsIncremental(t *testing.T) {
	cfg := testConfig(t, "varchar timestamp(3) bigint", []int{0}, 1, 10, "count(*)", "sum(2)", "max(2)", "count(distinct 2)")
	w, env := newAgg(t, cfg)
	ctx := context.Background()
	if err := w.Open(ctx, env); err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	feed := func(lines []string) {
		exectest.Feed(t, w, env.Alloc, "varchar timestamp(3) bigint\n"+strings.Join(lines, "\n"))
	}
	const keys = 10000
	closing := func(g int) bool { return g%500 == 0 }
	var lines []string
	for g := range keys {
		at := 1000
		if closing(g) {
			at = 0
		}
		lines = append(lines, fmt.Sprintf("+I key%05d %d %d", g, at, g%7), fmt.Sprintf("+I key%05d %d %d", g, at+3, g%5))
	}
	feed(lines)
	exectest.CheckIncremental(t, exectest.Incremental{Op: w, Full: keys, Change: func() {
		discard := exec.EmitterFunc(func(_ context.Context, c exec.Chunk) error {
			c.Batch.Release()
			return nil
		})
		if err := w.OnControl(ctx, exec.Control{Kind: exec.Watermark, Watermark: 100}, discard); err != nil {
			t.Fatal(err)
		}
		lines = lines[:0]
		for g := 0; g < keys; g += 100 {
			if !closing(g) {
				lines = append(lines, fmt.Sprintf("+I key%05d 1005 100", g))
			}
		}
		feed(lines)
	}, Changed: exectest.Counts{Puts: 80, Deletes: 20, Len: keys - 20}, Percent: 2})
}

// TestSessionRestoreRefusesDamagedState checks that a damaged entry (a
// truncated state, trailing bytes, a key that is no group key, overlapping
// sessions, garbage) makes Restore fail with an error of the operator,
// and that a snapshot before Open fails instead of panicking.
func TestSessionRestoreRefusesDamagedState(t *testing.T) {
	cfg := testConfig(t, "bigint timestamp(3) varchar", []int{0}, 1, 10, "count(*)", "min(2)", "count(distinct 2)")
	newOp := exectest.Maker(t, func() (*Agg, error) { return NewAgg(cfg) })
	state := exectest.SnapshotAfter(t, newOp(), exectest.CollectorOptions{Format: exectest.Millis}, "bigint timestamp(3) varchar\n+I 1 0 a\n+I 1 30 b\n+I 1 35 c")
	if state.Len() != 1 {
		t.Fatalf("%d entries, want 1", state.Len())
	}
	g, key, good := state.Any()
	// good is: no -0 keys, 2 sessions, then the first's start (0), span
	// (0), number (1), rows (1), ...
	if !strings.HasPrefix(string(good), "\x00\x02\x00\x00\x01\x01") {
		t.Fatalf("entry value % x", good)
	}
	overlap := slices.Clone(good)
	overlap[2] = 2 * 40 // the first session starts at 40 (zig-zag), after the second
	exectest.CheckDamaged(t, exectest.Damaged{OpenFirst: true,
		New: newOp, State: state, Wrap: errRestore, Says: "SESSION",
		Damages: []exectest.Damage{
			{Name: "truncated", Edit: func(s *exectest.State) { s.Entries[g][key] = good[:len(good)-1] }, Want: accum.ErrCorruptState},
			{Name: "trailing", Edit: func(s *exectest.State) { s.Entries[g][key] = append(slices.Clone(good), 0) }, Want: errEntry},
			{Name: "bad key", Edit: func(s *exectest.State) { delete(s.Entries[g], key); s.Entries[g]["\x01\x05"] = good }, Want: errEntry},
			{Name: "overlap", Edit: func(s *exectest.State) { s.Entries[g][key] = overlap }, Want: errEntry},
			{Name: "no sessions", Edit: func(s *exectest.State) { s.Entries[g][key] = []byte{0, 0} }, Want: errEntry},
			{Name: "garbage", Edit: func(s *exectest.State) { s.Damage([]byte("\xff\xff\xff")) }, Want: errEntry},
		},
	})
}

// TestSessionDeltaIsBoundedWithoutCheckpoints checks that an operator
// never snapshotted keeps no list of changes while keys come and go, and
// that its first snapshot writes exactly the open groups.
func TestSessionDeltaIsBoundedWithoutCheckpoints(t *testing.T) {
	cfg := testConfig(t, "bigint timestamp(3) bigint", []int{0}, 1, 10, "count(*)")
	w, env := newAgg(t, cfg)
	var steps []exectest.Step
	for k := range 50 {
		steps = append(steps, exectest.Step{In: fmt.Sprintf("bigint timestamp(3) bigint\n+I %d %d 1\n+I 1000 %d 1", k, 100*k, 100*k), AnyOut: true},
			exectest.Step{Ctl: exectest.Watermark(int64(100*k + 50)), AnyOut: true})
	}
	state := exectest.NewState()
	steps[len(steps)-2].Check = func(t *testing.T) {
		if d := &w.delta; len(d.groups) != 0 || len(d.delEnds) != 0 {
			t.Fatalf("after 100 steps: %d groups marked, %d deletions recorded", len(d.groups), len(d.delEnds))
		}
		state.Snapshot(t, w, 1)
		if state.Puts != 2 || state.Deletes != 0 {
			t.Fatalf("first snapshot: %d puts, %d deletes; want the two open groups", state.Puts, state.Deletes)
		}
	}
	runSteps(t, w, env, steps)
}

// TestSessionRestoreKeepsNegativeZeroKeys checks that a group key of -0
// (which the key encodes as 0) comes back as -0.
func TestSessionRestoreKeepsNegativeZeroKeys(t *testing.T) {
	cfg := testConfig(t, "double timestamp(3)", []int{0}, 1, 10, "count(*)")
	w, env := newAgg(t, cfg)
	state := exectest.NewState()
	out := exectest.NewCollector(t, exectest.CollectorOptions{Format: exectest.Millis})
	(&exectest.Runner{Op: w, Env: env, Out: out}).Run(t, []exectest.Step{{
		In:    "double timestamp(3)\n+I -0 0\n+I 0 5\n+I 0 100",
		Want:  "+I -0 0 15 2\n+I -0 100 110 1",
		Check: func(t *testing.T) { state.Snapshot(t, w, 1) },
	}})
	r, env := newAgg(t, cfg)
	(&exectest.Runner{Op: exectest.Restoring(r, state), Env: env, Out: out}).Run(t, []exectest.Step{{
		In:   "double timestamp(3)\n+I 0 8\n+I -0 101",
		Want: "-U -0 0 15 2\n+U -0 0 18 3\n-U -0 100 110 1\n+U -0 100 111 2",
	}})
}
