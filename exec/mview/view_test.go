package mview

import (
	"context"
	"io"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
)

func chunkOf(alloc memory.Allocator, ops []exec.Op, vals ...int64) exec.Chunk {
	rows := make([][]types.Datum, len(vals)/2)
	for i := range rows {
		rows[i] = []types.Datum{types.IntDatum(vals[2*i]), types.IntDatum(vals[2*i+1])}
	}
	rec := types.BuildRecord(alloc, []string{"k", "v"}, []types.T{types.BigIntT, types.BigIntT}, rows)
	return exec.Chunk{Batch: rec, Ops: ops}
}

func sortedRows(rows [][]types.Datum) [][2]int64 {
	out := make([][2]int64, len(rows))
	for i, r := range rows {
		out[i] = [2]int64{r[0].I, r[1].I}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] || (out[i][0] == out[j][0] && out[i][1] < out[j][1]) })
	return out
}

func TestMViewIntegratesChanges(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	ctx := context.Background()
	mv := New([]string{"k", "v"}, []types.T{types.BigIntT, types.BigIntT}, []int{0})
	apply := func(c exec.Chunk) {
		t.Helper()
		defer c.Batch.Release()
		if err := mv.Apply(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	apply(chunkOf(alloc, nil, 1, 10, 2, 20))
	apply(chunkOf(alloc, []exec.Op{exec.UpdateBefore, exec.UpdateAfter, exec.Delete}, 1, 10, 1, 11, 2, 20))
	got := sortedRows(mv.Snapshot())
	if len(got) != 1 || got[0] != [2]int64{1, 11} {
		t.Fatalf("got %v, want [[1 11]]", got)
	}
	// Retracting a row the view does not hold is an error.
	c := chunkOf(alloc, []exec.Op{exec.Delete}, 9, 9)
	defer c.Batch.Release()
	if err := mv.Apply(ctx, c); err == nil {
		t.Fatal("retraction of a missing row accepted")
	}
}

func TestMViewMultisetWithoutKey(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	mv := New([]string{"k", "v"}, []types.T{types.BigIntT, types.BigIntT}, nil)
	c := chunkOf(alloc, nil, 1, 1, 1, 1, 2, 2)
	mv.Apply(context.Background(), c)
	c.Batch.Release()
	if n := len(mv.Snapshot()); n != 3 {
		t.Fatalf("duplicates must be kept: %d rows", n)
	}
	d := chunkOf(alloc, []exec.Op{exec.Delete}, 1, 1)
	mv.Apply(context.Background(), d)
	d.Batch.Release()
	if got := sortedRows(mv.Snapshot()); len(got) != 2 {
		t.Fatalf("got %v", got)
	}
}

func TestSubscriptionDeliversSnapshotThenChanges(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	ctx := context.Background()
	mv := New([]string{"k", "v"}, []types.T{types.BigIntT, types.BigIntT}, []int{0})
	c := chunkOf(alloc, nil, 1, 10)
	mv.Apply(ctx, c)
	c.Batch.Release()
	sub := mv.Subscribe(alloc)
	defer sub.Close()
	first, ctl, err := sub.NextMessage(ctx)
	if err != nil || ctl.Kind != 0 || first.NumRows() != 1 {
		t.Fatalf("snapshot: %v %v %d", err, ctl, first.NumRows())
	}
	first.Batch.Release()
	go func() {
		c := chunkOf(alloc, []exec.Op{exec.UpdateBefore, exec.UpdateAfter}, 1, 10, 1, 12)
		mv.Apply(ctx, c)
		c.Batch.Release()
		mv.Control(ctx, exec.Control{Kind: exec.Flush, FlushID: 3})
		mv.Control(ctx, exec.Control{Kind: exec.EndOfInput})
	}()
	ch, _, err := sub.NextMessage(ctx)
	if err != nil || ch.NumRows() != 2 || ch.Op(0) != exec.UpdateBefore {
		t.Fatalf("change: %v", err)
	}
	ch.Batch.Release()
	if _, ctl, _ := sub.NextMessage(ctx); ctl.Kind != exec.Flush || ctl.FlushID != 3 {
		t.Fatalf("flush: %v", ctl)
	}
	if _, ctl, _ := sub.NextMessage(ctx); ctl.Kind != exec.EndOfInput {
		t.Fatalf("end: %v", ctl)
	}
	// A subscription made after the end sees the snapshot and the end.
	late := mv.Subscribe(alloc)
	defer late.Close()
	snap, _, _ := late.NextMessage(ctx)
	snap.Batch.Release()
	if _, ctl, _ := late.NextMessage(ctx); ctl.Kind != exec.EndOfInput {
		t.Fatalf("late end: %v", ctl)
	}
	if _, _, err := late.NextMessage(ctx); err != io.EOF {
		t.Fatalf("after the end: %v", err)
	}
}
