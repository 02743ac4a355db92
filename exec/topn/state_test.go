package topn

import (
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/brute"
	"github.com/eddysql/eddy/exec/internal/ordtree"
)

func TestRestoreContinuesTheRun(t *testing.T) {
	cases := []randomCase{
		{name: "partitioned-rn", input: "bigint varchar bigint", part: []int{0}, order: "2 desc", limit: 3, rowNumber: true},
		{name: "partitioned", input: "bigint varchar bigint", part: []int{0}, order: "2 desc", limit: 3},
		{name: "two-keys", input: "decimal(10,2) varchar date boolean", part: []int{1, 3}, order: "0, 2 desc", limit: 2, rowNumber: true},
		{name: "double-partition", input: "double bigint varchar", part: []int{0}, order: "1 desc, 2", limit: 2},
		{name: "limit-one", input: "bigint timestamp(3) varchar", part: []int{0}, order: "1 desc", limit: 1},
		{name: "order-in-partition", input: "bigint bigint varchar", part: []int{0, 1}, order: "1, 2 desc", limit: 2, rowNumber: true},
		{name: "append-only-rn", input: "bigint varchar bigint", part: []int{0}, order: "2", limit: 3, rowNumber: true, appendOnly: true},
		{name: "append-only", input: "varchar double", part: []int{0}, order: "1 desc", limit: 2, appendOnly: true},
		{name: "dedup-first", input: "bigint timestamp(3) varchar", part: []int{0}, order: "1", limit: 1, appendOnly: true},
		{name: "dedup-last", input: "varchar timestamp(3) bigint", part: []int{0}, order: "1 desc", limit: 1, appendOnly: true},
		{name: "number-all", input: "bigint varchar bigint", part: []int{0}, order: "2 desc", limit: math.MaxInt64, rowNumber: true},
		{name: "global", input: "double bigint", order: "0", limit: 4},
		{name: "global-rn", input: "double bigint", order: "0 desc", limit: 4, rowNumber: true},
		{name: "global-append-only", input: "bigint bigint", order: "0 desc", limit: 5, appendOnly: true, wide: 1000},
		{name: "deep-tree-rn", input: "bigint bigint", order: "0", limit: 40, rowNumber: true, wide: 400},
		{name: "deep-tree", input: "bigint bigint", part: []int{1}, order: "0 desc", limit: 150, wide: 1000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, tc.input, tc.part, tc.order, tc.limit, tc.rowNumber, tc.appendOnly)
			for seed := range uint64(4) {
				checkRestore(t, cfg, checkpointSteps(tc, rand.New(rand.NewPCG(seed, 13))))
			}
		})
	}
}

// checkpointSteps returns 30 steps of random changes of tc's input.
func checkpointSteps(tc randomCase, r *rand.Rand) []exectest.Step {
	row := brute.RandomRow(r, tc.input, brute.Domains)
	changes := &brute.Changes{Rand: r, AppendOnly: tc.appendOnly, Row: func() string {
		if tc.wide == 0 {
			return row()
		}
		_, rest, _ := strings.Cut(row(), " ")
		return strconv.Itoa(r.IntN(tc.wide)) + " " + rest
	}}
	maxRows := 12
	if tc.wide > 0 {
		maxRows = 60
	}
	var steps []exectest.Step
	for range 30 {
		steps = append(steps, exectest.Step{In: tc.input + "\n" + strings.Join(changes.Next(maxRows), "\n")})
	}
	return steps
}

// checkRestore runs steps through a Top-N of cfg, snapshotting it after
// three of the first two thirds (so that the state holds the sum of
// incremental snapshots), and checks with exectest.CheckRestore that
// instances restored from the last snapshot at parallelism 1, 2 and 3 (a
// global Top-N's at 1) continue the uninterrupted run, whose integral is
// the brute-force Top-N of the input after every step.
func checkRestore(t *testing.T, cfg Config, steps []exectest.Step) {
	t.Helper()
	steps = slices.Clone(steps)
	for k := range steps {
		steps[k].AnyOut = true
	}
	runSteps(t, cfg, steps, nil)
	cut := 2*len(steps)/3 - 1
	exectest.CheckRestore(t, exectest.Restore{
		New: func() exec.Operator {
			op, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			return op
		},
		Steps:     steps,
		Keys:      cfg.Partition,
		Snapshots: []int{cut / 3, 2 * cut / 3, cut},
		Options:   exectest.CollectorOptions{Minimal: true},
	})
}

