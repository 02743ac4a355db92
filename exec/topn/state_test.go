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

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/brute"
	"github.com/eddysql/eddy/exec/internal/ordtree"
)

// restoring is a Top-N that restores from a state as it opens, as the
// runtime restores an operator after Open and before any input.
type restoring struct {
	*Operator
	state  *exectest.State
	groups exec.KeyGroupRange
}

func (r *restoring) Open(ctx context.Context, env *exec.Env) error {
	if err := r.Operator.Open(ctx, env); err != nil {
		return err
	}
	return r.Operator.Restore(ctx, r.state, r.groups)
}

// recording runs an operator and records, by step, its output lines,
// draining the collector.
type recording struct {
	exec.Operator
	out   *exectest.Collector
	lines [][]string
}

func (r *recording) Process(ctx context.Context, in int, c exec.Chunk, _ exec.Emitter) error {
	r.lines = append(r.lines, nil)
	return r.Operator.Process(ctx, in, c, r)
}

func (r *recording) Emit(ctx context.Context, c exec.Chunk) error {
	if err := r.out.Emit(ctx, c); err != nil {
		return err
	}
	k := len(r.lines) - 1
	r.lines[k] = append(r.lines[k], strings.Split(r.out.Take(), "\n")...)
	return nil
}

// routed returns the chunk text of the rows that instance i of p receives
// through the hash exchange on cfg's partition columns, and whether there
// is any.
func routed(t *testing.T, cfg Config, text string, i, p int) (string, bool) {
	alloc := exectest.Alloc(t)
	ch := exectest.Chunk(t, alloc, text)
	defer ch.Batch.Release()
	cols := make([]arrow.Array, len(cfg.Partition))
	for c, ord := range cfg.Partition {
		cols[c] = ch.Batch.Column(ord)
	}
	hashes := make([]uint64, ch.NumRows())
	if err := exec.HashRows(cols, hashes); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(text), "\n")
	out := []string{lines[0]}
	for r, h := range hashes {
		if exec.InstanceForKeyGroup(exec.KeyGroup(h), p) == i {
			out = append(out, lines[1+r])
		}
	}
	return strings.Join(out, "\n"), len(out) > 1
}

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
// incremental snapshots), then restores the last snapshot into 1, 2 and 3
// instances (a global Top-N into one), each owning its key groups and fed
// the rest of the rows the exchange routes to it: at every step the union
// of their outputs is the uninterrupted run's, and so is the final
// integral, which is also the brute-force Top-N of the whole input.
func checkRestore(t *testing.T, cfg Config, steps []exectest.Step) {
	t.Helper()
	alloc := exectest.Alloc(t)
	state := exectest.NewState()
	cut := 2*len(steps)/3 - 1
	u, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ref := &recording{Operator: u, out: newCollector(t)}
	refSteps := slices.Clone(steps)
	for k := range refSteps {
		refSteps[k].AnyOut = true
		if k == cut/3 || k == 2*cut/3 || k == cut {
			epoch := uint64(k)
			refSteps[k].Check = func(t *testing.T) { state.Snapshot(t, u, epoch) }
		}
	}
	in := exectest.NewIntegral(cfg.Input)
	(&exectest.Runner{Op: ref, Env: exec.NewTestEnv(alloc), Out: newCollector(t),
		Inputs: []*exectest.Integral{in}}).Run(t, refSteps)
	if g, w := strings.Join(ref.out.Rows(), "\n"), strings.Join(bruteTopN(cfg, in), "\n"); g != w {
		t.Fatalf("uninterrupted run: integrated output\n%s\nbrute force\n%s", g, w)
	}

	ps := []int{1, 2, 3}
	if len(cfg.Partition) == 0 {
		ps = ps[:1]
	}
	for _, p := range ps {
		out := newCollector(t)
		prefix := slices.Clone(steps[:cut+1])
		for k := range prefix {
			prefix[k].AnyOut = true
		}
		first, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		(&exectest.Runner{Op: first, Env: exec.NewTestEnv(alloc), Out: out}).Run(t, prefix)
		got := make([][]string, len(steps))
		for i := range p {
			env := exec.NewTestEnv(alloc)
			env.Parallelism, env.KeyGroups = p, exec.KeyGroupsOf(i, p)
			op, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			inst := &recording{Operator: &restoring{Operator: op, state: state, groups: env.KeyGroups}, out: out}
			var isteps []exectest.Step
			var ks []int
			for k := cut + 1; k < len(steps); k++ {
				text, ok := routed(t, cfg, steps[k].In, i, p)
				if !ok {
					continue
				}
				isteps = append(isteps, exectest.Step{In: text, AnyOut: true})
				ks = append(ks, k)
			}
			(&exectest.Runner{Op: inst, Env: env, Out: newCollector(t)}).Run(t, isteps)
			for j, k := range ks {
				got[k] = append(got[k], inst.lines[j]...)
			}
		}
		for k := cut + 1; k < len(steps); k++ {
			want := slices.Clone(ref.lines[k])
			slices.Sort(want)
			slices.Sort(got[k])
			if !slices.Equal(got[k], want) {
				t.Fatalf("p=%d step %d: restored instances emitted\n%s\nuninterrupted\n%s", p, k,
					strings.Join(got[k], "\n"), strings.Join(want, "\n"))
			}
		}
		if g, w := strings.Join(out.Rows(), "\n"), strings.Join(ref.out.Rows(), "\n"); g != w {
			t.Fatalf("p=%d: integrated output\n%s\nuninterrupted\n%s", p, g, w)
		}
	}
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
			feed := func(lines []string) {
				t.Helper()
				ch := exectest.Chunk(t, alloc, "varchar bigint\n"+strings.Join(lines, "\n"))
				defer ch.Batch.Release()
				if err := op.Process(ctx, 0, ch, exec.EmitterFunc(func(_ context.Context, c exec.Chunk) error {
					c.Batch.Release()
					return nil
				})); err != nil {
					t.Fatal(err)
				}
			}
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
			state := exectest.NewState()
			state.Snapshot(t, op, 1)
			full, held := state.Bytes, state.Len()
			if state.Puts != held || state.Deletes != 0 || held == 0 {
				t.Fatalf("first snapshot: %d puts, %d deletes, %d entries", state.Puts, state.Deletes, held)
			}
			state.Snapshot(t, op, 2)
			if state.Puts != 0 || state.Deletes != 0 {
				t.Fatalf("snapshot of no change: %d puts, %d deletes", state.Puts, state.Deletes)
			}
			// 1% of the partitions get a better row; with retractions, a
			// fifth of those lose their rows instead.
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
			state.Snapshot(t, op, 3)
			if state.Puts+state.Deletes == 0 || state.Puts+state.Deletes > 3*parts/100*rows {
				t.Fatalf("snapshot of 1%%: %d puts, %d deletes", state.Puts, state.Deletes)
			}
			t.Logf("full snapshot %d bytes (%d entries), 1%% of the partitions %d bytes (%d puts, %d deletes)",
				full, held, state.Bytes, state.Puts, state.Deletes)
			if state.Bytes*100 > 5*full {
				t.Fatalf("snapshot of 1%% wrote %d bytes, the full one %d", state.Bytes, full)
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
