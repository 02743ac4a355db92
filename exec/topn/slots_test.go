package topn

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// eachSlot calls f with every partition the de-duplication fast path of
// op holds, if any: its slot number and slot.
func eachSlot(op *Operator, f func(id int32, s *slot)) {
	if op.slots == nil {
		return
	}
	for id := range op.slots.high() {
		if s := op.slots.at(id); s.live {
			f(id, s)
		}
	}
}

// checkSlots fails t unless the slot table of op is consistent: every
// partition found by its key in the index, as many indexed as held, the
// dead bytes of the arena those no slot refers to (a key shared with the
// entry held counted once), and the gauge counting the partitions and
// their key bytes.
func checkSlots(t testing.TB, op *Operator) {
	t.Helper()
	st := op.slots
	var n, live, keyBytes int64
	eachSlot(op, func(id int32, s *slot) {
		n++
		pk := []byte(st.partOf(s))
		if s.hash != hashPart(pk) {
			t.Fatalf("slot %d: hash %x of partition %q, want %x", id, s.hash, pk, hashPart(pk))
		}
		if got := st.find(s.hash, pk); got != id {
			t.Fatalf("slot %d: partition %q found in slot %d", id, pk, got)
		}
		live += int64(s.partN) + int64(s.keyN)
		if s.savedN != 0 && !sharesSaved(s) {
			live += int64(s.savedN)
		}
		keyBytes += int64(s.partN) + int64(s.keyN)
	})
	if int64(st.index.Len()) != n || int64(st.len()) != n {
		t.Fatalf("%d slots live, %d indexed, %d counted", n, st.index.Len(), st.len())
	}
	if st.liveBytes() != live {
		t.Fatalf("arena: %d bytes used, %d dead, but the slots refer to %d", st.arena.Used(), st.dead, live)
	}
	g := op.parts.Gauge
	if g.Rows != n || g.Parts != n || g.Entries != n || g.KeyBytes != keyBytes {
		t.Fatalf("gauge %+v for %d partitions of %d key bytes", g, n, keyBytes)
	}
}