// TestSnapshotIsIncremental checks that a snapshot writes what changed
// since the previous one: after 10,000 partitions of 3 rows, changing the
// rows of 1% of them (some emptied) writes an entry for each row changed
// and nothing else, a few percent of the bytes of the full snapshot; and
// that a Top-N without partitions, holding 10,000 rows, writes the rows
// 1% of changes touched.
func TestSnapshotIsIncremental(t *testing.T) {
	for _, tc := range []struct {
		name       string
		part       []int
		appendOnly bool
		limit      int64
	}{
		{name: "partitioned", part: []int{0}, limit: 2},
		{name: "append-only", part: []int{0}, appendOnly: true, limit: 3},
		{name: "dedup", part: []int{0}, appendOnly: true, limit: 1},
		{name: "global", limit: 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, "varchar bigint", tc.part, "1 desc", tc.limit, false, tc.appendOnly)
			op, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			alloc, ctx := exectest.Alloc(t), context.Background()
			if err := op.Open(ctx, exec.NewTestEnv(alloc)); err != nil {
				t.Fatal(err)
			}
			defer op.Close()
			feed := func(lines []string) { exectest.Feed(t, op, alloc, "varchar bigint\n"+strings.Join(lines, "\n")) }
			const parts = 10000
			key := func(p int) string { return fmt.Sprintf("part%05d", p) }
			rows := 3
			if tc.appendOnly {
				rows = int(tc.limit)
			}
			var lines []string
			for p := range parts {
				for r := range rows {
					lines = append(lines, fmt.Sprintf("+I %s %d", key(p), 10*r))
				}
			}
			feed(lines)
			// 1% of the partitions get a better row; with retractions, a
			// fifth of those lose their rows instead.
			state := exectest.CheckIncremental(t, exectest.Incremental{Op: op, Full: -1, Change: func() {
				lines = lines[:0]
				for p := 0; p < parts; p += 100 {
					if p%500 == 0 && !tc.appendOnly {
						for r := range rows {
							lines = append(lines, fmt.Sprintf("-D %s %d", key(p), 10*r))
						}
						continue
					}
					lines = append(lines, fmt.Sprintf("+I %s %d", key(p), 1000+p))
				}
				feed(lines)
			}, Changed: exectest.Counts{Puts: -1, Deletes: -1, Len: -1}, Percent: 5})
			if state.Puts+state.Deletes == 0 || state.Puts+state.Deletes > 3*parts/100*rows {
				t.Fatalf("snapshot of 1%%: %d puts, %d deletes", state.Puts, state.Deletes)
			}
			// The state holds what an operator restored from it needs:
			// another snapshot of a restored copy writes the same entries.
			r, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Open(ctx, exec.NewTestEnv(alloc)); err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if err := r.Restore(ctx, state, exec.KeyGroupsOf(0, 1)); err != nil {
				t.Fatal(err)
			}
			again := exectest.NewState()
			r.changes = ordtree.Changes{} // as never snapshotted: write everything
			again.Snapshot(t, r, 1)
			if !maps.Equal(flatten(again), flatten(state)) {
				t.Fatalf("a restored Top-N snapshots %d entries, the state holds %d", again.Len(), state.Len())
			}
		})
	}
}

// flatten returns the entries of a state as "group key" → value.
func flatten(s *exectest.State) map[string]string {
	m := map[string]string{}
	for g, es := range s.Entries {
		for k, v := range es {
			m[fmt.Sprintf("%d %q", g, k)] = string(v)
		}
	}
	return m
}
