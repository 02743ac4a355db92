package topn

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/bitset"
	"github.com/eddysql/eddy/exec/internal/brute"
	"github.com/eddysql/eddy/exec/internal/ordtree"
)

// recorder is a StateWriter that applies a snapshot to a State and lists
// its writes, in order, as "put G KEY" and "delete G KEY".
type recorder struct {
	state *exectest.State
	ops   []string
}

func (r *recorder) Put(g int, key, value []byte) error {
	r.ops = append(r.ops, fmt.Sprintf("put %d %q", g, key))
	return r.state.Put(g, key, value)
}

func (r *recorder) Delete(g int, key []byte) error {
	r.ops = append(r.ops, fmt.Sprintf("delete %d %q", g, key))
	return r.state.Delete(g, key)
}

// dedupHarness runs a de-duplication Top-N (BIGINT partition, BIGINT
// score, the highest kept) and checks the writes of its snapshots.
type dedupHarness struct {
	t     *testing.T
	cfg   Config
	alloc memory.Allocator
	op    *Operator
	state *exectest.State
}

const dedupInput = "bigint bigint"

func newDedupHarness(t *testing.T) *dedupHarness {
	h := &dedupHarness{t: t, cfg: testConfig(t, dedupInput, []int{0}, "1 desc", 1, false, true),
		alloc: exectest.Alloc(t), state: exectest.NewState()}
	if !h.cfg.dedup() {
		t.Fatal("not the de-duplication fast path")
	}
	h.op = h.open(exec.NewTestEnv(h.alloc))
	return h
}

// open returns a new open operator of the harness's configuration.
func (h *dedupHarness) open(env *exec.Env) *Operator {
	h.t.Helper()
	op, err := New(h.cfg)
	if err != nil {
		h.t.Fatal(err)
	}
	if err := op.Open(context.Background(), env); err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { op.Close() })
	return op
}

// feed runs one chunk of rows "p score" through op.
func (h *dedupHarness) feed(op *Operator, rows ...string) {
	h.t.Helper()
	exectest.Feed(h.t, op, h.alloc, dedupInput+"\n+I "+strings.Join(rows, "\n+I "))
}

// entry returns the entry key of the row "p score", as the operator
// encodes it, and the key group the hash exchange routes the row to.
func (h *dedupHarness) entry(row string) (int, string) {
	h.t.Helper()
	c := exectest.Chunk(h.t, h.alloc, dedupInput+"\n+I "+row)
	defer c.Batch.Release()
	enc := h.open(exec.NewTestEnv(h.alloc))
	if err := enc.encode([]exec.Chunk{c}, nil); err != nil {
		h.t.Fatal(err)
	}
	groups := make([]int, 1)
	if _, err := exec.RowKeyGroups([]arrow.Array{c.Batch.Column(0)}, nil, groups); err != nil {
		h.t.Fatal(err)
	}
	return groups[0], string(ordtree.AppendEntryKey(nil, string(enc.pkeys[0]), string(enc.skeys[0])))
}

// put and del return the writes of the entry of a row.
func (h *dedupHarness) put(row string) string {
	g, k := h.entry(row)
	return fmt.Sprintf("put %d %q", g, k)
}

func (h *dedupHarness) del(row string) string {
	g, k := h.entry(row)
	return fmt.Sprintf("delete %d %q", g, k)
}

// snapshot snapshots op into the harness's state and checks that it
// wrote want, in any order, and that the state is then exactly what a
// snapshot of every row op holds writes.
func (h *dedupHarness) snapshot(op *Operator, want ...string) {
	h.t.Helper()
	r := &recorder{state: h.state}
	if err := op.Snapshot(context.Background(), 1, r); err != nil {
		h.t.Fatal(err)
	}
	slices.Sort(r.ops)
	slices.Sort(want)
	if !slices.Equal(r.ops, want) {
		h.t.Fatalf("snapshot wrote\n%s\nwant\n%s", strings.Join(r.ops, "\n"), strings.Join(want, "\n"))
	}
	full := exectest.NewState()
	type entryHeld struct {
		off uint64
		n   uint32
	}
	saved := make(map[int32]entryHeld, op.slots.len())
	eachSlot(op, func(id int32, s *slot) { saved[id] = entryHeld{s.saved, s.savedN} })
	forgetSnapshots(op)
	full.Snapshot(h.t, op, 1)
	// The entries of op's key groups (the state may hold another
	// instance's too).
	held := exectest.NewState()
	for g := op.env.KeyGroups.Lo; g < op.env.KeyGroups.Hi; g++ {
		if es := h.state.Entries[g]; len(es) > 0 {
			held.Entries[g] = es
		}
	}
	if !maps.Equal(flatten(full), flatten(held)) {
		h.t.Fatalf("the state holds %d entries, unlike the %d of a full snapshot", held.Len(), full.Len())
	}
	// Back to as it was: the next snapshot is incremental again.
	op.dedup.written = true
	for id, e := range saved {
		op.slots.setSaved(op.slots.at(id), e.off, e.n)
	}
	checkSlots(h.t, op)
}

