package agg

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/internal/giveway"
)

// backgroundPair returns two aggregates of the same configuration on
// clk's time: one to snapshot at once, one to snapshot in the background.
type backgroundPair func(t *testing.T, clk *fakeClock) (*HashAgg, *exec.Env, *exectest.Collector)

// openOn returns a backgroundPair of aggregates of the configuration
// cfg makes, opened on clk's time.
func openOn(cfg func(t *testing.T) HashConfig) backgroundPair {
	return func(t *testing.T, clk *fakeClock) (*HashAgg, *exec.Env, *exectest.Collector) {
		t.Helper()
		h := NewHashAgg(cfg(t))
		env := clk.env(t)
		if err := h.Open(context.Background(), env); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close() })
		return h, env, exectest.NewCollector(t, exectest.CollectorOptions{})
	}
}

// aggOf returns a backgroundPair of aggregates over input, grouped by
// keys, of which the exchange hashes part (nil: all), computing calls.
func aggOf(input string, keys, part []int, calls ...string) backgroundPair {
	return openOn(func(t *testing.T) HashConfig {
		cfg := testConfig(t, input, keys, calls...)
		cfg.PartKeys = part
		return cfg
	})
}

// slowWriter makes the background writer yield or sleep now and then,
// between words and in the middle of a copy, so that its words
// interleave with the aggregate's batches and the aggregate waits for
// copies of the words it changes.
func slowWriter(t *testing.T) {
	bgWordHook = func(int) {
		switch rand.IntN(32) {
		case 0:
			time.Sleep(20 * time.Microsecond)
		case 1, 2, 3, 4:
			runtime.Gosched()
		}
	}
	bgCopyHook = func(int) {
		if rand.IntN(64) == 0 {
			time.Sleep(50 * time.Microsecond)
		}
	}
	t.Cleanup(func() { bgWordHook, bgCopyHook = nil, nil })
}

// TestClaimWaitsForTheCopy checks that the aggregate, about to change a
// slot pending at the barrier whose word the writer copies, waits until
// the copy ends, and only then; and that it looks at the shared bits once
// a slot.
func TestClaimWaitsForTheCopy(t *testing.T) {
	// Pending at the barrier: slots 5 of word 1, 7 of word 2, 0 of word 3.
	b := &bgSnap{bits: []uint64{0, 1 << 5, 1 << 7, 1}}
	b.own = slices.Clone(b.bits)
	b.busy.Store(-1)
	if !b.claim(1, 1<<5) || b.bits[1] != 0 {
		t.Fatal("a pending slot was not claimed")
	}
	b.bits[1] = 1 << 5 // as if still pending: the aggregate looked already
	if b.claim(1, 1<<5) || b.bits[1] != 1<<5 {
		t.Fatal("a slot claimed before was looked at again")
	}
	if b.claim(2, 1<<5) {
		t.Fatal("a slot not pending was claimed")
	}
	// The writer copies word 2, having taken its bits.
	b.copying.Lock()
	b.busy.Store(2)
	b.bits[2] = 0
	if b.claim(3, 1) == false || b.bits[3] != 0 {
		t.Fatal("a pending slot of another word was not claimed")
	}
	if b.claim(2, 1<<6) {
		t.Fatal("a slot not pending was claimed")
	}
	returned := make(chan struct{})
	go func() {
		b.claim(2, 1<<7)
		close(returned)
	}()
	select {
	case <-returned:
		t.Fatal("claim returned while the writer copied the slot's word")
	case <-time.After(20 * time.Millisecond):
	}
	b.busy.Store(-1)
	b.copying.Unlock()
	<-returned
}

