package dataflow

import (
	"context"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/mem"
)

// input is the replayable input of the resume tests, a chunk at a time.
var input = []string{"bigint\n+I 1\n+I 2", "bigint\n+I 2\n+I 3", "bigint\n+I 3\n+I 4", "bigint\n+I 5"}

// checkpointAfter runs the counting job over the first n chunks of input,
// flushed and checkpointed as epoch 1, then over one more chunk that no
// checkpoint covers, and stops: a crash after a checkpoint.
func checkpointAfter(t *testing.T, ctx context.Context, store storage.StateStore, n int) {
	t.Helper()
	src := exectest.NewSource(t, exectest.Alloc(t), input[:n]...)
	job, _ := countingJob(t, src, 2, store, false)
	defer job.Stop()
	checkpointAfterFlush(t, ctx, job, 1, 1)
	src.Add(input[n]) // read after the checkpoint: lost with the crash
	flushed(t, ctx, job, 2)
}

// TestCheckpointResumesSourcesAtTheirPosition: a job resumed from a
// checkpoint seeks its source to the position recorded with the barrier,
// so every row of a replayed input is counted exactly once — neither the
// rows the checkpoint covers again, nor the rows read after it lost.
func TestCheckpointResumesSourcesAtTheirPosition(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db := mem.New()
	store := jobStore(t, db)
	checkpointAfter(t, ctx, store, 2)
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	store2 := jobStore(t, db)
	defer store2.Close()
	// The resumed source replays the whole input, as a file or a log does.
	src := exectest.NewSource(t, exectest.Alloc(t), input...)
	job, _ := countingJob(t, src, 2, store2, true)
	defer job.Stop()
	checkpointAfterFlush(t, ctx, job, 1, 2)
	want := map[int64]int64{1: 1, 2: 2, 3: 2, 4: 1, 5: 1}
	if got := committed(t, store2); !maps.Equal(got, want) {
		t.Fatalf("after resuming, the counts are %v, want %v", got, want)
	}
}

