package dataflow

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// TestCoalescedExchange sends 600 chunks of 5 rows (with ops) through a
// hash exchange that coalesces: every row arrives once with its op, the
// consumers get far fewer batches than were sent, and nothing leaks.
func TestCoalescedExchange(t *testing.T) {
	alloc := exectest.Alloc(t)
	deleteThirds := func(v int64) exec.Op {
		if v%3 == 0 {
			return exec.Delete
		}
		return exec.Insert
	}
	src := &exectest.Replay{}
	for k := range 600 {
		src.Batches = append(src.Batches, intBatch(alloc, 5*k, 5*k+5))
		o := make([]exec.Op, 5)
		for i := range o {
			o[i] = deleteThirds(int64(5*k + i))
		}
		src.Ops = append(src.Ops, o)
	}
	defer func() {
		for _, b := range src.Batches {
			b.Release()
		}
	}()
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
	deadline := time.Now().Add(10 * time.Second)
	for len(sink.sorted()) < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("rows held back: the sink has %v", sink.sorted())
		}
		time.Sleep(time.Millisecond)
	}
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