// TestSnapshotInBackgroundRandom runs two aggregates on the same random
// input over thousands of groups, one snapshotting at once (in steps,
// to a writer that cannot fork), the other
// writing each snapshot on a writer goroutine while the test goroutine
// goes on feeding it chunks that insert, retract (deleting groups) and
// create groups, and advancing the clock so that the state TTL evicts
// groups meanwhile; after each snapshot the two states must be equal.
// Under -race this checks the claims of pending slots between the writer
// and the aggregate. Every other snapshot is below the size written in
// the background and goes in steps, so the two kinds follow each other.
//
// The groups' keys are integers (an int64 by slot), strings, or two
// integers (encoded keys, whose key groups the writer finds from their
// values, here from the second column alone).
func TestSnapshotInBackgroundRandom(t *testing.T) {
	windowed := openOn(func(t *testing.T) HashConfig {
		return closeConfig(t, "bigint bigint", []int{0}, 1, WindowClose{Key: 0, Emit: true}, false)
	})
	for _, c := range []struct {
		name    string
		mk      backgroundPair
		strKeys bool
		wm      bool // the first column is a window's end, closed by watermarks
	}{
		{name: "count and sum with a TTL", mk: ttlAgg},
		{name: "counts, sum and avg", mk: aggOf("bigint bigint", []int{0}, nil, "count(*)", "count(1)", "sum(1)", "avg(1)")},
		{name: "a string key", mk: aggOf("varchar bigint", []int{0}, nil, "count(*)", "sum(1)", "avg(1)"), strKeys: true},
		{name: "two keys", mk: aggOf("bigint bigint", []int{0, 1}, []int{1}, "count(*)", "count(1)")},
		{name: "windows closed by watermarks", mk: windowed, wm: true},
	} {
		t.Run(c.name, func(t *testing.T) { testSnapshotInBackground(t, c.mk, c.strKeys, c.wm) })
	}
}

