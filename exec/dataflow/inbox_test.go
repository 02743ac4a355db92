package dataflow

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
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
	if m, _ := b.take(ctx, nil, &idle); m.bytes != 60 {
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

// TestJobQueuesWithinBufferBudget runs a fast source into a slow sink: the
// bytes queued between them never exceed the budget by more than one
// batch per sender, and every row arrives.
func TestJobQueuesWithinBufferBudget(t *testing.T) {
	alloc := exectest.Alloc(t)
	const rows, batch = 200_000, exec.BatchRows
	srcs := []*exectest.Replay{intReplay(t, alloc, 0, rows, 2), intReplay(t, alloc, 1, rows, 2)}
	sink := &exectest.Counter{Delay: 50 * time.Microsecond}
	const budget = 8 * batch * 8 // about 8 batches of BIGINTs in all
	g := GraphSpec{Stages: []StageSpec{
		{Parallelism: 2, Source: func(i int) (exec.Source, error) { return srcs[i], nil }},
		stage(0, DistSingle, 1, only("sink", sink)),
	}}
	job := runJob(t, g, JobOptions{Alloc: alloc, BufferBytes: budget})
	if got := sink.Rows(); got != rows {
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

// TestInboxTakeWakes checks that take returns errWoken when its wake
// channel is closed while it waits, and a queued message before that.
func TestInboxTakeWakes(t *testing.T) {
	ctx := context.Background()
	b := newInbox(100)
	var idle atomic.Int64
	wake := make(chan struct{})
	go func() {
		time.Sleep(5 * time.Millisecond)
		close(wake)
	}()
	if _, err := b.take(ctx, wake, &idle); !errors.Is(err, errWoken) {
		t.Fatalf("take with nothing queued and wake closed: %v, want errWoken", err)
	}
	if idle.Load() == 0 {
		t.Fatal("the wait was not counted as idle")
	}
	if !b.tryPut(message{bytes: 7}) {
		t.Fatal("the inbox refused a message")
	}
	if m, err := b.take(ctx, wake, &idle); err != nil || m.bytes != 7 {
		t.Fatalf("take with a message queued: %d bytes, %v; want the message", m.bytes, err)
	}
}
