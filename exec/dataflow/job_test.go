package dataflow

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

func TestJobHashExchangeDeliversEveryRowOnce(t *testing.T) {
	alloc := exectest.Alloc(t)
	sink := &recorder{}
	job := runJob(t, exchanged(intReplay(t, alloc, 0, 10000, 1), DistHash, 3, only("pass", &passthrough{}), sink), JobOptions{Alloc: alloc})
	if st, _ := job.State(); st != JobFinished {
		t.Fatalf("state %s", st)
	}
	got := sink.sorted()
	if len(got) != 10000 {
		t.Fatalf("got %d rows, want 10000", len(got))
	}
	for i, v := range got {
		if v != int64(i) {
			t.Fatalf("row %d is %d", i, v)
		}
	}
	// End of input arrives once, after all three instances ended.
	end := exec.Control{Kind: exec.EndOfInput}.String()
	if n := len(slices.DeleteFunc(sink.seen(), func(e string) bool { return e != end })); n != 1 {
		t.Fatalf("sink saw %d end-of-input messages", n)
	}
}

func TestJobFlushReflectsEveryIngestedRow(t *testing.T) {
	alloc := exectest.Alloc(t)
	src := exectest.NewSource(t, alloc)
	sink := &recorder{}
	job := startJob(t, exchanged(src, DistHash, 2, only("pass", &passthrough{}), sink), JobOptions{Alloc: alloc})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for round := 1; round <= 20; round++ {
		src.Push(exec.Chunk{Batch: intBatch(alloc, round*1000, round*1000+50)})
		job.RequestFlush(uint64(round))
		if err := job.WaitFlushed(ctx, uint64(round)); err != nil {
			t.Fatal(err)
		}
		if got := len(sink.sorted()); got != round*50 {
			t.Fatalf("after flush %d the sink has %d rows, want %d", round, got, round*50)
		}
	}
	job.Stop()
	if st, _ := job.State(); st != JobCancelled {
		t.Fatalf("state after Stop: %s", st)
	}
}

// TestJobFailureStopsEveryTask checks that an operator's error fails its
// job, and that a panicking operator fails it with ErrInternal and the
// stack, leaving the process running. (The batch the panic interrupted is
// left to the garbage collector: the unchecked allocator.)
func TestJobFailureStopsEveryTask(t *testing.T) {
	for _, tt := range []struct {
		name  string
		op    exec.Operator
		alloc func(t *testing.T) memory.Allocator
		want  func(err error) bool
	}{
		{"error", failing{}, func(t *testing.T) memory.Allocator { return exectest.Alloc(t) },
			func(err error) bool { return errors.Is(err, io.ErrUnexpectedEOF) }},
		{"panic", panicking{}, func(*testing.T) memory.Allocator { return memory.NewGoAllocator() },
			func(err error) bool {
				return errors.Is(err, ErrInternal) && strings.Contains(err.Error(), "broken invariant") &&
					strings.Contains(err.Error(), "panicking.Process")
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			alloc := tt.alloc(t)
			src := exectest.NewSource(t, alloc, "bigint\n+I 1\n+I 2\n+I 3")
			job := startJob(t, GraphSpec{Stages: []StageSpec{sourceStage(src), stage(0, DistForward, 1, only("op", tt.op))}},
				JobOptions{Alloc: alloc})
			err := job.Wait(context.Background())
			if st, _ := job.State(); !tt.want(err) || st != JobFailed {
				t.Fatalf("want a failed job, got %v (%s)", err, st)
			}
		})
	}
}

type panicking struct{ failing }

func (panicking) Process(context.Context, int, exec.Chunk, exec.Emitter) error {
	panic("broken invariant")
}

// reusingOps emits every chunk with ops from one buffer it reuses, as
// producers may (HashAgg does); consumers across an exchange must not see
// the next chunk's ops.
type reusingOps struct {
	nopOp
	ops []exec.Op
}

func (r *reusingOps) Process(ctx context.Context, in int, c exec.Chunk, out exec.Emitter) error {
	r.ops = r.ops[:0]
	for i := 0; i < c.NumRows(); i++ {
		r.ops = append(r.ops, oddChunkDeletes(types.DatumAt(c.Batch.Column(0), i, types.BigIntT).I))
	}
	return out.Emit(ctx, exec.Chunk{Batch: c.Batch, Ops: r.ops})
}

// oddChunkDeletes is the op reusingOps gives value v: chunk k (values
// 4096k..) is all inserts for even k and all deletes for odd k.
func oddChunkDeletes(v int64) exec.Op {
	if v/exec.BatchRows%2 == 1 {
		return exec.Delete
	}
	return exec.Insert
}