// TestDedupSnapshotWritesReplacedRows checks the entries the snapshots of
// the de-duplication fast path write: every row the first time; for a
// partition whose row was replaced, a Delete of the entry written last and
// a Put of its row now, however many times it was replaced in between;
// nothing for a partition whose row stayed; a Put for a new partition.
func TestDedupSnapshotWritesReplacedRows(t *testing.T) {
	h := newDedupHarness(t)
	h.feed(h.op, "1 10", "2 20")
	if len(h.op.dedup.dirty) != 0 {
		t.Fatalf("%d slots listed before the first snapshot", len(h.op.dedup.dirty))
	}
	h.snapshot(h.op, h.put("1 10"), h.put("2 20"))
	h.snapshot(h.op)

	// Replaced once; a row that does not enter changes nothing.
	h.feed(h.op, "1 15", "2 5")
	h.snapshot(h.op, h.del("1 10"), h.put("1 15"))

	// Replaced in two chunks and twice within one, a new partition, and
	// a row equal to the one held.
	h.feed(h.op, "1 16", "2 20")
	h.feed(h.op, "1 17", "3 1", "1 19", "1 18")
	if n := len(h.op.dedup.dirty); n != 2 {
		t.Fatalf("%d slots listed, want 2 (each changed one once)", n)
	}
	h.snapshot(h.op, h.del("1 15"), h.put("1 19"), h.put("3 1"))
	h.snapshot(h.op)
}

// TestDedupRestoredRowsCountAsWritten checks that a restored partition's
// row is the entry checkpoints hold, in the key group it was read from:
// a snapshot right after the restore writes nothing, and one after the
// row is replaced deletes the restored entry and puts the new row, at
// parallelism 1 and on each of two instances.
func TestDedupRestoredRowsCountAsWritten(t *testing.T) {
	for _, p := range []int{1, 2} {
		for i := range p {
			t.Run(fmt.Sprintf("instance %d of %d", i, p), func(t *testing.T) {
				h := newDedupHarness(t)
				var rows, want []string
				for k := range 40 {
					rows = append(rows, fmt.Sprintf("%d 10", k))
					want = append(want, h.put(rows[k]))
				}
				h.feed(h.op, rows...)
				h.snapshot(h.op, want...)
				for k := range 40 {
					rows[k] = fmt.Sprintf("%d %d", k, 20+k%3)
				}
				h.feed(h.op, rows...) // the entries are then of incremental snapshots
				want = want[:0]
				for _, row := range rows {
					want = append(want, h.put(row), h.del(strings.Fields(row)[0]+" 10"))
				}
				h.snapshot(h.op, want...)

				env := exec.NewTestEnv(h.alloc)
				env.Instance, env.Parallelism, env.KeyGroups = i, p, exec.KeyGroupsOf(i, p)
				r := h.open(env)
				if err := r.Restore(context.Background(), h.state, env.KeyGroups); err != nil {
					t.Fatal(err)
				}
				h.snapshot(r)
				want, rows = want[:0], rows[:0]
				for k := range 40 {
					if g, _ := h.entry(fmt.Sprintf("%d 0", k)); env.KeyGroups.Contains(g) {
						old, row := fmt.Sprintf("%d %d", k, 20+k%3), fmt.Sprintf("%d 30", k)
						rows = append(rows, row)
						want = append(want, h.del(old), h.put(row))
					}
				}
				if len(rows) == 0 {
					t.Fatal("the instance restored no partition")
				}
				h.feed(r, rows...)
				h.snapshot(r, want...)
			})
		}
	}
}