func testSnapshotInBackground(t *testing.T, mk backgroundPair, strKeys, windowed bool) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(9, 10))
	clk := newFakeClock()
	at, atEnv, atOut := mk(t, clk)
	bg, env, out := mk(t, clk)
	atState, state := exectest.NewState(), exectest.NewState()
	slowWriter(t)
	defer func(n int) { bgMinSlots = n }(bgMinSlots)
	const keys = 4000
	// Rows inserted before the clock last moved are not retracted: the
	// TTL may have evicted their groups.
	rows := randomChunks(rng)
	rows.strKeys = strKeys
	chunk := rows.chunk
	both := func(text string) {
		feed(t, at, atEnv, atOut, text)
		feed(t, bg, env, out, text)
	}
	// A windowed aggregate's watermark closes the windows of the lowest
	// keys, a few more at a time, before and while the writer runs.
	wm := int64(0)
	watermark := func() {
		if !windowed {
			return
		}
		wm += 30
		for _, o := range []struct {
			h   *HashAgg
			out *exectest.Collector
		}{{at, atOut}, {bg, out}} {
			if err := o.h.OnControl(ctx, *exectest.Watermark(wm), o.out); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The reference writes at once, in steps: through a writer that
	// cannot fork, so that it never takes the writer goroutine's code.
	atSnapshot := func(epoch uint64) {
		t.Helper()
		atState.Reset()
		if err := at.Snapshot(ctx, epoch, struct{ exec.StateWriter }{atState}); err != nil {
			t.Fatalf("snapshot %d: %v", epoch, err)
		}
	}
	both(chunk(3*keys, keys))
	atSnapshot(1)
	state.Snapshot(t, bg, 1)
	inBackground := 0
	for epoch := uint64(2); epoch < 30; epoch++ {
		bgMinSlots = 0
		if epoch%3 == 0 {
			bgMinSlots = 1 << 30
		}
		both(chunk(keys, keys))
		watermark()
		clk.advance(400 * time.Millisecond)
		rows.forget()
		atSnapshot(epoch)
		forks := state.Forks
		pending, err := bg.BeginSnapshot(ctx, epoch, state)
		if err != nil || !pending {
			t.Fatalf("epoch %d: BeginSnapshot: pending %v, %v", epoch, pending, err)
		}
		if state.Forks > forks {
			inBackground++
		}
		fed := 0
		for done := false; !done; {
			if ch := bg.SnapshotBusy(); ch != nil && fed >= 30 {
				<-ch
			}
			if done, err = bg.SnapshotStep(ctx, 1+rng.IntN(40)); err != nil {
				t.Fatal(err)
			}
			if !done {
				// The next round's rows, over more keys than there are
				// groups, so that groups are created too; now and then
				// the clock passes the TTL of groups idle since.
				text := chunk(1+rng.IntN(60), keys+keys/4)
				feed(t, at, atEnv, atOut, text)
				feed(t, bg, env, out, text)
				if rng.IntN(6) == 0 {
					watermark()
				}
				if rng.IntN(8) == 0 {
					clk.advance(300 * time.Millisecond)
					rows.forget()
					tick(t, at, clk, atOut)
					tick(t, bg, clk, out)
				}
				fed++
			}
		}
		if diff := state.Diff(atState); diff != "" {
			t.Fatalf("epoch %d: the snapshot written in the background differs (-background +at once):\n%s", epoch, diff)
		}
	}
	if inBackground < 15 {
		t.Fatalf("%d snapshots written in the background, want every one of at least 4,000 slots", inBackground)
	}
}

// TestSnapshotInBackgroundOnlyWhenItCan checks which snapshots go to a
// writer goroutine: those of a grouped aggregate (integer, string or
// several keys) whose accumulators encode from their arena rows, to a
// writer that forks, with enough groups pending; not one whose SUM
// carries an overflow, nor a MIN over retractions (a multiset per
// group), nor one to a writer that cannot fork, nor a global aggregate
// (one group).
func TestSnapshotInBackgroundOnlyWhenItCan(t *testing.T) {
	defer func(n int) { bgMinSlots = n }(bgMinSlots)
	ctx := context.Background()
	rows := "bigint bigint\n+I 1 10\n+I 2 20\n+I 3 30"
	huge := "bigint bigint\n+I 1 9000000000000000000\n+I 1 9000000000000000000\n+I 2 1"
	strs := "varchar bigint\n+I a 10\n+I NULL 20\n+I bb 30\n+I a 5"
	for _, c := range []struct {
		name    string
		calls   []string
		input   string
		keys    []int // nil: the first column
		groups  int
		min     int
		noFork  bool
		forking bool
	}{
		{name: "counts and sums", calls: []string{"count(*)", "sum(1)", "avg(1)"}, input: rows, groups: 3, forking: true},
		{name: "a string key", calls: []string{"count(*)", "sum(1)"}, input: strs, groups: 3, forking: true},
		{name: "two keys", calls: []string{"count(*)"}, input: rows, keys: []int{1, 0}, groups: 3, forking: true},
		{name: "a global aggregate", calls: []string{"count(*)", "sum(1)"}, input: rows, keys: []int{}, groups: 1},
		{name: "too few groups", calls: []string{"count(*)", "sum(1)"}, input: rows, groups: 3, min: 4},
		{name: "a writer that cannot fork", calls: []string{"count(*)"}, input: rows, groups: 3, noFork: true},
		// The average fits where the sum needs its carry.
		{name: "a sum's overflow carry", calls: []string{"avg(1)"}, input: huge, groups: 2},
		{name: "min over retractions", calls: []string{"min(1)"}, input: rows, groups: 3},
	} {
		bgMinSlots = c.min
		keys := c.keys
		if keys == nil {
			keys = []int{0}
		}
		cfg := testConfig(t, strings.SplitN(c.input, "\n", 2)[0], keys, c.calls...)
		h := NewHashAgg(cfg)
		env := exec.NewTestEnv(exectest.Alloc(t))
		if err := h.Open(ctx, env); err != nil {
			t.Fatal(err)
		}
		ch := exectest.Chunk(t, env.Alloc, c.input)
		if err := h.Process(ctx, 0, ch, newCollector(t, cfg)); err != nil {
			t.Fatal(err)
		}
		ch.Batch.Release()
		state := exectest.NewState()
		var w exec.StateWriter = state
		if c.noFork {
			w = struct{ exec.StateWriter }{state}
		}
		if _, err := h.BeginSnapshot(ctx, 1, w); err != nil {
			t.Fatal(err)
		}
		if got := h.SnapshotBusy() != nil; got != c.forking || (state.Forks > 0) != c.forking {
			t.Errorf("%s: written in the background %v (%d forks), want %v", c.name, got, state.Forks, c.forking)
		}
		if err := exec.FinishSnapshot(ctx, h); err != nil {
			t.Fatal(err)
		}
		if state.Len() != c.groups {
			t.Errorf("%s: %d entries written, want %d", c.name, state.Len(), c.groups)
		}
		h.Close()
	}
}

// TestSnapshotInBackgroundStops checks that Close stops a writer
// goroutine and waits for it, and that a snapshot taken at once while one
// is written in the background first waits for it.
func TestSnapshotInBackgroundStops(t *testing.T) {
	defer func(n int) { bgMinSlots = n }(bgMinSlots)
	bgMinSlots = 0
	bgWordHook = func(int) { time.Sleep(time.Millisecond) }
	defer func() { bgWordHook = nil }()
	ctx := context.Background()
	inserts := insertsText(3000)
	for _, close := range []bool{true, false} {
		clk := newFakeClock()
		h, env, out := ttlAgg(t, clk)
		feed(t, h, env, out, inserts)
		state := exectest.NewState()
		if _, err := h.BeginSnapshot(ctx, 1, state); err != nil {
			t.Fatal(err)
		}
		busy := h.SnapshotBusy()
		if busy == nil {
			t.Fatal("3,000 groups were not written in the background")
		}
		if close {
			h.Close()
			select {
			case <-busy:
			default:
				t.Fatal("Close returned before the writer goroutine")
			}
			continue
		}
		state.Snapshot(t, h, 2) // finishes 1, then writes 2 (nothing changed)
		if state.Len() != 3000 {
			t.Fatalf("after a snapshot at once: %d entries, want the 3,000 of the one pending", state.Len())
		}
		if h.SnapshotBusy() != nil {
			t.Fatal("a writer goroutine still runs after a snapshot at once")
		}
	}
}

// TestBackgroundWriterPaces checks that the writer goroutine of a
// snapshot written in the background looks whether to give way
// (giveway.Pacer) as it goes, and that the aggregate's own steps, which
// write a snapshot too small for a writer, do not.
func TestBackgroundWriterPaces(t *testing.T) {
	defer func(n int) { bgMinSlots = n }(bgMinSlots)
	h, env, out := aggOf("bigint bigint", []int{0}, nil, "count(*)", "sum(1)")(t, newFakeClock())
	// Enough groups for milliseconds of the writer's work, where a look
	// comes every 100 µs of it.
	const groups = 100_000
	inserts := insertsText(groups)
	feed(t, h, env, out, inserts)
	state := exectest.NewState()
	bgMinSlots = groups + 1 // in steps
	before := giveway.Looks()
	state.Snapshot(t, h, 1)
	if n := giveway.Looks() - before; n != 0 {
		t.Fatalf("a snapshot in steps looked %d times", n)
	}
	feed(t, h, env, out, inserts) // every group changes again
	bgMinSlots = 0
	before = giveway.Looks()
	state.Snapshot(t, h, 2)
	if h.env.Metrics.Counter(backgroundCounter).Load() != 1 {
		t.Fatal("the second snapshot was not written in the background")
	}
	if giveway.Looks() == before {
		t.Fatal("the background writer never looked whether to give way")
	}
	if len(state.Entries) == 0 {
		t.Fatal("the snapshot wrote nothing")
	}
}

// insertsText returns a chunk, in exectest.Chunk's text form, inserting
// a row (k, 1) for each k from 0 to n-1.
func insertsText(n int) string {
	var b strings.Builder
	b.WriteString("bigint bigint")
	for k := range n {
		fmt.Fprintf(&b, "\n+I %d 1", k)
	}
	return b.String()
}