// TestDedupArenaCompaction replaces the rows of the same partitions over
// and over with long keys, with snapshots in between (so that entries
// held and rows differ when the arena compacts), and checks the output
// of every chunk (one -U/+U pair per partition whose row changed, and its
// integral against brute force), that the arena is compacted and stays
// within twice its live bytes plus a chunk's and the minimum, that the
// slots stay consistent, and that after all that the incremental
// snapshots hold exactly what a full one writes and a restore of them
// holds the same rows and goes on alike.
func TestDedupArenaCompaction(t *testing.T) {
	const input, parts, chunks = "bigint bigint varchar", 64, 70
	cfg := testConfig(t, input, []int{0}, "1 desc", 1, false, true)
	alloc := exectest.Alloc(t)
	ctx := context.Background()
	op, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	exectest.Open(t, op, exec.NewTestEnv(alloc))
	out := newCollector(t)
	in := exectest.NewIntegral(cfg.Input)
	state := exectest.NewState()
	r := rand.New(rand.NewPCG(1, 2))
	best := map[int]int{} // partition -> its highest score
	// compactions counts the chunks after which the arena was compacted,
	// heldApart those of them after which entries held were not rows.
	score, compactions, heldApart := 0, 0, 0
	chunk := func() (text string, changed int) {
		rows := []string{input}
		before := maps.Clone(best)
		for p := range parts {
			for range 1 + r.IntN(2) {
				score++
				s := score
				if r.IntN(5) == 0 {
					s -= 1 << 30 // cannot enter
				}
				pad := strings.Repeat(string(rune('a'+r.IntN(26))), 3000+r.IntN(2000))
				rows = append(rows, fmt.Sprintf("+I %d %d %s", p, s, pad))
				if b, ok := best[p]; !ok || s > b {
					best[p] = s
				}
			}
		}
		for p, b := range before {
			if best[p] != b {
				changed++
			}
		}
		return strings.Join(rows, "\n"), changed
	}
	feed := func(op *Operator, out *exectest.Collector, text string) string {
		t.Helper()
		ch := exectest.Chunk(t, alloc, text)
		defer ch.Batch.Release()
		if err := op.Process(ctx, 0, ch, out); err != nil {
			t.Fatal(err)
		}
		return out.Take()
	}
	for c := range chunks {
		text, changed := chunk()
		ch := exectest.Chunk(t, alloc, text)
		in.Add(ch)
		ch.Batch.Release()
		used := op.slots.arena.Used()
		got := feed(op, out, text)
		lines := strings.Split(got, "\n")
		switch {
		case c == 0 && (len(lines) != parts || strings.Count(got, "+I ") != parts):
			t.Fatalf("chunk 0: %d partitions created, emitted\n%.300s", parts, got)
		case c > 0 && (len(lines) != 2*changed || strings.Count(got, "-U ") != changed || strings.Count(got, "+U ") != changed):
			t.Fatalf("chunk %d: %d partitions replaced, emitted\n%.300s", c, changed, got)
		}
		if op.slots.arena.Used() < used {
			compactions++
			eachSlot(op, func(_ int32, s *slot) {
				if s.savedN != 0 && !sharesSaved(s) {
					heldApart++
				}
			})
		}
		checkSlots(t, op)
		st := op.slots
		if limit := 2*st.liveBytes() + compactMin + int64(len(text)); st.arena.Used() > limit {
			t.Fatalf("chunk %d: the arena holds %d bytes, %d of them live", c, st.arena.Used(), st.liveBytes())
		}
		if c%10 == 9 || c == chunks-1 {
			if got, want := strings.Join(out.Rows(), "\n"), strings.Join(bruteTopN(cfg, in), "\n"); got != want {
				t.Fatalf("chunk %d: integrated output differs from brute force", c)
			}
		}
		if c%4 == 1 {
			state.Snapshot(t, op, uint64(c))
			checkSlots(t, op)
		}
	}
	if compactions < 2 || heldApart == 0 {
		t.Fatalf("%d compactions, %d entries held apart from rows", compactions, heldApart)
	}
	state.Snapshot(t, op, chunks)

	// The state is what a full snapshot writes.
	forgetSnapshots(op)
	full := exectest.NewState()
	full.Snapshot(t, op, 1)
	if !maps.Equal(flatten(full), flatten(state)) || full.Len() != parts {
		t.Fatalf("incremental snapshots hold %d entries, a full one %d", state.Len(), full.Len())
	}

	// A restore holds the same rows and goes on alike.
	re, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	exectest.Open(t, re, exec.NewTestEnv(alloc))
	if err := re.Restore(ctx, state, exec.KeyGroupsOf(0, 1)); err != nil {
		t.Fatal(err)
	}
	checkSlots(t, re)
	if a, b := slotRows(op), slotRows(re); !maps.Equal(a, b) {
		t.Fatalf("restored %d partitions unlike the %d held", len(b), len(a))
	}
	// Its output is checked by a collector of its own holding what op
	// emitted so far.
	reOut := newCollector(t)
	for _, row := range out.Rows() {
		ch := exectest.Chunk(t, alloc, input+"\n+I "+row)
		if err := reOut.Emit(ctx, ch); err != nil {
			t.Fatal(err)
		}
		ch.Batch.Release()
	}
	reOut.Take()
	text, _ := chunk()
	if a, b := feed(op, out, text), feed(re, reOut, text); a != b || a == "" {
		t.Fatalf("after a restore, emitted\n%.300s\nrather than\n%.300s", b, a)
	}
	checkSlots(t, re)
}

// slotRows returns the sort key of the row of every partition op's
// de-duplication holds, by partition key.
func slotRows(op *Operator) map[string]string {
	m := map[string]string{}
	eachSlot(op, func(_ int32, s *slot) { m[op.slots.partOf(s)] = op.slots.keyOf(s) })
	return m
}
