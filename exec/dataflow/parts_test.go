package dataflow

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// partsRecorder records the rows it is sent, as chunks or as parts, as
// opsRecorder does; it takes parts when takes is set, and counts the
// parts whose chunk also held rows of other instances (sent in place).
type partsRecorder struct {
	opsRecorder
	takes           bool
	partCalls, kept int
}

func (r *partsRecorder) TakesParts() bool { return r.takes }

func (r *partsRecorder) ProcessParts(_ context.Context, _ int, chunks []exec.Chunk, sels [][]int32, _ exec.Emitter) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.rows == nil {
		r.rows = map[int64][]exec.Op{}
	}
	r.batches++
	r.partCalls++
	for k, c := range chunks {
		if c.NumRows() > len(sels[k]) {
			r.kept++
		}
		rows := types.Rows(c.Batch, []types.T{types.BigIntT})
		for _, i := range sels[k] {
			r.rows[rows[i][0].I] = append(r.rows[rows[i][0].I], c.Op(int(i)))
		}
	}
	return nil
}

// TestExchangeSendsPartsInPlace sends 600 chunks of 5 rows (with ops)
// through a hash exchange to three instances: when they take parts, every
// row arrives once with its op, in parts of the producer's chunks (no
// copy), coalesced or not; when they do not, no part is sent. Nothing
// leaks either way.
func TestExchangeSendsPartsInPlace(t *testing.T) {
	for _, tc := range []struct {
		name            string
		takes, coalesce bool
	}{
		{"parts", true, false},
		{"parts-coalesced", true, true},
		{"copies", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			alloc := exectest.Alloc(t)
			deleteFifths := deleteEvery(5)
			src := smallChunks(t, alloc, 600, 5, deleteFifths)
			recs := []*partsRecorder{{takes: tc.takes}, {takes: tc.takes}, {takes: tc.takes}}
			rec := OpSpec{Name: "rec", New: func(i int) (exec.Operator, error) { return recs[i], nil }}
			runJob(t, exchanged(src, DistHash, 3, rec, &exectest.Counter{}), JobOptions{Alloc: alloc, Coalesce: tc.coalesce})
			rows := make([]*opsRecorder, len(recs))
			calls, kept := 0, 0
			for i, r := range recs {
				rows[i] = &r.opsRecorder
				calls, kept = calls+r.partCalls, kept+r.kept
			}
			batches := checkOps(t, rows, 3000, deleteFifths)
			switch {
			case !tc.takes && calls > 0:
				t.Fatalf("%d parts sent to instances that do not take them", calls)
			case tc.takes && kept == 0:
				t.Fatalf("no part came in its producer's chunk (%d calls)", calls)
			case tc.takes && !tc.coalesce && batches < 600:
				t.Fatalf("%d batches for 600 chunks not coalesced", batches)
			case tc.coalesce && batches > 30:
				t.Fatalf("%d batches for 600 coalesced chunks", batches)
			}
		})
	}
}

// TestPartsCountTheirWholeChunk checks that a part is counted against its
// inbox's budget as its whole chunk, which stays allocated while any part
// of it waits, and that an inbox drained with parts queued releases them.
func TestPartsCountTheirWholeChunk(t *testing.T) {
	alloc := exectest.Alloc(t)
	boxes := []*inbox{newInbox(1 << 30), newInbox(1 << 30)}
	for _, b := range boxes {
		b.takesParts = true
	}
	w := &outWriter{alloc: alloc, dist: DistHash, keys: []int{0}, inboxes: boxes, bp: new(atomic.Int64)}
	b := intBatch(alloc, 0, 100)
	whole := batchBytes(b)
	if err := w.Emit(context.Background(), exec.Chunk{Batch: b}); err != nil {
		t.Fatal(err)
	}
	b.Release()
	rows := 0
	for i, box := range boxes {
		if len(box.ch) != 1 {
			t.Fatalf("instance %d: %d messages, want 1", i, len(box.ch))
		}
		if got := box.used.Load(); got != whole {
			t.Fatalf("instance %d: %d bytes counted, want the chunk's %d", i, got, whole)
		}
		m := <-box.ch
		if len(m.parts) != 1 || m.parts[0].NumRows() != 100 {
			t.Fatalf("instance %d: parts %v, want the producer's chunk", i, m.parts)
		}
		rows += len(m.sels[0])
		box.ch <- m // back, for the drain to release
		box.drain()
	}
	if rows != 100 {
		t.Fatalf("%d rows in parts, want 100", rows)
	}
}
