package dataflow

import (
	"context"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/mem"
)

// finalJob runs the counting job over src (ended) to its end with
// periodic checkpoints too rare to be taken, so only a final checkpoint
// can be, and returns the counters.
func finalJob(t *testing.T, src *exectest.Source, store storage.StateStore, restore bool) []*keyCounter {
	t.Helper()
	var mu sync.Mutex
	counters := make([]*keyCounter, 2)
	count := OpSpec{Name: "count", New: func(inst int) (exec.Operator, error) {
		mu.Lock()
		defer mu.Unlock()
		counters[inst] = &keyCounter{}
		return counters[inst], nil
	}}
	g := exchanged(src, DistHash, 2, count, &passthrough{})
	job, err := StartJob(context.Background(), g, JobOptions{Alloc: exectest.Alloc(t), State: store, Restore: restore,
		CheckpointInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if err := job.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	return counters
}

// TestFinalCheckpointAtTheEndOfInput: a checkpointing job whose input
// ends commits a last checkpoint holding its whole state and its source's
// end, so a resumed job reads none of the input again and holds the same
// counts.
func TestFinalCheckpointAtTheEndOfInput(t *testing.T) {
	ctx := context.Background()
	db := mem.New()
	store := jobStore(t, db)
	src := exectest.NewSource(t, exectest.Alloc(t), input...)
	src.End()
	finalJob(t, src, store, false)
	epoch, err := store.Recover(ctx)
	if err != nil || epoch != 1 {
		t.Fatalf("last committed epoch %d, %v; want the final checkpoint, 1", epoch, err)
	}
	want := map[int64]int64{1: 1, 2: 2, 3: 2, 4: 1, 5: 1}
	if got := committed(t, store); !maps.Equal(got, want) {
		t.Fatalf("the final checkpoint holds %v, want %v", got, want)
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}

	// Resumed over the same input replayed: none of it is read again.
	store = jobStore(t, db)
	defer store.Close()
	src = exectest.NewSource(t, exectest.Alloc(t), input...)
	src.End()
	counters := finalJob(t, src, store, true)
	got := map[int64]int64{}
	for _, c := range counters {
		maps.Copy(got, c.counts)
	}
	if !maps.Equal(got, want) {
		t.Fatalf("the resumed job counts %v, want %v", got, want)
	}
}

// TestNoFinalCheckpointWhenStopped: a job stopped before its input ends
// takes no final checkpoint (what it read after its last checkpoint is
// lost, as in a crash).
func TestNoFinalCheckpointWhenStopped(t *testing.T) {
	ctx := context.Background()
	store := jobStore(t, mem.New())
	defer store.Close()
	src := exectest.NewSource(t, exectest.Alloc(t), input...) // never ends
	job, _ := countingJob(t, src, 2, store, false)
	flushed(t, ctx, job, 1)
	job.Stop()
	if epoch, err := store.Recover(ctx); err != nil || epoch != 0 {
		t.Fatalf("last committed epoch %d, %v; want none", epoch, err)
	}
}

// TestCheckpointAsTheInputEnds: a checkpoint requested as the job's input
// ends (what closing eddy does right after a FLUSH) succeeds — it is a
// regular checkpoint or, once the job has finished, the final one it
// waits for — and the store ends up holding the whole state.
func TestCheckpointAsTheInputEnds(t *testing.T) {
	ctx := context.Background()
	for range 20 {
		store := jobStore(t, mem.New())
		src := exectest.NewSource(t, exectest.Alloc(t), input...)
		var mu sync.Mutex
		count := OpSpec{Name: "count", New: func(int) (exec.Operator, error) {
			mu.Lock()
			defer mu.Unlock()
			return &keyCounter{}, nil
		}}
		job, err := StartJob(ctx, exchanged(src, DistHash, 2, count, &passthrough{}),
			JobOptions{Alloc: exectest.Alloc(t), State: store, CheckpointInterval: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		src.End()
		if _, err := job.CheckpointNext(ctx); err != nil {
			t.Fatalf("a checkpoint as the input ends: %v", err)
		}
		if err := job.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		if got, want := committed(t, store), map[int64]int64{1: 1, 2: 2, 3: 2, 4: 1, 5: 1}; !maps.Equal(got, want) {
			t.Fatalf("the store holds %v, want %v", got, want)
		}
		if err := store.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