// TestResumeRefusesWhatItCannotSeek: a resumed job fails, naming the
// source, when its source cannot seek, when the checkpoint's source ran
// at another parallelism, or when the recorded position is damaged.
func TestResumeRefusesWhatItCannotSeek(t *testing.T) {
	ctx, store := checkpointed(t)
	checkpointAfter(t, ctx, store, 1)
	resume := func(src exec.Source, srcParallelism int) error {
		count := OpSpec{Name: "count", New: func(int) (exec.Operator, error) { return &keyCounter{}, nil }}
		g := exchanged(src, DistHash, 2, count, &passthrough{})
		g.Stages[0].Parallelism = srcParallelism
		job, err := StartJob(ctx, g, JobOptions{Alloc: exectest.Alloc(t), State: store, Restore: true})
		if err != nil {
			return err
		}
		defer job.Stop()
		return job.Wait(ctx)
	}
	for _, c := range []struct {
		name string
		src  func() exec.Source
		par  int
		want string
	}{
		{"not positioned", func() exec.Source { return unpositioned{exectest.NewSource(t, exectest.Alloc(t), input...)} }, 1,
			"cannot resume from a checkpoint: stage 0's source does not record its position"},
		{"other parallelism", func() exec.Source { return exectest.NewSource(t, exectest.Alloc(t), input...) }, 2,
			"not supported yet: resuming stage 0's source at parallelism 2 from a checkpoint taken at parallelism 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := resume(c.src(), c.par); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
	t.Run("damaged", func(t *testing.T) {
		tab, err := store.Table(sourceTableName(0), storage.TableOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := tab.Put([]byte{0, 0}, []byte{positionVersion, 0}); err != nil {
			t.Fatal(err)
		}
		if err := store.Commit(ctx, 2); err != nil { // a resumed job reads only what is committed
			t.Fatal(err)
		}
		err = resume(exectest.NewSource(t, exectest.Alloc(t), input...), 1)
		if err == nil || !strings.Contains(err.Error(), "stage 0 instance 0: damaged source position") {
			t.Fatalf("got %v", err)
		}
	})
}

// unpositioned hides a source's Positioned methods.
type unpositioned struct{ s *exectest.Source }

func (u unpositioned) Open(ctx context.Context, env *exec.Env) error { return u.s.Open(ctx, env) }
func (u unpositioned) Next(ctx context.Context) (exec.Chunk, error)  { return u.s.Next(ctx) }
func (u unpositioned) Wait(ctx context.Context) error                { return u.s.Wait(ctx) }
func (u unpositioned) Close() error                                  { return u.s.Close() }

// TestResumableNamesWhatKeepsState: a job with an operator that is neither
// Stateful nor Stateless is not resumable: it says which operator, takes
// no periodic checkpoints and refuses to start with Restore.
func TestResumableNamesWhatKeepsState(t *testing.T) {
	ctx, store := checkpointed(t)
	g := exchanged(exectest.NewSource(t, exectest.Alloc(t), input...), DistHash, 2, only("keeper", &recorder{}), &passthrough{})
	opts := JobOptions{Alloc: exectest.Alloc(t), State: store, CheckpointInterval: time.Millisecond}
	job, err := StartJob(ctx, g, opts)
	if err != nil {
		t.Fatal(err)
	}
	const want = "keeper (stage 1) keeps state it cannot snapshot"
	if err := job.Resumable(); err == nil || err.Error() != want {
		t.Errorf("Resumable: %v, want %q", err, want)
	}
	time.Sleep(20 * time.Millisecond)
	if n := len(job.Checkpoints()); n != 0 {
		t.Errorf("a job that cannot resume took %d periodic checkpoints", n)
	}
	job.Stop()
	opts.Restore = true
	if _, err := StartJob(ctx, g, opts); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("StartJob with Restore: %v, want %q", err, want)
	}
}

// TestPositionRoundTrip: a recorded position decodes to what was encoded,
// and every truncation of it is refused.
func TestPositionRoundTrip(t *testing.T) {
	p := sourcePosition{parallelism: 3, positioned: true, wm: -5, wmRows: 42, pos: []byte("abc")}
	b := p.encode()
	got, err := decodePosition(b)
	if err != nil || got.parallelism != 3 || !got.positioned || got.wm != -5 || got.wmRows != 42 || string(got.pos) != "abc" {
		t.Fatalf("decoded %+v, %v", got, err)
	}
	for n := range len(b) - len(p.pos) {
		if _, err := decodePosition(b[:n]); err == nil {
			t.Errorf("a position cut to %d bytes decoded", n)
		}
	}
}

// TestEndedSourceKeepsItsEndInLaterCheckpoints: of a source stage's two
// instances, one ends (a bounded split) while the other goes on; the
// checkpoints taken after its end record it at its end, so a job resumed
// from one does not read the ended split's last rows again (it once did:
// an ended source sent no more barriers, and its last recorded position
// stayed the one before its end).
func TestEndedSourceKeepsItsEndInLaterCheckpoints(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db := mem.New()
	store := jobStore(t, db)
	alloc := exectest.Alloc(t)
	splits := []*exectest.Source{exectest.NewSource(t, alloc, input[:2]...), exectest.NewSource(t, alloc, input[2])}
	run := func(store storage.StateStore, restore bool, splits []*exectest.Source) *Job {
		var counters []*keyCounter
		var mu sync.Mutex
		count := OpSpec{Name: "count", New: func(int) (exec.Operator, error) {
			mu.Lock()
			defer mu.Unlock()
			k := &keyCounter{}
			counters = append(counters, k)
			return k, nil
		}}
		g := GraphSpec{Stages: []StageSpec{
			{Parallelism: 2, Source: func(i int) (exec.Source, error) { return splits[i], nil }},
			stage(0, DistHash, 2, count), stage(1, DistSingle, 1, only("sink", &passthrough{}))}}
		job, err := StartJob(ctx, g, JobOptions{Alloc: alloc, State: store, Restore: restore})
		if err != nil {
			t.Fatal(err)
		}
		return job
	}
	// Split 0 ends at once; split 1 stays open. Checkpoint 1 cannot be
	// taken until split 0 has ended: wait for its rows, then checkpoint.
	splits[0].End()
	job := run(store, false, splits)
	checkpointAfterFlush(t, ctx, job, 1, 1)
	if err := job.Checkpoint(ctx, 2); err != nil {
		t.Fatal(err)
	}
	job.Stop()
	job.Wait(ctx)
	store.Close()
	want := map[int64]int64{1: 1, 2: 2, 3: 2, 4: 1}
	store = jobStore(t, db)
	defer store.Close()
	replay := []*exectest.Source{exectest.NewSource(t, alloc, input[:2]...), exectest.NewSource(t, alloc, input[2])}
	replay[0].End()
	job = run(store, true, replay)
	defer job.Stop()
	checkpointAfterFlush(t, ctx, job, 1, 3)
	if got := committed(t, store); !maps.Equal(got, want) {
		t.Fatalf("after resuming, the counts are %v, want %v", got, want)
	}
}
