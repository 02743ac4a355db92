package dataflow

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"sync"
	"testing"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// passCounter is a keyCounter that also passes its rows on, so that the
// sink sees what the counter counted.
type passCounter struct{ keyCounter }

func (p *passCounter) Process(ctx context.Context, in int, c exec.Chunk, out exec.Emitter) error {
	if err := p.keyCounter.Process(ctx, in, c, out); err != nil {
		return err
	}
	return out.Emit(ctx, c)
}

// rescalable returns the graph the rescale tests run: src, then a
// passCounter at parallelism p, then rec. At parallelism 1 the counter
// runs in the source's stage (no exchange, as the physical planner fuses
// it), at more behind a hash exchange: its stage, and so its default
// table name, differ, and its StateKey keeps the table.
func rescalable(src exec.Source, p int, rec *recorder, counters *[]*passCounter, mu *sync.Mutex) GraphSpec {
	count := OpSpec{Name: "count", StateKey: "count", New: func(int) (exec.Operator, error) {
		mu.Lock()
		defer mu.Unlock()
		c := &passCounter{}
		*counters = append(*counters, c)
		return c, nil
	}}
	sink := only("sink", statelessRecorder{rec})
	if p == 1 {
		s := sourceStage(src, count, sink)
		s.SourceKey = "source"
		return GraphSpec{Stages: []StageSpec{s}}
	}
	s := sourceStage(src)
	s.SourceKey = "source"
	return GraphSpec{Stages: []StageSpec{s, stage(0, DistHash, p, count), stage(1, DistSingle, 1, sink)}}
}

// rescaleInput is chunks of keys 0..49, 20 rows each.
func rescaleInput(chunks int) []string {
	var out []string
	for c := range chunks {
		var b strings.Builder
		b.WriteString("bigint")
		for r := range 20 {
			fmt.Fprintf(&b, "\n+I %d", (c*20+r)%50)
		}
		out = append(out, b.String())
	}
	return out
}

// countsOf returns how many times each key occurs in chunks.
func countsOf(chunks []string) map[int64]int64 {
	out := map[int64]int64{}
	for c := range chunks {
		for r := range 20 {
			out[int64((c*20+r)%50)]++
		}
	}
	return out
}

// TestStopAtCheckpointRescales: a job stopped at a checkpoint in the
// middle of its input — while its source still has rows to give — has
// done nothing past the barrier (its sink saw exactly the rows the
// checkpoint counts), and the job of the same query at another
// parallelism, restored from that checkpoint over the whole input
// replayed, counts every row exactly once: 1 → 2 → 3 → 1, stopping each
// time at a checkpoint. RestoreMoves tells what each restore read, and
// what of it in the key groups that changed instance.
func TestStopAtCheckpointRescales(t *testing.T) {
	ctx, store := checkpointed(t)
	input := rescaleInput(40)
	var mu sync.Mutex
	var counters []*passCounter
	seen := 0 // rows the sinks saw, over every job
	var prev GraphSpec
	for round, p := range []int{1, 2, 3, 1} {
		rec := &recorder{}
		// Each job replays the input so far, as a log does: a restored
		// job seeks past what the checkpoint covers.
		k := 10 * (round + 1)
		src := exectest.NewSource(t, exectest.Alloc(t), input[:k]...)
		counters = nil
		g := rescalable(src, p, rec, &counters, &mu)
		job, err := StartJob(ctx, g, JobOptions{Alloc: exectest.Alloc(t), State: store, Restore: round > 0})
		if err != nil {
			t.Fatal(err)
		}
		if round > 0 {
			if err := job.WaitOpened(ctx); err != nil {
				t.Fatal(err)
			}
			m := job.RestoreMoves(prev)
			total, err := store.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			if m.Read <= 0 || m.Moved <= 0 || m.Moved >= m.Read || m.Read > total {
				t.Errorf("round %d (parallelism %d): read %d bytes, moved %d, of %d stored", round, p, m.Read, m.Moved, total)
			}
		}
		// Every row so far reaches the counters; then rows arrive while
		// the job stops, some before its barrier and some after.
		flushed(t, ctx, job, 1)
		if round < 3 {
			src.Add(input[k : k+10]...)
		}
		if _, err := job.StopAtCheckpoint(ctx); err != nil {
			t.Fatal(err)
		}
		got := committedIn(t, store, "count")
		n := int64(0)
		for _, c := range got {
			n += c
		}
		seen += len(rec.sorted())
		if int64(seen) != n {
			t.Fatalf("round %d (parallelism %d): the sinks saw %d rows, the checkpoint counts %d", round, p, seen, n)
		}
		prev = g
	}
	if got, want := committedIn(t, store, "count"), countsOf(input); !maps.Equal(got, want) {
		t.Fatalf("after the rescales the counts are %v, want %v", got, want)
	}
}

// TestStopAtCheckpointOfAFailedJob: a job that failed does not stop at a
// checkpoint; the error says why, and the job is stopped.
func TestStopAtCheckpointOfAFailedJob(t *testing.T) {
	ctx, store := checkpointed(t)
	src := exectest.NewSource(t, exectest.Alloc(t), "bigint\n+I 1")
	g := exchanged(src, DistHash, 2, only("fail", failingStateful{}), &passthrough{})
	job, err := StartJob(ctx, g, JobOptions{Alloc: exectest.Alloc(t), State: store})
	if err != nil {
		t.Fatal(err)
	}
	<-job.Done()
	if _, err := job.StopAtCheckpoint(ctx); err == nil || !strings.Contains(err.Error(), "the job failed") {
		t.Fatalf("StopAtCheckpoint of a failed job: %v", err)
	}
	if epoch, err := store.Recover(ctx); err != nil || epoch != 0 {
		t.Fatalf("the store committed epoch %d (%v), want none", epoch, err)
	}
}

// statelessRecorder is a recorder that says it keeps no state, so that a
// job ending in it checkpoints.
type statelessRecorder struct{ *recorder }

func (statelessRecorder) KeepsNoState() {}

// failingStateful fails on every chunk, and keeps no state.
type failingStateful struct{ failing }

func (failingStateful) KeepsNoState() {}

// TestStopAtCheckpointNeedsAStore: a job without a state store cannot
// stop at a checkpoint.
func TestStopAtCheckpointNeedsAStore(t *testing.T) {
	src := exectest.NewSource(t, exectest.Alloc(t), "bigint\n+I 1")
	job := startJob(t, exchanged(src, DistHash, 2, only("pass", &passthrough{}), &passthrough{}), JobOptions{Alloc: exectest.Alloc(t)})
	if _, err := job.StopAtCheckpoint(context.Background()); err == nil || !strings.Contains(err.Error(), "no state store") {
		t.Fatalf("got %v", err)
	}
	if state, _ := job.State(); state != JobCancelled {
		t.Fatalf("the job is %s, want cancelled", state)
	}
}