func TestExchangeCopiesReusedOps(t *testing.T) {
	alloc := exectest.Alloc(t)
	// Several chunks, so some sit in the channel while the producer
	// overwrites its ops buffer.
	const rows = 20000
	src := intReplay(t, alloc, 0, rows, 1)
	for _, dist := range []Distribution{DistForward, DistHash} {
		p := 1
		if dist == DistHash {
			p = 2
		}
		sink := &opsRecorder{}
		g := exchanged(src, dist, p, only("pass", &passthrough{}), sink)
		g.Stages[0].Ops = []OpSpec{only("reuse", &reusingOps{})}
		runJob(t, g, JobOptions{Alloc: alloc})
		checkOps(t, []*opsRecorder{sink}, rows, oddChunkDeletes)
	}
}

// endlessSource generates a batch on every call and never catches up.
type endlessSource struct {
	sourceBase
	next int
}

func (s *endlessSource) Next(ctx context.Context) (exec.Chunk, error) {
	s.next++
	return exec.Chunk{Batch: intBatch(s.alloc, s.next, s.next+1)}, nil
}

// endlessGenerator is an endlessSource that declares itself a generator.
type endlessGenerator struct{ endlessSource }

func (*endlessGenerator) GeneratesRows() {}

// TestJobFlushOverGenerator checks that a flush completes over an unbounded
// generator, which never catches up, but not over an ordinary source that
// never catches up (its rows were ingested and must all be reflected).
func TestJobFlushOverGenerator(t *testing.T) {
	for _, gen := range []bool{true, false} {
		alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
		src := exec.Source(&endlessSource{})
		if gen {
			src = &endlessGenerator{}
		}
		job, err := StartJob(context.Background(), GraphSpec{Stages: []StageSpec{sourceStage(src, only("sink", &exectest.Counter{}))}},
			JobOptions{Alloc: alloc})
		if err != nil {
			t.Fatal(err)
		}
		job.RequestFlush(1)
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		err = job.WaitFlushed(ctx, 1)
		cancel()
		job.Stop()
		_ = job.Wait(context.Background())
		switch {
		case gen && err != nil:
			t.Errorf("flush over a generator: %v", err)
		case !gen && err == nil:
			t.Errorf("flush over a source that never caught up completed")
		}
		alloc.AssertSize(t, 0)
	}
}

// trickleSource is bounded but catches up between its rows, like a
// throttled generator: it has nothing due on every other call.
type trickleSource struct {
	sourceBase
	calls int
	rows  int
}

func (s *trickleSource) Next(ctx context.Context) (exec.Chunk, error) {
	s.calls++
	switch {
	case s.rows == 5:
		return exec.Chunk{}, io.EOF
	case s.calls%2 == 1:
		return exec.Chunk{}, exec.ErrCaughtUp
	}
	s.rows++
	return exec.Chunk{Batch: intBatch(s.alloc, s.rows, s.rows+1)}, nil
}
func (s *trickleSource) Wait(ctx context.Context) error { time.Sleep(time.Millisecond); return nil }
func (s *trickleSource) Bounded() bool                  { return true }

// TestJobFlushWaitsForBoundedEnd checks that a flush over a bounded
// source that catches up before its end waits for the end (FLUSH reads
// every bounded source to its end).
func TestJobFlushWaitsForBoundedEnd(t *testing.T) {
	alloc := exectest.Alloc(t)
	sink := &recorder{}
	job := startJob(t, GraphSpec{Stages: []StageSpec{sourceStage(&trickleSource{}, only("sink", sink))}}, JobOptions{Alloc: alloc})
	job.RequestFlush(1)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := job.WaitFlushed(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if got := len(sink.sorted()); got != 5 {
		t.Fatalf("the flush returned with %d of the source's 5 rows", got)
	}
}

// TestRoundRobinSpreadsChunks checks that a round-robin exchange delivers
// every row once and gives each consumer instance chunks in turn.
func TestRoundRobinSpreadsChunks(t *testing.T) {
	alloc := exectest.Alloc(t)
	sink := &recorder{}
	seen := make([]exectest.Counter, 2)
	count := OpSpec{Name: "count", New: func(i int) (exec.Operator, error) { return &seen[i], nil }}
	for i := range seen {
		seen[i].Pass = true
	}
	runJob(t, exchanged(intReplay(t, alloc, 0, 5*exec.BatchRows, 1), DistRoundRobin, 2, count, sink), JobOptions{Alloc: alloc})
	got := sink.sorted()
	if len(got) != 5*exec.BatchRows || got[0] != 0 || got[len(got)-1] != int64(len(got)-1) {
		t.Fatalf("got %d rows", len(got))
	}
	if seen[0].Rows() == 0 || seen[1].Rows() == 0 {
		t.Fatalf("instances got %d and %d rows", seen[0].Rows(), seen[1].Rows())
	}
}
