package agg

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/exec/internal/brute"
)

// checkpointCase is an aggregate and the steps of its random input.
type checkpointCase struct {
	name       string
	input      string
	keys       []int
	calls      []string
	appendOnly bool
	close      *WindowClose
	part       []int // HashConfig.PartKeys
}

// checkpointCases are the aggregates the checkpoint tests run.
var checkpointCases = []checkpointCase{
	{name: "bigint-key", input: "bigint bigint", keys: []int{0}, calls: []string{"count(*)", "count(1)", "sum(1)",
		"avg(1)", "min(1)", "max(1)", "count(distinct 1)", "sum(distinct 1)"}},
	{name: "string-key-doubles", input: "varchar double", keys: []int{0}, calls: []string{"count(*)", "sum(1)",
		"avg(1)", "min(1)", "max(1)", "count(distinct 1)"}},
	{name: "two-keys-decimals", input: "bigint varchar decimal(10,2)", keys: []int{1, 0}, calls: []string{"sum(2)",
		"avg(2)", "min(2)", "max(2)", "count(distinct 2)", "min(1)", "approx_count_distinct(1)"}},
	{name: "int-double-keys", input: "bigint double bigint", keys: []int{1, 0}, calls: []string{"count(*)",
		"min(2)", "count(distinct 2)"}, appendOnly: true},
	{name: "temporal-keys", input: "date timestamp(3) boolean", keys: []int{0, 2}, calls: []string{"count(*)",
		"min(1)", "max(1)"}},
	{name: "append-only", input: "bigint varchar bigint", keys: []int{0}, calls: []string{"min(1)", "max(1)",
		"min(2)", "max(2)", "sum(2)", "approx_count_distinct(1)", "approx_count_distinct(2)"}, appendOnly: true},
	{name: "global", input: "bigint double", calls: []string{"count(*)", "sum(0)", "avg(1)", "max(0)",
		"min(1)", "count(distinct 0)"}},
	{name: "window-emit-on-close", input: "bigint varchar bigint", keys: []int{0, 1}, calls: []string{"count(*)",
		"sum(2)", "max(2)", "approx_count_distinct(2)"}, appendOnly: true, close: &WindowClose{Key: 0, Offset: 10, Emit: true}},
	{name: "window-updates", input: "bigint varchar bigint", keys: []int{1, 0}, calls: []string{"count(*)",
		"min(2)", "avg(2)"}, close: &WindowClose{Key: 1, Offset: 10}},
	{name: "window-int-key", input: "bigint bigint", keys: []int{0}, calls: []string{"count(*)", "max(1)"},
		appendOnly: true, close: &WindowClose{Key: 0, Offset: 20, Emit: true}},
	// Partitioned by the key beside the window, as an exchange below a
	// HOP window assignment hashes (PartKeys).
	{name: "window-partitioned", input: "bigint varchar bigint", keys: []int{0, 1}, calls: []string{"count(*)", "sum(2)"},
		appendOnly: true, close: &WindowClose{Key: 0, Offset: 10}, part: []int{1}},
}

func TestHashAggRestoreContinuesTheRun(t *testing.T) {
	for _, tc := range checkpointCases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, tc.input, tc.keys, tc.calls...)
			cfg.AppendOnly, cfg.Close, cfg.PartKeys = tc.appendOnly, tc.close, tc.part
			for seed := range uint64(4) {
				checkRestore(t, cfg, checkpointSteps(tc, rand.New(rand.NewPCG(seed, 11))))
			}
		})
	}
}

// checkpointSteps returns 30 random steps of tc's input: chunks of random
// changes and, for a windowed aggregate, windows that advance with the
// steps, some rows late, and a watermark every other step.
func checkpointSteps(tc checkpointCase, r *rand.Rand) []exectest.Step {
	var steps []exectest.Step
	row := brute.RandomRow(r, tc.input, domains)
	k := 0
	if tc.close != nil {
		// The window column (the group key tc.close.Key names, a bigint)
		// holds window starts around 5·k.
		col, base := tc.keys[tc.close.Key], row
		row = func() string {
			f := strings.Fields(base())
			f[col] = fmt.Sprint(5*k + 5*(r.IntN(6)-4)) // some late: a watermark passed 5·k-5
			return strings.Join(f, " ")
		}
	}
	changes := &brute.Changes{Rand: r, Row: row, AppendOnly: tc.appendOnly}
	for ; k < 30; k++ {
		if tc.close != nil && k%2 == 1 {
			steps = append(steps, exectest.Step{Ctl: exectest.Watermark(int64(5 * k))})
			continue
		}
		steps = append(steps, exectest.Step{In: tc.input + "\n" + strings.Join(changes.Next(12), "\n")})
	}
	return steps
}