// TestDedupKeyGroupsAreTheExchanges checks that the key group kept with
// every partition of the de-duplication fast path is the one the hash
// exchange routes its rows to (exec.RowKeyGroups over the input's
// PARTITION BY columns), and the one a snapshot computed from the
// partition key decoded into Arrow arrays, for random rows of every
// type, with NULLs, -0, NaN and infinities, partitions created at every
// position of chunks that also replace rows.
func TestDedupKeyGroupsAreTheExchanges(t *testing.T) {
	const input = "bigint varchar double decimal(10,2) date boolean timestamp(3) bigint"
	domains := maps.Clone(brute.Domains)
	domains["double"] = append(slices.Clone(domains["double"]), "-0")
	var wide []string
	for k := range 300 {
		wide = append(wide, strconv.Itoa(k*7919-1000000))
	}
	domains["bigint"] = append(wide, "NULL")
	for _, part := range [][]int{{0}, {1}, {2}, {3, 4}, {5, 6, 0}, {2, 1, 2}, {7, 0}} {
		t.Run(fmt.Sprint(part), func(t *testing.T) {
			cfg := testConfig(t, input, part, "7 desc", 1, false, true)
			alloc := exectest.Alloc(t)
			op, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if err := op.Open(ctx, exec.NewTestEnv(alloc)); err != nil {
				t.Fatal(err)
			}
			defer op.Close()
			r := rand.New(rand.NewPCG(uint64(len(part)), uint64(part[0])))
			row := brute.RandomRow(r, input, domains)
			routed := map[string]int{} // by partition key: the exchange's group
			out := exectest.NewCollector(t, exectest.CollectorOptions{Minimal: true})
			for range 20 {
				var lines []string
				for range 1 + r.IntN(64) {
					lines = append(lines, "+I "+row())
				}
				c := exectest.Chunk(t, alloc, input+"\n"+strings.Join(lines, "\n"))
				cols := make([]arrow.Array, len(part))
				for i, ord := range part {
					cols[i] = c.Batch.Column(ord)
				}
				groups := make([]int, c.NumRows())
				if _, err := exec.RowKeyGroups(cols, nil, groups); err != nil {
					t.Fatal(err)
				}
				if err := op.encode([]exec.Chunk{c}, nil); err != nil {
					t.Fatal(err)
				}
				for i, g := range groups {
					routed[string(op.pkeys[i])] = g
				}
				if err := op.Process(ctx, 0, c, out); err != nil {
					t.Fatal(err)
				}
				c.Batch.Release()
			}
			if op.slots.len() != len(routed) || len(routed) < 5 {
				t.Fatalf("%d partitions held, %d routed", op.slots.len(), len(routed))
			}
			decoded := decodedKeyGroups(t, op)
			eachSlot(op, func(_ int32, s *slot) {
				pk := op.slots.partOf(s)
				if int(s.group) != routed[pk] || int(s.group) != decoded[pk] {
					t.Fatalf("partition %q: key group %d, routed to %d, decoded %d", pk, s.group, routed[pk], decoded[pk])
				}
			})
		})
	}
}

// decodedKeyGroups returns the key group of every partition of op
// computed as snapshots did before partitions kept theirs: exec.HashRows
// over the PARTITION BY columns decoded from the partition key.
func decodedKeyGroups(t *testing.T, op *Operator) map[string]int {
	t.Helper()
	var pks []string
	eachSlot(op, func(_ int32, s *slot) { pks = append(pks, op.slots.partOf(s)) })
	for _, pk := range pks {
		if err := op.decodeKey(op.layout.Part, pk); err != nil {
			t.Fatal(err)
		}
	}
	arrs := make([]arrow.Array, len(op.cfg.Input))
	for _, f := range op.layout.Part {
		arrs[f.Ord] = op.builders[f.Ord].NewArray()
	}
	cols := make([]arrow.Array, len(op.cfg.Partition))
	for i, ord := range op.cfg.Partition {
		cols[i] = arrs[ord]
	}
	groups := make([]int, len(pks))
	_, err := exec.RowKeyGroups(cols, nil, groups)
	for _, a := range arrs {
		if a != nil {
			a.Release()
		}
	}
	op.resetBuilders()
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]int{}
	for i, pk := range pks {
		m[pk] = groups[i]
	}
	return m
}

// TestDedupUnhashablePartitionFailsOnlySnapshots checks that a partition
// column the exchange cannot hash (of type NULL) fails the snapshot, as
// it did when snapshots decoded the keys to hash them, and not the
// processing of the chunk that created the partition.
func TestDedupUnhashablePartitionFailsOnlySnapshots(t *testing.T) {
	cfg := testConfig(t, "null bigint", []int{0}, "1 desc", 1, false, true)
	runSteps(t, cfg, []exectest.Step{
		{In: "null bigint\n+I NULL 1\n+I NULL 3", Want: "\n+I NULL 3"},
		{In: "null bigint\n+I NULL 4", Want: "\n-U NULL 3\n+U NULL 4"},
	}, nil)
	op, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	alloc := exectest.Alloc(t)
	if err := op.Open(context.Background(), exec.NewTestEnv(alloc)); err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	exectest.Feed(t, op, alloc, "null bigint\n+I NULL 1")
	err = op.Snapshot(context.Background(), 1, exectest.NewState())
	if err == nil || !strings.Contains(err.Error(), "top-n: snapshot: exec: cannot hash a column of type null") {
		t.Fatalf("snapshot: %v; want the column reported unhashable", err)
	}
}

