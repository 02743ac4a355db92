package dataflow

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/storage/mem"
)

// TestPeriodicCheckpoints: a job with a checkpoint interval checkpoints on
// its own, its epochs numbered on from the store's last committed one
// across a restart, each recorded with its outcome, and the coordinator
// ends with the job.
func TestPeriodicCheckpoints(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db := mem.New()
	run := func(restore bool, chunks ...string) []CheckpointStat {
		t.Helper()
		store := jobStore(t, db)
		defer store.Close()
		src := exectest.NewSource(t, exectest.Alloc(t), chunks...)
		count := OpSpec{Name: "count", New: func(int) (exec.Operator, error) { return &keyCounter{}, nil }}
		job, err := StartJob(ctx, exchanged(src, DistHash, 2, count, &passthrough{}),
			JobOptions{Alloc: exectest.Alloc(t), State: store, Restore: restore, CheckpointInterval: 5 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		// Wait for two checkpoints after every row is in: the last one
		// holds them all.
		flushed(t, ctx, job, 1)
		n := len(job.Checkpoints())
		for len(job.Checkpoints()) < n+2 {
			select {
			case <-ctx.Done():
				t.Fatal("no periodic checkpoints")
			case <-time.After(time.Millisecond):
			}
		}
		job.Stop() // returns once the coordinator has ended too
		stats := job.Checkpoints()
		for i, s := range stats {
			// The one Stop interrupted may have failed for it.
			if s.Err != nil && i < len(stats)-1 {
				t.Fatalf("checkpoint %d: %v", s.Epoch, s.Err)
			}
			if i > 0 && s.Epoch != stats[i-1].Epoch+1 {
				t.Fatalf("epochs %d then %d", stats[i-1].Epoch, s.Epoch)
			}
		}
		if got, want := committed(t, store), map[int64]int64{1: 1, 2: 2, 3: 2, 4: 1, 5: 1}; restore && !maps.Equal(got, want) {
			t.Fatalf("committed %v, want %v", got, want)
		}
		return stats
	}
	first := run(false, input[:2]...)
	if first[0].Epoch != 1 {
		t.Fatalf("the first checkpoint is epoch %d, want 1", first[0].Epoch)
	}
	second := run(true, input...)
	// Numbered on from the last committed epoch (an epoch Stop
	// interrupted is taken again).
	last := first[len(first)-1]
	if last.Err != nil {
		last = first[len(first)-2]
	}
	if second[0].Epoch != last.Epoch+1 {
		t.Fatalf("after a restart the epochs start at %d, not after %d", second[0].Epoch, last.Epoch)
	}
}

// TestConcurrentCheckpointsTakeDistinctEpochs: two callers of
// CheckpointNext at once (the coordinator and FLUSH) take two epochs, one
// after the other — never the same epoch twice, which once staged a file
// sink's part of an epoch twice — and Checkpoint refuses an epoch not
// after the last one.
func TestConcurrentCheckpointsTakeDistinctEpochs(t *testing.T) {
	ctx, store := checkpointed(t)
	src := exectest.NewSource(t, exectest.Alloc(t), input...)
	job, _ := countingJob(t, src, 2, store, false)
	defer job.Stop()
	epochs := make([]uint64, 8)
	var wg sync.WaitGroup
	for i := range epochs {
		wg.Go(func() {
			e, err := job.CheckpointNext(ctx)
			if err != nil {
				t.Error(err)
			}
			epochs[i] = e
		})
	}
	wg.Wait()
	slices.Sort(epochs)
	for i, e := range epochs {
		if e != uint64(i+1) {
			t.Fatalf("epochs %v, want 1..%d", epochs, len(epochs))
		}
	}
	if err := job.Checkpoint(ctx, 3); err == nil || !strings.Contains(err.Error(), "not after the last one") {
		t.Fatalf("checkpoint 3 after 8: %v", err)
	}
}