// checkRestore runs steps through an aggregate of cfg, snapshotting it
// after three of the first two thirds (so that the state holds the sum of
// incremental deltas; the last follows a watermark when there are some,
// so that the restored instances see rows before a watermark, some late),
// and checks with exectest.CheckRestore that instances restored from the
// last snapshot at parallelism 1, 2 and 3 (a global aggregate's at 1)
// continue the uninterrupted run.
func checkRestore(t *testing.T, cfg HashConfig, steps []exectest.Step) {
	t.Helper()
	cut := 2*len(steps)/3 - 1
	exectest.CheckRestore(t, exectest.Restore{
		New:       func() exec.Operator { return NewHashAgg(cfg) },
		Steps:     steps,
		Keys:      partitionedBy(cfg),
		Snapshots: []int{cut / 3, 2 * cut / 3, cut},
		Options:   exectest.CollectorOptions{KeyCols: len(cfg.GroupKeys), Global: len(cfg.GroupKeys) == 0},
	})
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
			key := func(g int) string {
				if tc.input == "varchar bigint" {
					return fmt.Sprintf("key%05d", g)
				}
				return fmt.Sprint(g)
			}
			feed := func(lines []string) { exectest.Feed(t, h, h.env.Alloc, tc.input+"\n"+strings.Join(lines, "\n")) }
			const groups = 10000
			var lines []string
			for g := range groups {
				lines = append(lines, fmt.Sprintf("+I %s %d", key(g), g%7), fmt.Sprintf("+I %s %d", key(g), g%5))
			}
			feed(lines)
			// 1%: 80 groups get a row, 20 lose both of theirs.
			exectest.CheckIncremental(t, exectest.Incremental{Op: h, Full: groups, Change: func() {
				lines = lines[:0]
				for g := 0; g < groups; g += 100 {
					if g%500 == 0 {
						lines = append(lines, fmt.Sprintf("-D %s %d", key(g), g%7), fmt.Sprintf("-D %s %d", key(g), g%5))
					} else {
						lines = append(lines, fmt.Sprintf("+I %s 100", key(g)))
					}
				}
				feed(lines)
			}, Changed: exectest.Counts{Puts: 80, Deletes: 20, Len: groups - 20}, Percent: 2})
		})
	}
}