// TestDedupSnapshotInStepsHoldsTheBarrier checks de-duplication's
// snapshots written in steps (exec.DeferredSnapshotter): begun at a
// barrier and written a few entries at a time while chunks replace rows
// of partitions still to be written and create new ones, the snapshot
// writes exactly the changes as of the barrier; the next one writes what
// changed after it.
func TestDedupSnapshotInStepsHoldsTheBarrier(t *testing.T) {
	ctx := context.Background()
	h := newDedupHarness(t)
	const n = 200
	rows := func(score func(k int) int) []string {
		var out []string
		for k := range n {
			if s := score(k); s > 0 {
				out = append(out, fmt.Sprintf("%d %d", k, s))
			}
		}
		return out
	}
	var want []string
	for _, row := range rows(func(int) int { return 10 }) {
		want = append(want, h.put(row))
	}
	h.feed(h.op, rows(func(int) int { return 10 })...)
	h.snapshot(h.op, want...)

	h.feed(h.op, rows(func(int) int { return 20 })...)
	want = want[:0]
	for k := range n {
		want = append(want, h.del(fmt.Sprintf("%d 10", k)), h.put(fmt.Sprintf("%d 20", k)))
	}
	r := &recorder{state: h.state}
	pending, err := h.op.BeginSnapshot(ctx, 2, r)
	if err != nil || !pending {
		t.Fatalf("BeginSnapshot: pending %v, %v; want a pending snapshot", pending, err)
	}
	step := func(budget int) bool {
		t.Helper()
		done, err := h.op.SnapshotStep(ctx, budget)
		if err != nil {
			t.Fatal(err)
		}
		return done
	}
	step(10)
	// Replaced after the barrier: the even partitions, then every third;
	// new partitions, some taking the numbers of none dropped.
	h.feed(h.op, rows(func(k int) int { return 30 * (1 - k%2) })...)
	step(7)
	h.feed(h.op, "1000 5", "1001 6")
	step(3)
	h.feed(h.op, rows(func(k int) int {
		if k%3 == 0 {
			return 40
		}
		return 0
	})...)
	for !step(7) {
	}
	slices.Sort(r.ops)
	slices.Sort(want)
	if !slices.Equal(r.ops, want) {
		t.Fatalf("the snapshot written in steps wrote\n%s\nwant the barrier's\n%s", strings.Join(r.ops, "\n"), strings.Join(want, "\n"))
	}
	if p := &h.op.dedup.pend; !bitset.Empty(p.bits) {
		t.Fatal("a slot is still pending after the snapshot was written")
	}

	want = []string{h.put("1000 5"), h.put("1001 6")}
	for k := range n {
		final := 20
		if k%2 == 0 {
			final = 30
		}
		if k%3 == 0 {
			final = 40
		}
		if final != 20 {
			want = append(want, h.del(fmt.Sprintf("%d 20", k)), h.put(fmt.Sprintf("%d %d", k, final)))
		}
	}
	h.snapshot(h.op, want...)
}

// TestDedupFirstSnapshotInSteps checks the first snapshot, of every
// partition, written in steps while chunks replace rows: it writes every
// row as of the barrier.
func TestDedupFirstSnapshotInSteps(t *testing.T) {
	ctx := context.Background()
	h := newDedupHarness(t)
	var rows, want []string
	for k := range 100 {
		rows = append(rows, fmt.Sprintf("%d 10", k))
		want = append(want, h.put(rows[k]))
	}
	h.feed(h.op, rows...)
	r := &recorder{state: h.state}
	if pending, err := h.op.BeginSnapshot(ctx, 1, r); err != nil || !pending {
		t.Fatalf("BeginSnapshot: pending %v, %v; want a pending snapshot", pending, err)
	}
	for k := range 100 {
		rows[k] = fmt.Sprintf("%d 20", k)
	}
	h.feed(h.op, rows[50:]...)
	for done := false; !done; {
		var err error
		if done, err = h.op.SnapshotStep(ctx, 5); err != nil {
			t.Fatal(err)
		}
		h.feed(h.op, "500 1")
	}
	slices.Sort(r.ops)
	slices.Sort(want)
	if !slices.Equal(r.ops, want) {
		t.Fatalf("the first snapshot written in steps wrote\n%s\nwant\n%s", strings.Join(r.ops, "\n"), strings.Join(want, "\n"))
	}
	want = []string{h.put("500 1")}
	for k := 50; k < 100; k++ {
		want = append(want, h.del(fmt.Sprintf("%d 10", k)), h.put(rows[k]))
	}
	h.snapshot(h.op, want...)
}
