package dataflow

import (
	"context"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
)

// opsRecorder records every row it receives with its op, and the number of
// batches.
type opsRecorder struct {
	mu      sync.Mutex
	rows    map[int64][]exec.Op
	batches int
}

func (r *opsRecorder) Open(context.Context, *exec.Env) error { return nil }
func (r *opsRecorder) Process(_ context.Context, _ int, c exec.Chunk, _ exec.Emitter) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.rows == nil {
		r.rows = map[int64][]exec.Op{}
	}
	r.batches++
	for i, row := range types.Rows(c.Batch, []types.T{types.BigIntT}) {
		r.rows[row[0].I] = append(r.rows[row[0].I], c.Op(i))
	}
	return nil
}
func (r *opsRecorder) OnControl(context.Context, exec.Control, exec.Emitter) error { return nil }
func (r *opsRecorder) Close() error                                                { return nil }

// TestCoalescedExchange sends 600 chunks of 5 rows (with ops) through a
// hash exchange that coalesces: every row arrives once with its op, the
// consumers get far fewer batches than were sent, and nothing leaks.
func TestCoalescedExchange(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	var batches []arrow.RecordBatch
	var ops [][]exec.Op
	for k := range 600 {
		batches = append(batches, types.BuildRecord(alloc, []string{"x"}, []types.T{types.BigIntT}, intRows(5*k, 5*k+5)))
		o := make([]exec.Op, 5)
		for i := range o {
			o[i] = exec.Insert
			if (5*k+i)%3 == 0 {
				o[i] = exec.Delete
			}
		}
		ops = append(ops, o)
	}
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	recs := []*opsRecorder{{}, {}, {}}
	g := GraphSpec{Stages: []StageSpec{
		{Parallelism: 1, Source: func(int) (exec.Source, error) { return &opsSource{batches: batches, ops: ops}, nil }},
		{Parallelism: 3, Inputs: []InputSpec{{From: 0, Dist: DistHash, Keys: []int{0}}},
			Ops: []OpSpec{{Name: "rec", New: func(i int) (exec.Operator, error) { return recs[i], nil }}}},
		{Parallelism: 1, Inputs: []InputSpec{{From: 1, Dist: DistSingle}},
			Ops: []OpSpec{{Name: "end", New: func(int) (exec.Operator, error) { return &countSink{}, nil }}}},
	}}
	job, err := StartJob(context.Background(), g, JobOptions{Alloc: alloc, Coalesce: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := job.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	seen, got := 0, 0
	for _, r := range recs {
		got += r.batches
		for v, os := range r.rows {
			want := exec.Insert
			if v%3 == 0 {
				want = exec.Delete
			}
			if !slices.Equal(os, []exec.Op{want}) {
				t.Fatalf("row %d arrived as %v", v, os)
			}
			seen++
		}
	}
	if seen != 3000 {
		t.Fatalf("%d distinct rows arrived, want 3000", seen)
	}
	// 1,800 parts of about 1.7 rows: coalesced by the thousand.
	if got > 30 {
		t.Errorf("consumers got %d batches for 600 small chunks", got)
	}
}

// opsSource replays batches with their ops.
type opsSource struct {
	batches []arrow.RecordBatch
	ops     [][]exec.Op
	next    int
}

func (s *opsSource) Open(context.Context, *exec.Env) error { return nil }
func (s *opsSource) Next(context.Context) (exec.Chunk, error) {
	if s.next == len(s.batches) {
		return exec.Chunk{}, io.EOF
	}
	b := s.batches[s.next]
	b.Retain()
	s.next++
	return exec.Chunk{Batch: b, Ops: s.ops[s.next-1]}, nil
}
func (s *opsSource) Wait(context.Context) error { return nil }
func (s *opsSource) Close() error               { return nil }

// TestCoalescedExchangeFlushesWhenIdle checks that rows held for
// coalescing go out as soon as the source has nothing more, without a
// control message.
func TestCoalescedExchangeFlushesWhenIdle(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	src := newGrowingSource()
	sink := &collectSink{}
	g := GraphSpec{Stages: []StageSpec{
		{Parallelism: 1, Source: func(int) (exec.Source, error) { return src, nil }},
		{Parallelism: 2, Inputs: []InputSpec{{From: 0, Dist: DistHash, Keys: []int{0}}},
			Ops: []OpSpec{{Name: "pass", New: func(int) (exec.Operator, error) { return &passthrough{}, nil }}}},
		{Parallelism: 1, Inputs: []InputSpec{{From: 1, Dist: DistSingle}},
			Ops: []OpSpec{{Name: "sink", New: func(int) (exec.Operator, error) { return sink, nil }}}},
	}}
	job, err := StartJob(context.Background(), g, JobOptions{Alloc: alloc, Coalesce: true})
	if err != nil {
		t.Fatal(err)
	}
	defer job.Stop()
	src.add(1, 2, 3)
	deadline := time.Now().Add(10 * time.Second)
	for len(sink.snapshot()) < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("rows held back: the sink has %v", sink.snapshot())
		}
		time.Sleep(time.Millisecond)
	}
	job.Stop()
}

// TestCoalescingBoundsTheWait checks that parts held for a consumer go out
// after coalesceMaxHeld parts even when no control message comes and the
// task never idles.
func TestCoalescingBoundsTheWait(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	boxes := []*inbox{newInbox(1 << 30), newInbox(1 << 30)}
	w := &outWriter{alloc: alloc, dist: DistHash, keys: []int{0}, inboxes: boxes, bp: new(atomic.Int64), coalesce: true}
	ctx := context.Background()
	for i := range coalesceMaxHeld {
		b := types.BuildRecord(alloc, []string{"x"}, []types.T{types.BigIntT}, intRows(i, i+1))
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