// TestHashAggRestoreRefusesCorruptState checks that a corrupt entry (a
// truncated state, a key that is not a group key, trailing bytes) makes
// Restore fail with an error naming the operator, and that a snapshot or
// a restore before Open fails instead of panicking.
func TestHashAggRestoreRefusesCorruptState(t *testing.T) {
	cfg := testConfig(t, "bigint varchar", []int{1}, "count(*)", "min(0)", "count(distinct 0)")
	state := exectest.SnapshotAfter(t, NewHashAgg(cfg), exectest.CollectorOptions{KeyCols: len(cfg.GroupKeys)},
		"bigint varchar\n+I 1 a\n+I 2 a\n+I 3 b\n+I 4 b\n+I 5 b\n+I 6 b\n+I 7 b")
	g, key, good := state.Any()
	exectest.CheckDamaged(t, exectest.Damaged{OpenFirst: true,
		New: func() exec.Operator { return NewHashAgg(cfg) }, State: state, Wrap: errRestore, Says: "hash aggregate",
		Damages: []exectest.Damage{
			{Name: "truncated", Edit: func(s *exectest.State) { s.Entries[g][key] = good[:len(good)-1] }, Want: accum.ErrCorruptState},
			{Name: "trailing", Edit: func(s *exectest.State) { s.Entries[g][key] = append(slices.Clone(good), 0) }},
			{Name: "bad key", Edit: func(s *exectest.State) { delete(s.Entries[g], key); s.Entries[g]["\x01\x05"] = good }, Want: errEntryKey},
			{Name: "zero rows", Edit: func(s *exectest.State) { s.Entries[g][key] = append([]byte{0}, good[1:]...) }},
		},
	})
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

// partitionedBy returns the input columns the exchange in front of an
// aggregate of cfg hashes: its group keys, or those PartKeys names.
func partitionedBy(cfg HashConfig) []int {
	if cfg.PartKeys == nil {
		return cfg.GroupKeys
	}
	out := make([]int, len(cfg.PartKeys))
	for i, k := range cfg.PartKeys {
		out[i] = cfg.GroupKeys[k]
	}
	return out
}

// TestIntKeyGroupsAsTheExchange checks that the key groups a snapshot
// writes an integer-like group key's entries under (read from the entry
// keys, exec.IntKeyGroup) are those the hash exchange gives the rows, for
// every integer-like type, NULL and negative values included.
func TestIntKeyGroupsAsTheExchange(t *testing.T) {
	for _, c := range []struct{ typ, vals string }{
		{"bigint", "-9000000000000 -1 0 1 7 NULL 123456789012"},
		{"date", "1969-12-31 1970-01-01 2024-02-29 NULL 2100-01-01"},
		{"timestamp(3)", "1960-05-01T10:00:00.250 1970-01-01T00:00:00 2024-02-29T23:59:59.999 NULL"},
		{"boolean", "true false NULL"},
	} {
		cfg := testConfig(t, c.typ+" bigint", []int{0}, "count(*)")
		h := NewHashAgg(cfg)
		env := exec.NewTestEnv(exectest.Alloc(t))
		if err := h.Open(context.Background(), env); err != nil {
			t.Fatal(err)
		}
		if !h.grouper.ints {
			t.Fatalf("%s: key groups not read from the integer keys", c.typ)
		}
		text := c.typ + " bigint"
		for _, v := range strings.Fields(c.vals) {
			text += "\n+I " + v + " 1"
		}
		ch := exectest.Chunk(t, env.Alloc, text)
		want := make([]int, ch.Batch.NumRows())
		if _, err := exec.RowKeyGroups([]arrow.Array{ch.Batch.Column(0)}, nil, want); err != nil {
			t.Fatal(err)
		}
		out := exectest.NewCollector(t, exectest.CollectorOptions{})
		if err := h.Process(context.Background(), 0, ch, out); err != nil {
			t.Fatal(err)
		}
		// Each row is its own group: look each up by its key.
		var keys []byte
		var ends []int
		for i := range ch.Batch.NumRows() {
			var slot int32
			var created bool
			if d := types.DatumAt(ch.Batch.Column(0), int(i), cfg.Input[0]); d.Null {
				slot, created = h.keys.ints.FindNull()
			} else {
				slot, created = h.keys.ints.Find(d.I)
			}
			if created {
				t.Fatalf("%s: row %d has no group", c.typ, i)
			}
			keys = h.keys.appendEntryKey(keys, slot)
			ends = append(ends, len(keys))
		}
		ch.Batch.Release()
		if err := h.keyGroups(keys, 0, ends); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(h.delta.groups, want) {
			t.Fatalf("%s: key groups %v, the exchange's %v", c.typ, h.delta.groups, want)
		}
		h.Close()
	}
}

// TestEncodedKeyGroupsAsTheExchange checks that the key group a snapshot
// finds from an encoded group key of several columns — every kind, NULLs,
// -0 and NaN, strings long enough for a two-byte length — is the one the
// exchange computes over the rows' columns, for the key columns it hashes
// (all of them, or PartKeys in another order).
func TestEncodedKeyGroupsAsTheExchange(t *testing.T) {
	long := strings.Repeat("x", 300)
	text := "bigint double decimal(10,2) varchar date boolean bigint" +
		"\n+I 1 1.5 10.25 a 2024-02-29 true 1" +
		"\n+I -7 -0 -3.10 " + long + " 1969-12-31 false 1" +
		"\n+I NULL 0 NULL b NULL NULL 1" +
		"\n+I 9000000000000 NaN 0.01 NULL 1970-01-01 true 1" +
		"\n+I 0 NULL 99999999.99 é 2100-01-01 false 1" +
		"\n+I 1 -1e300 -0.01 " + long + "y NULL true 1"
	for _, part := range [][]int{nil, {2, 0}, {3}, {1, 5}} {
		cfg := testConfig(t, "bigint double decimal(10,2) varchar date boolean bigint", []int{0, 1, 2, 3, 4, 5}, "count(*)")
		cfg.PartKeys = part
		h := NewHashAgg(cfg)
		env := exec.NewTestEnv(exectest.Alloc(t))
		if err := h.Open(context.Background(), env); err != nil {
			t.Fatal(err)
		}
		ch := exectest.Chunk(t, env.Alloc, text)
		if err := h.keys.encode(ch.Batch); err != nil {
			t.Fatal(err)
		}
		keys, ends := slices.Clone(h.keys.buf[:h.keys.off[len(h.keys.off)-1]]), slices.Clone(h.keys.off[1:])
		if err := h.keyGroups(keys, 0, ends); err != nil {
			t.Fatal(err)
		}
		cols := part
		if cols == nil {
			cols = []int{0, 1, 2, 3, 4, 5}
		}
		arrs := make([]arrow.Array, len(cols))
		for i, c := range cols {
			arrs[i] = ch.Batch.Column(c)
		}
		want := make([]int, ch.Batch.NumRows())
		if _, err := exec.RowKeyGroups(arrs, nil, want); err != nil {
			t.Fatal(err)
		}
		if got := h.delta.groups[:len(want)]; !slices.Equal(got, want) {
			t.Errorf("part keys %v: key groups from the encoded keys %v, the exchange's %v", part, got, want)
		}
		ch.Batch.Release()
		h.Close()
	}
}
