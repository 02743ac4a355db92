package dataflow

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// TestCoalescedExchange sends 600 chunks of 5 rows (with ops) through a
// hash exchange that coalesces: every row arrives once with its op, the
// consumers get far fewer batches than were sent, and nothing leaks.
func TestCoalescedExchange(t *testing.T) {
	alloc := exectest.Alloc(t)
	deleteThirds := deleteEvery(3)
	src := smallChunks(t, alloc, 600, 5, deleteThirds)
	recs := []*opsRecorder{{}, {}, {}}
	rec := OpSpec{Name: "rec", New: func(i int) (exec.Operator, error) { return recs[i], nil }}
	runJob(t, exchanged(src, DistHash, 3, rec, &exectest.Counter{}), JobOptions{Alloc: alloc, Coalesce: true})
	// 1,800 parts of about 1.7 rows: coalesced by the thousand.
	if got := checkOps(t, recs, 3000, deleteThirds); got > 30 {
		t.Errorf("consumers got %d batches for 600 small chunks", got)
	}
}

// TestCoalescedExchangeFlushesWhenIdle checks that rows held for
// coalescing go out as soon as the source has nothing more, without a
// control message.
func TestCoalescedExchangeFlushesWhenIdle(t *testing.T) {
	alloc := exectest.Alloc(t)
	src := exectest.NewSource(t, alloc)
	sink := &recorder{}
	job := startJob(t, exchanged(src, DistHash, 2, only("pass", &passthrough{}), sink), JobOptions{Alloc: alloc, Coalesce: true})
	src.Add("bigint\n+I 1\n+I 2\n+I 3")
	sink.waitRows(t, 3, "rows held back")
	job.Stop()
}

// TestCoalescingBoundsTheWait checks that parts held for a consumer go out
// after coalesceMaxHeld parts even when no control message comes and the
// task never idles.
func TestCoalescingBoundsTheWait(t *testing.T) {
	alloc := exectest.Alloc(t)
	boxes := []*inbox{newInbox(1 << 30), newInbox(1 << 30)}
	w := &outWriter{alloc: alloc, dist: DistHash, keys: []int{0}, inboxes: boxes, bp: new(atomic.Int64), coalesce: true}
	ctx := context.Background()
	for i := range coalesceMaxHeld {
		b := intBatch(alloc, i, i+1)
		if err := w.Emit(ctx, exec.Chunk{Batch: b}); err != nil {
			t.Fatal(err)
		}
		b.Release()
		if i < coalesceMaxHeld-1 && len(boxes[0].ch)+len(boxes[1].ch) > 0 {
			t.Fatalf("a part went out after %d one-row parts", i+1)
		}
	}
	rows := 0
	for _, b := range boxes {
		for len(b.ch) > 0 {
			m := <-b.ch
			rows += m.chunk.NumRows()
			m.chunk.Batch.Release()
		}
	}
	if rows != coalesceMaxHeld {
		t.Fatalf("%d rows went out after %d parts, want all", rows, coalesceMaxHeld)
	}
}

// TestCoalescingHoldsWatermarks checks that a watermark coming while parts
// wait goes out after them, not before, and as soon as they have gone,
// without flushing them early; that the parts of several chunks reach a
// consumer as one chunk, in order; that a newer watermark replaces the
// one held; and that another control message sends everything held
// before it.
func TestCoalescingHoldsWatermarks(t *testing.T) {
	alloc := exectest.Alloc(t)
	boxes := []*inbox{newInbox(1 << 30), newInbox(1 << 30)}
	w := &outWriter{alloc: alloc, dist: DistHash, keys: []int{0}, inboxes: boxes, bp: new(atomic.Int64), coalesce: true}
	ctx := context.Background()
	emit := func(lo, hi int) {
		t.Helper()
		b := intBatch(alloc, lo, hi)
		defer b.Release()
		if err := w.Emit(ctx, exec.Chunk{Batch: b}); err != nil {
			t.Fatal(err)
		}
	}
	control := func(c exec.Control) {
		t.Helper()
		if err := w.control(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	// drain returns what each consumer got: "rows:N" per chunk (checking
	// its values ascend from where the last ended), "wm:T", or the kind.
	last := []int64{-1, -1}
	drain := func() [2][]string {
		var got [2][]string
		for i, b := range boxes {
			for len(b.ch) > 0 {
				m := <-b.ch
				if m.chunk.Batch == nil {
					if m.ctrl.Kind == exec.Watermark {
						got[i] = append(got[i], fmt.Sprint("wm:", m.ctrl.Watermark))
					} else {
						got[i] = append(got[i], fmt.Sprint("ctrl:", m.ctrl.Kind))
					}
					continue
				}
				col := m.chunk.Batch.Column(0).(*array.Int64)
				for r := range col.Len() {
					if v := col.Value(r); v <= last[i] {
						t.Fatalf("consumer %d: %d after %d", i, v, last[i])
					} else {
						last[i] = v
					}
				}
				got[i] = append(got[i], fmt.Sprint("rows:", col.Len()))
				m.chunk.Batch.Release()
			}
		}
		return got
	}
	emit(0, 3000) // about 1,500 rows for each consumer: held
	control(exec.Control{Kind: exec.Watermark, Watermark: 10})
	control(exec.Control{Kind: exec.Watermark, Watermark: 20})
	if got := drain(); len(got[0])+len(got[1]) > 0 {
		t.Fatalf("sent before a full batch was held: %v", got)
	}
	emit(3000, 9000) // each consumer passes 4,096 rows: their parts go, then the watermark
	got := drain()
	for i := range got {
		if len(got[i]) != 2 || got[i][1] != "wm:20" {
			t.Fatalf("consumer %d got %v, want one chunk, then wm:20", i, got[i])
		}
	}
	rows := 0
	for i := range got {
		var n int
		fmt.Sscanf(got[i][0], "rows:%d", &n)
		rows += n
	}
	if rows != 9000 {
		t.Fatalf("%d rows went out, want 9000", rows)
	}
	emit(9000, 9100)
	control(exec.Control{Kind: exec.Watermark, Watermark: 30})
	control(exec.Control{Kind: exec.Barrier, Epoch: 1})
	got = drain()
	for i := range got {
		if n := len(got[i]); n < 2 || got[i][n-2] != "wm:30" || got[i][n-1] != fmt.Sprint("ctrl:", exec.Barrier) {
			t.Fatalf("consumer %d got %v, want its rows, wm:30, then the barrier", i, got[i])
		}
	}
	control(exec.Control{Kind: exec.Watermark, Watermark: 40}) // nothing waits: it goes at once
	if got := drain(); got[0][0] != "wm:40" || got[1][0] != "wm:40" {
		t.Fatalf("with nothing held: %v", got)
	}
}
