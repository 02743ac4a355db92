package dataflow

import (
	"context"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/mem"
)

// tsRecorder is a sink that counts the rows it receives by window of
// size ms of their event time (column 0, a TIMESTAMP).
type tsRecorder struct {
	nopOp
	size int64
	mu   sync.Mutex
	rows map[int64]int
}

// KeepsNoState implements exec.Stateless: the job can checkpoint.
func (*tsRecorder) KeepsNoState() {}

func (r *tsRecorder) Process(_ context.Context, _ int, c exec.Chunk, _ exec.Emitter) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, v := range c.Batch.Column(0).(*array.Timestamp).TimestampValues() {
		r.rows[floorDiv(int64(v), r.size)]++
	}
	return nil
}

// TestWindowFatesResume checkpoints a job that sheds whole windows in the
// middle of its windows, and resumes it: the rows read after the
// checkpoint meet the fate their windows met before it, though the
// resumed job's drop fraction is another, so every window reaches the
// sink whole or not at all.
func TestWindowFatesResume(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	alloc := exectest.Alloc(t)
	const size, windows = 10, 100
	db := mem.New()
	// The first half of every window's rows, then the second half: the
	// checkpoint falls between them.
	half := func(lo int64) []int64 {
		var ts []int64
		for w := int64(0); w < windows; w++ {
			for k := lo; k < lo+size/2; k++ {
				ts = append(ts, w*size+k)
			}
		}
		return ts
	}
	rec := &tsRecorder{size: size, rows: map[int64]int{}}
	run := func(store storage.StateStore, restore bool, fraction float64, chunks ...[]int64) *Job {
		src := exectest.NewSource(t, alloc)
		g := GraphSpec{Stages: []StageSpec{sourceStage(src), stage(0, DistSingle, 1, only("sink", rec))}}
		// The controller never runs (its period is centuries): the test
		// sets the fraction, as it would, before the rows come.
		job := startJob(t, g, JobOptions{Alloc: alloc, State: store, Restore: restore,
			Shed: &ShedSpec{MaxLatency: 1 << 62, Every: 1 << 62, Seed: 5, Window: &WindowShed{TimeCol: 0, Size: size}}})
		job.shed.windows.publish(fraction)
		for _, ts := range chunks {
			src.Push(tsChunk(alloc, ts))
		}
		return job
	}
	store := jobStore(t, db)
	job := run(store, false, 0.5, half(0))
	checkpointAfterFlush(t, ctx, job, 1, 1)
	job.Stop()
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	first := len(rec.rows)
	if first == 0 || first == windows {
		t.Fatalf("%d of %d windows kept at fraction 0.5", first, windows)
	}

	store2 := jobStore(t, db)
	defer store2.Close()
	job2 := run(store2, true, 0.9, half(0), half(size/2)) // the first chunk is skipped, read before the checkpoint
	flushed(t, ctx, job2, 1)
	for w := int64(0); w < windows; w++ {
		if n := rec.rows[w]; n != 0 && n != size {
			t.Fatalf("window %d: %d of its %d rows reached the sink across the restart", w, n, size)
		}
	}
	if len(rec.rows) != first {
		t.Errorf("%d windows kept after the restart, %d before", len(rec.rows), first)
	}
}

// TestWindowFatesRecords checks the recorded schedules' merge: the
// latest version, preceded by the entries an earlier version kept and
// the latest forgot (behind the watermarks), with the largest frontier.
func TestWindowFatesRecords(t *testing.T) {
	const size = 10
	spec := StageSpec{Parallelism: 1, Watermark: &WatermarkSpec{TimeCol: 0}}
	a := newWindowFates(WindowShed{TimeCol: 0, Size: size}, 9)
	s := a.shedder(spec)
	a.publish(0.3) // from the first window on
	a.decided(990)
	a.publish(0.6) // from 991
	r1 := a.encode()
	full := a.sched.Load()
	s.safe.Store(1500)
	a.decided(1990)
	a.publish(0.9) // from 1991, forgetting what is before 991
	r2 := a.encode()
	if n := len(a.sched.Load().from); n != 2 {
		t.Fatalf("the schedule kept %d entries, want 2", n)
	}
	store := jobStore(t, mem.New())
	defer store.Close()
	tab, err := store.Table("source/0", storage.TableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range [][]byte{r2, r1} {
		if err := tab.Put(fatesKey([]byte{0, byte(i)}), r); err != nil {
			t.Fatal(err)
		}
	}
	b := newWindowFates(WindowShed{TimeCol: 0, Size: size}, 9)
	if err := b.restore(tab); err != nil {
		t.Fatal(err)
	}
	got := b.sched.Load()
	for w := int64(-1000); w < 3000; w += size {
		want := full.fraction(w)
		if w >= 1991 {
			want = 0.9
		}
		if g := got.fraction(w); g != want {
			t.Errorf("window %d: fraction %v after the restore, want %v", w, g, want)
		}
	}
	if f := b.frontier.Load(); f != 1990 {
		t.Errorf("frontier %d after the restore, want 1990", f)
	}
	if err := tab.Put(fatesKey([]byte{0, 9}), r1[:len(r1)-1]); err != nil {
		t.Fatal(err)
	}
	if err := newWindowFates(WindowShed{TimeCol: 0, Size: size}, 9).restore(tab); err == nil {
		t.Error("a damaged record restored")
	}
}
