package dataflow

import (
	"context"
	"errors"
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
	counters := make([]*keyCounter, 2)
	runToEnd(t, exchanged(src, DistHash, 2, recordedOp("count", counters), &passthrough{}), store, restore)
	return counters
}

// recordedOp returns the spec of an operator of type T, new for each
// instance, which it records in out by instance.
func recordedOp[T any, PT interface {
	*T
	exec.Operator
}](name string, out []PT) OpSpec {
	var mu sync.Mutex
	return OpSpec{Name: name, New: func(inst int) (exec.Operator, error) {
		mu.Lock()
		defer mu.Unlock()
		out[inst] = new(T)
		return out[inst], nil
	}}
}

// runToEnd runs g to its end, with state in store (restored from it if
// restore), with periodic checkpoints too rare to be taken.
func runToEnd(t *testing.T, g GraphSpec, store storage.StateStore, restore bool) {
	t.Helper()
	job, err := StartJob(context.Background(), g, JobOptions{Alloc: exectest.Alloc(t), State: store, Restore: restore,
		CheckpointInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if err := job.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
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

// finiteSource is a test source whose input is finite for good.
type finiteSource struct{ *exectest.Source }

func (finiteSource) Finite() bool { return true }

// forwardingCounter counts as keyCounter does and passes its input on.
type forwardingCounter struct{ keyCounter }

func (f *forwardingCounter) Process(ctx context.Context, in int, c exec.Chunk, out exec.Emitter) error {
	if err := f.keyCounter.Process(ctx, in, c, out); err != nil {
		return err
	}
	return out.Emit(ctx, c)
}

// inputCounter is a keyCounter whose state serves only to process more
// input.
type inputCounter struct{ keyCounter }

func (*inputCounter) StateOutlivesInput() bool { return false }

// finiteJob runs src → hash → [forwardingCounter, inputCounter] at
// parallelism 2 → a sink, to its end, with periodic checkpoints too rare
// to be taken, and returns the counters of each kind by instance.
func finiteJob(t *testing.T, src exec.Source, store storage.StateStore, restore bool) (kept []*forwardingCounter, dropped []*inputCounter) {
	t.Helper()
	kept, dropped = make([]*forwardingCounter, 2), make([]*inputCounter, 2)
	g := GraphSpec{Stages: []StageSpec{sourceStage(src), stage(0, DistHash, 2, recordedOp("keep", kept), recordedOp("drop", dropped)),
		stage(1, DistSingle, 1, only("sink", &passthrough{}))}}
	runToEnd(t, g, store, restore)
	return kept, dropped
}

// TestFinalCheckpointOfFiniteInput: when every source is finite for
// good, the final checkpoint leaves out the state of the operators whose
// state serves only to process more input, and marks the checkpoint; a
// job resumed from it restores the other operators' state only. With a
// source that may yet grow (a file), both are written and restored.
func TestFinalCheckpointOfFiniteInput(t *testing.T) {
	ctx := context.Background()
	want := map[int64]int64{1: 1, 2: 2, 3: 2, 4: 1, 5: 1}
	for _, finite := range []bool{true, false} {
		db := mem.New()
		store := jobStore(t, db)
		newSource := func() exec.Source {
			src := exectest.NewSource(t, exectest.Alloc(t), input...)
			src.End()
			if finite {
				return finiteSource{src}
			}
			return src
		}
		finiteJob(t, newSource(), store, false)
		if epoch, err := store.Recover(ctx); err != nil || epoch != 1 {
			t.Fatalf("finite %v: last committed epoch %d, %v; want the final checkpoint, 1", finite, epoch, err)
		}
		if got := committedIn(t, store, stateTableName(1, 0)); !maps.Equal(got, want) {
			t.Fatalf("finite %v: the final checkpoint holds %v of the kept state, want %v", finite, got, want)
		}
		wantDropped := want
		if finite {
			wantDropped = map[int64]int64{}
		}
		if got := committedIn(t, store, stateTableName(1, 1)); !maps.Equal(got, wantDropped) {
			t.Fatalf("finite %v: the final checkpoint holds %v of the state serving input, want %v", finite, got, wantDropped)
		}
		if marked, err := readFinished(store); err != nil || marked != finite {
			t.Fatalf("finite %v: the checkpoint's mark reads %v, %v", finite, marked, err)
		}
		if err := store.Close(); err != nil {
			t.Fatal(err)
		}

		store = jobStore(t, db)
		kept, dropped := finiteJob(t, newSource(), store, true)
		gotKept, gotDropped := map[int64]int64{}, map[int64]int64{}
		for i := range kept {
			maps.Copy(gotKept, kept[i].counts)
			maps.Copy(gotDropped, dropped[i].counts)
			if restored := dropped[i].restored.Len() > 0; restored == finite {
				t.Errorf("finite %v: instance %d's input state restored: %v", finite, i, restored)
			}
		}
		if !maps.Equal(gotKept, want) || !maps.Equal(gotDropped, wantDropped) {
			t.Errorf("finite %v: the resumed job holds %v and %v, want %v and %v", finite, gotKept, gotDropped, want, wantDropped)
		}
		// The resumed job's own final checkpoint keeps what it holds.
		if got := committedIn(t, store, stateTableName(1, 0)); !maps.Equal(got, want) {
			t.Errorf("finite %v: after the resumed job, the store holds %v of the kept state, want %v", finite, got, want)
		}
		if err := store.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDamagedFinishedMark: a mark that does not read back fails the
// resumed job with a damaged checkpoint, as a damaged state entry does.
func TestDamagedFinishedMark(t *testing.T) {
	ctx := context.Background()
	db := mem.New()
	store := jobStore(t, db)
	src := exectest.NewSource(t, exectest.Alloc(t), input...)
	src.End()
	finiteJob(t, finiteSource{src}, store, false)
	tab, err := store.Table(finishedTable, storage.TableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := tab.Put(finishedKey, []byte{0x80}); err != nil {
		t.Fatal(err)
	}
	if err := store.Commit(ctx, 2); err != nil {
		t.Fatal(err)
	}
	src = exectest.NewSource(t, exectest.Alloc(t), input...)
	src.End()
	g := GraphSpec{Stages: []StageSpec{sourceStage(finiteSource{src}), stage(0, DistHash, 2, OpSpec{Name: "drop", New: func(int) (exec.Operator, error) { return &inputCounter{}, nil }}),
		stage(1, DistSingle, 1, only("sink", &passthrough{}))}}
	job, err := StartJob(ctx, g, JobOptions{Alloc: exectest.Alloc(t), State: store, Restore: true})
	if err != nil {
		t.Fatal(err)
	}
	err = job.Wait(ctx)
	var re *RestoreError
	if !errors.As(err, &re) || !re.Damaged || re.Epoch != 2 {
		t.Fatalf("resuming from a damaged mark: %v; want a damaged checkpoint 2", err)
	}
	store.Close()
}
