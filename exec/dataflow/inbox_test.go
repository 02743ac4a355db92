package dataflow

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/basic"
)

func TestInboxBoundsBytes(t *testing.T) {
	b := newInbox(100)
	ctx := context.Background()
	if !b.tryPut(message{bytes: 60}) {
		t.Fatal("an empty inbox refused a batch under its limit")
	}
	if !b.tryPut(message{bytes: 40}) {
		t.Fatal("the inbox refused a batch that fits exactly")
	}
	if b.tryPut(message{bytes: 1}) {
		t.Fatal("the inbox took a batch beyond its limit")
	}
	if !b.tryPut(message{}) {
		t.Fatal("a control message (0 bytes) was refused at the limit")
	}
	// A blocked put goes through once the receiver frees enough.
	done := make(chan error, 1)
	go func() { done <- b.put(ctx, message{bytes: 50}) }()
	select {
	case err := <-done:
		t.Fatalf("put did not wait for room: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	var idle atomic.Int64
	if m, _ := b.take(ctx, &idle); m.bytes != 60 {
		t.Fatalf("took %d bytes first, want the 60-byte batch", m.bytes)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := b.used.Load(); got != 90 {
		t.Fatalf("queued %d bytes, want 90", got)
	}
	if got := b.peak.Load(); got != 100 {
		t.Fatalf("peak %d bytes, want 100", got)
	}
}

func TestInboxAdmitsOversizeBatchWhenEmpty(t *testing.T) {
	b := newInbox(10)
	if !b.tryPut(message{bytes: 1000}) {
		t.Fatal("an empty inbox refused an oversize batch: it could never make progress")
	}
	if b.tryPut(message{bytes: 1}) {
		t.Fatal("the inbox took more behind an oversize batch")
	}
}

func TestInboxPutStopsWithContext(t *testing.T) {
	b := newInbox(10)
	b.tryPut(message{bytes: 10})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(10 * time.Millisecond); cancel() }()
	if err := b.put(ctx, message{bytes: 5}); !errors.Is(err, context.Canceled) {
		t.Fatalf("put returned %v, want context.Canceled", err)
	}
	if got := b.used.Load(); got != 10 {
		t.Fatalf("a cancelled put left %d bytes reserved, want 10", got)
	}
}

// slowSink counts rows, sleeping on every batch like a throttled writer.
type slowSink struct {
	rows  atomic.Int64
	delay time.Duration
}

func (s *slowSink) Open(context.Context, *exec.Env) error { return nil }
func (s *slowSink) Process(ctx context.Context, in int, c exec.Chunk, out exec.Emitter) error {
	time.Sleep(s.delay)
	s.rows.Add(int64(c.NumRows()))
	return nil
}
func (s *slowSink) OnControl(context.Context, exec.Control, exec.Emitter) error { return nil }
func (s *slowSink) Close() error                                                { return nil }

// TestJobQueuesWithinBufferBudget runs a fast source into a slow sink: the
// bytes queued between them never exceed the budget by more than one
// batch per sender, and every row arrives.
func TestJobQueuesWithinBufferBudget(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	const rows, batch = 200_000, exec.BatchRows
	src := func(i int) (exec.Source, error) {
		var rs [][]types.Datum
		for r := i; r < rows; r += 2 {
			rs = append(rs, []types.Datum{types.IntDatum(int64(r))})
		}
		return &basic.ValuesSource{Names: []string{"x"}, Types: []types.T{types.BigIntT}, Rows: rs}, nil
	}
	sink := &slowSink{delay: 50 * time.Microsecond}
	const budget = 8 * batch * 8 // about 8 batches of BIGINTs in all
	g := GraphSpec{Stages: []StageSpec{
		{Parallelism: 2, Source: src},
		{Parallelism: 1, Inputs: []InputSpec{{From: 0, Dist: DistSingle}},
			Ops: []OpSpec{{Name: "sink", New: func(int) (exec.Operator, error) { return sink, nil }}}},
	}}
	job, err := StartJob(context.Background(), g, JobOptions{Alloc: alloc, BufferBytes: budget})
	if err != nil {
		t.Fatal(err)
	}
	if err := job.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := sink.rows.Load(); got != rows {
		t.Fatalf("the sink got %d rows, want %d", got, rows)
	}
	const batchBytes = batch*8 + batch/8 + 64 // values, validity, padding
	st := job.Buffers()
	if st.Budget != budget || st.Queued != 0 {
		t.Fatalf("buffers %+v: want budget %d and nothing queued at the end", st, budget)
	}
	if st.Peak > budget+2*batchBytes {
		t.Fatalf("peak queued %d bytes, over the budget %d plus a batch per sender", st.Peak, budget)
	}
	if st.Peak < budget/2 {
		t.Fatalf("peak queued %d bytes: the slow sink never filled the %d-byte budget", st.Peak, budget)
	}
}
