package mview

import (
	"context"
	"testing"
	"time"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// TestAppliedChangeOutlivesAStop: a change applied to the view's rows while
// a subscriber's queue is full is still delivered when the applying query
// is stopped (its context cancelled) — a subscriber that missed it would
// later get the retraction of a row it never received (a rescale that
// rebuilds the view's query reconciles the view's rows with what the new
// query computed).
func TestAppliedChangeOutlivesAStop(t *testing.T) {
	alloc := exectest.Alloc(t)
	mv := New([]string{"k", "v"}, kv, []int{0})
	sub := mv.Subscribe(alloc)
	defer sub.Close()
	insert := func(ctx context.Context, k int64) error {
		rec := types.BuildRecord(alloc, []string{"k", "v"}, kv, [][]types.Datum{{types.IntDatum(k), types.IntDatum(k)}})
		defer rec.Release()
		return mv.Apply(ctx, exec.Chunk{Batch: rec})
	}
	for k := range int64(subscriptionCapacity) { // the queue is full
		if err := insert(context.Background(), k); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- insert(ctx, 99) }()
	time.Sleep(20 * time.Millisecond)
	cancel() // the query stops while the change waits for room
	time.Sleep(20 * time.Millisecond)
	got := 0
	read, stop := context.WithTimeout(context.Background(), 5*time.Second)
	defer stop()
	for got < subscriptionCapacity+1 {
		c, _, err := sub.NextMessage(read)
		if err != nil {
			t.Fatalf("after %d changes: %v", got, err)
		}
		got += c.NumRows()
		c.Batch.Release()
	}
	if err := <-done; err != nil {
		t.Fatalf("Apply: %v", err)
	}
}
