package dataflow

import (
	"context"
	"errors"
	"io"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/basic"
)

// collectSink records every row it receives and the control messages it sees.
type collectSink struct {
	mu    sync.Mutex
	rows  []int64
	ctrls []exec.Control
}

func (s *collectSink) Open(context.Context, *exec.Env) error { return nil }
func (s *collectSink) Process(ctx context.Context, in int, c exec.Chunk, out exec.Emitter) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range types.Rows(c.Batch, []types.T{types.BigIntT}) {
		s.rows = append(s.rows, r[0].I)
	}
	return nil
}
func (s *collectSink) OnControl(ctx context.Context, m exec.Control, out exec.Emitter) error {
	s.mu.Lock()
	s.ctrls = append(s.ctrls, m)
	s.mu.Unlock()
	return nil
}
func (s *collectSink) Close() error { return nil }

func (s *collectSink) snapshot() []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]int64(nil), s.rows...)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// passthrough forwards chunks.
type passthrough struct{}

func (p *passthrough) Open(context.Context, *exec.Env) error { return nil }
func (p *passthrough) Process(ctx context.Context, in int, c exec.Chunk, out exec.Emitter) error {
	return out.Emit(ctx, c)
}
func (p *passthrough) OnControl(context.Context, exec.Control, exec.Emitter) error { return nil }
func (p *passthrough) Close() error                                                { return nil }

func intRows(lo, hi int) [][]types.Datum {
	var rows [][]types.Datum
	for i := lo; i < hi; i++ {
		rows = append(rows, []types.Datum{types.IntDatum(int64(i))})
	}
	return rows
}

func TestJobHashExchangeDeliversEveryRowOnce(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	sink := &collectSink{}
	g := GraphSpec{Stages: []StageSpec{
		{Parallelism: 1, Source: func(int) (exec.Source, error) {
			return &basic.ValuesSource{Names: []string{"x"}, Types: []types.T{types.BigIntT}, Rows: intRows(0, 10000)}, nil
		}},
		{Parallelism: 3, Inputs: []InputSpec{{From: 0, Dist: DistHash, Keys: []int{0}}},
			Ops: []OpSpec{{Name: "pass", New: func(int) (exec.Operator, error) { return &passthrough{}, nil }}}},
		{Parallelism: 1, Inputs: []InputSpec{{From: 1, Dist: DistSingle}},
			Ops: []OpSpec{{Name: "sink", New: func(int) (exec.Operator, error) { return sink, nil }}}},
	}}
	job, err := StartJob(context.Background(), g, JobOptions{Alloc: alloc})
	if err != nil {
		t.Fatal(err)
	}
	if err := job.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st, _ := job.State(); st != JobFinished {
		t.Fatalf("state %s", st)
	}
	got := sink.snapshot()
	if len(got) != 10000 {
		t.Fatalf("got %d rows, want 10000", len(got))
	}
	for i, v := range got {
		if v != int64(i) {
			t.Fatalf("row %d is %d", i, v)
		}
	}
	// End of input arrives once, after all three instances ended.
	n := 0
	for _, c := range sink.ctrls {
		if c.Kind == exec.EndOfInput {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("sink saw %d end-of-input messages", n)
	}
}

// growingSource is an unbounded source whose rows a test appends.
type growingSource struct {
	mu     sync.Mutex
	rows   []int64
	next   int
	signal chan struct{}
	alloc  memory.Allocator
}

func newGrowingSource() *growingSource { return &growingSource{signal: make(chan struct{}, 1)} }

func (s *growingSource) add(vs ...int64) {
	s.mu.Lock()
	s.rows = append(s.rows, vs...)
	s.mu.Unlock()
	select {
	case s.signal <- struct{}{}:
	default:
	}
}

func (s *growingSource) Open(ctx context.Context, env *exec.Env) error {
	s.alloc = env.Alloc
	return nil
}
func (s *growingSource) Next(ctx context.Context) (exec.Chunk, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next == len(s.rows) {
		return exec.Chunk{}, exec.ErrCaughtUp
	}
	var rows [][]types.Datum
	for _, v := range s.rows[s.next:] {
		rows = append(rows, []types.Datum{types.IntDatum(v)})
	}
	s.next = len(s.rows)
	return exec.Chunk{Batch: types.BuildRecord(s.alloc, []string{"x"}, []types.T{types.BigIntT}, rows)}, nil
}
func (s *growingSource) Wait(ctx context.Context) error {
	select {
	case <-s.signal:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
func (s *growingSource) Close() error { return nil }

func TestJobFlushReflectsEveryIngestedRow(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	src := newGrowingSource()
	sink := &collectSink{}
	g := GraphSpec{Stages: []StageSpec{
		{Parallelism: 1, Source: func(int) (exec.Source, error) { return src, nil }},
		{Parallelism: 2, Inputs: []InputSpec{{From: 0, Dist: DistHash, Keys: []int{0}}},
			Ops: []OpSpec{{Name: "pass", New: func(int) (exec.Operator, error) { return &passthrough{}, nil }}}},
		{Parallelism: 1, Inputs: []InputSpec{{From: 1, Dist: DistSingle}},
			Ops: []OpSpec{{Name: "sink", New: func(int) (exec.Operator, error) { return sink, nil }}}},
	}}
	job, err := StartJob(context.Background(), g, JobOptions{Alloc: alloc})
	if err != nil {
		t.Fatal(err)
	}
	defer job.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for round := 1; round <= 20; round++ {
		for i := 0; i < 50; i++ {
			src.add(int64(round*1000 + i))
		}
		job.RequestFlush(uint64(round))
		if err := job.WaitFlushed(ctx, uint64(round)); err != nil {
			t.Fatal(err)
		}
		if got := len(sink.snapshot()); got != round*50 {
			t.Fatalf("after flush %d the sink has %d rows, want %d", round, got, round*50)
		}
	}
	job.Stop()
	if st, _ := job.State(); st != JobCancelled {
		t.Fatalf("state after Stop: %s", st)
	}
}

func TestJobFailureStopsEveryTask(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	src := newGrowingSource()
	src.add(1, 2, 3)
	g := GraphSpec{Stages: []StageSpec{
		{Parallelism: 1, Source: func(int) (exec.Source, error) { return src, nil }},
		{Parallelism: 1, Inputs: []InputSpec{{From: 0, Dist: DistForward}},
			Ops: []OpSpec{{Name: "fail", New: func(int) (exec.Operator, error) { return failing{}, nil }}}},
	}}
	job, err := StartJob(context.Background(), g, JobOptions{Alloc: alloc})
	if err != nil {
		t.Fatal(err)
	}
	err = job.Wait(context.Background())
	if err == nil || st(job) != JobFailed {
		t.Fatalf("want a failed job, got %v (%s)", err, st(job))
	}
}

func st(j *Job) JobState { s, _ := j.State(); return s }

// TestJobPanicFailsTheJob checks that a panicking operator fails its job
// with ErrInternal and the stack, and leaves the process running. (The
// batch the panic interrupted is left to the garbage collector: the
// unchecked allocator.)
func TestJobPanicFailsTheJob(t *testing.T) {
	alloc := memory.NewGoAllocator()
	src := newGrowingSource()
	src.add(1, 2, 3)
	g := GraphSpec{Stages: []StageSpec{
		{Parallelism: 1, Source: func(int) (exec.Source, error) { return src, nil }},
		{Parallelism: 1, Inputs: []InputSpec{{From: 0, Dist: DistForward}},
			Ops: []OpSpec{{Name: "panic", New: func(int) (exec.Operator, error) { return panicking{}, nil }}}},
	}}
	job, err := StartJob(context.Background(), g, JobOptions{Alloc: alloc})
	if err != nil {
		t.Fatal(err)
	}
	err = job.Wait(context.Background())
	if !errors.Is(err, ErrInternal) || st(job) != JobFailed || !strings.Contains(err.Error(), "broken invariant") ||
		!strings.Contains(err.Error(), "panicking.Process") {
		t.Fatalf("want a failed job with the panic and its stack, got %v (%s)", err, st(job))
	}
}

type panicking struct{ failing }

func (panicking) Process(context.Context, int, exec.Chunk, exec.Emitter) error {
	panic("broken invariant")
}

type failing struct{}

func (failing) Open(context.Context, *exec.Env) error { return nil }
func (failing) Process(context.Context, int, exec.Chunk, exec.Emitter) error {
	return io.ErrUnexpectedEOF
}
func (failing) OnControl(context.Context, exec.Control, exec.Emitter) error { return nil }
func (failing) Close() error                                                { return nil }

// reusingOps emits every chunk with ops from one buffer it reuses, as
// producers may (HashAgg does); consumers across an exchange must not see
// the next chunk's ops.
type reusingOps struct{ ops []exec.Op }

func (r *reusingOps) Open(context.Context, *exec.Env) error { return nil }
func (r *reusingOps) Process(ctx context.Context, in int, c exec.Chunk, out exec.Emitter) error {
	r.ops = r.ops[:0]
	for i := 0; i < c.NumRows(); i++ {
		op := exec.Insert
		if types.DatumAt(c.Batch.Column(0), i, types.BigIntT).I/4096%2 == 1 {
			op = exec.Delete
		}
		r.ops = append(r.ops, op)
	}
	return out.Emit(ctx, exec.Chunk{Batch: c.Batch, Ops: r.ops})
}
func (r *reusingOps) OnControl(context.Context, exec.Control, exec.Emitter) error { return nil }
func (r *reusingOps) Close() error                                                { return nil }

// opsSink checks each row's op: chunk k (rows 4096k..) is all inserts for even k and all deletes for odd k.
type opsSink struct {
	mu  sync.Mutex
	bad int
	n   int
}

func (s *opsSink) Open(context.Context, *exec.Env) error { return nil }
func (s *opsSink) Process(ctx context.Context, in int, c exec.Chunk, out exec.Emitter) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := 0; i < c.NumRows(); i++ {
		odd := types.DatumAt(c.Batch.Column(0), i, types.BigIntT).I/4096%2 == 1
		if odd != (c.Op(i) == exec.Delete) {
			s.bad++
		}
		s.n++
	}
	return nil
}
func (s *opsSink) OnControl(context.Context, exec.Control, exec.Emitter) error { return nil }
func (s *opsSink) Close() error                                                { return nil }

func TestExchangeCopiesReusedOps(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	// Many small chunks, so several sit in the channel while the producer
	// overwrites its ops buffer.
	var rows [][]types.Datum
	for i := 0; i < 20000; i++ {
		rows = append(rows, []types.Datum{types.IntDatum(int64(i))})
	}
	src := &basic.ValuesSource{Names: []string{"x"}, Types: []types.T{types.BigIntT}, Rows: rows}
	sink := &opsSink{}
	for _, dist := range []Distribution{DistForward, DistHash} {
		p := 1
		if dist == DistHash {
			p = 2
		}
		src.Rows = rows
		*sink = opsSink{}
		g := GraphSpec{Stages: []StageSpec{
			{Parallelism: 1, Source: func(int) (exec.Source, error) { return src, nil },
				Ops: []OpSpec{{Name: "reuse", New: func(int) (exec.Operator, error) { return &reusingOps{}, nil }}}},
			{Parallelism: p, Inputs: []InputSpec{{From: 0, Dist: dist, Keys: []int{0}}},
				Ops: []OpSpec{{Name: "pass", New: func(int) (exec.Operator, error) { return &passthrough{}, nil }}}},
			{Parallelism: 1, Inputs: []InputSpec{{From: 1, Dist: DistSingle}},
				Ops: []OpSpec{{Name: "sink", New: func(int) (exec.Operator, error) { return sink, nil }}}},
		}}
		job, err := StartJob(context.Background(), g, JobOptions{Alloc: alloc})
		if err != nil {
			t.Fatal(err)
		}
		if err := job.Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
		if sink.n != len(rows) || sink.bad != 0 {
			t.Fatalf("%v: %d rows, %d with the wrong op", dist, sink.n, sink.bad)
		}
	}
}

// endlessSource generates a batch on every call and never catches up.
type endlessSource struct {
	alloc memory.Allocator
	next  int64
}

func (s *endlessSource) Open(ctx context.Context, env *exec.Env) error {
	s.alloc = env.Alloc
	return nil
}
func (s *endlessSource) Next(ctx context.Context) (exec.Chunk, error) {
	s.next++
	return exec.Chunk{Batch: types.BuildRecord(s.alloc, []string{"x"}, []types.T{types.BigIntT}, intRows(int(s.next), int(s.next)+1))}, nil
}
func (s *endlessSource) Wait(ctx context.Context) error { return nil }
func (s *endlessSource) Close() error                   { return nil }

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
		g := GraphSpec{Stages: []StageSpec{
			{Parallelism: 1, Source: func(int) (exec.Source, error) { return src, nil },
				Ops: []OpSpec{{Name: "sink", New: func(int) (exec.Operator, error) { return &countSink{}, nil }}}},
		}}
		job, err := StartJob(context.Background(), g, JobOptions{Alloc: alloc})
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
	alloc memory.Allocator
	calls int
	rows  int
}

func (s *trickleSource) Open(ctx context.Context, env *exec.Env) error {
	s.alloc = env.Alloc
	return nil
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
	return exec.Chunk{Batch: types.BuildRecord(s.alloc, []string{"x"}, []types.T{types.BigIntT}, intRows(s.rows, s.rows+1))}, nil
}
func (s *trickleSource) Wait(ctx context.Context) error { time.Sleep(time.Millisecond); return nil }
func (s *trickleSource) Close() error                   { return nil }
func (s *trickleSource) Bounded() bool                  { return true }

// TestJobFlushWaitsForBoundedEnd checks that a flush over a bounded
// source that catches up before its end waits for the end (FLUSH reads
// every bounded source to its end).
func TestJobFlushWaitsForBoundedEnd(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	sink := &collectSink{}
	g := GraphSpec{Stages: []StageSpec{
		{Parallelism: 1, Source: func(int) (exec.Source, error) { return &trickleSource{}, nil },
			Ops: []OpSpec{{Name: "sink", New: func(int) (exec.Operator, error) { return sink, nil }}}},
	}}
	job, err := StartJob(context.Background(), g, JobOptions{Alloc: alloc})
	if err != nil {
		t.Fatal(err)
	}
	defer job.Stop()
	job.RequestFlush(1)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := job.WaitFlushed(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if got := len(sink.snapshot()); got != 5 {
		t.Fatalf("the flush returned with %d of the source's 5 rows", got)
	}
}

// TestRoundRobinSpreadsChunks checks that a round-robin exchange delivers
// every row once and gives each consumer instance chunks in turn.
func TestRoundRobinSpreadsChunks(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	sink := &collectSink{}
	seen := make([]countSink, 2)
	g := GraphSpec{Stages: []StageSpec{
		{Parallelism: 1, Source: func(int) (exec.Source, error) {
			return &basic.ValuesSource{Names: []string{"x"}, Types: []types.T{types.BigIntT}, Rows: intRows(0, 5*exec.BatchRows)}, nil
		}},
		{Parallelism: 2, Inputs: []InputSpec{{From: 0, Dist: DistRoundRobin}},
			Ops: []OpSpec{
				{Name: "count", New: func(i int) (exec.Operator, error) { return &tee{count: &seen[i]}, nil }},
			}},
		{Parallelism: 1, Inputs: []InputSpec{{From: 1, Dist: DistSingle}},
			Ops: []OpSpec{{Name: "sink", New: func(int) (exec.Operator, error) { return sink, nil }}}},
	}}
	job, err := StartJob(context.Background(), g, JobOptions{Alloc: alloc})
	if err != nil {
		t.Fatal(err)
	}
	if err := job.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := sink.snapshot()
	if len(got) != 5*exec.BatchRows || got[0] != 0 || got[len(got)-1] != int64(len(got)-1) {
		t.Fatalf("got %d rows", len(got))
	}
	if seen[0].rows == 0 || seen[1].rows == 0 {
		t.Fatalf("instances got %d and %d rows", seen[0].rows, seen[1].rows)
	}
}

// tee counts the rows it passes on.
type tee struct{ count *countSink }

func (t *tee) Open(context.Context, *exec.Env) error { return nil }
func (t *tee) Process(ctx context.Context, in int, c exec.Chunk, out exec.Emitter) error {
	t.count.rows += int64(c.NumRows())
	return out.Emit(ctx, c)
}
func (t *tee) OnControl(context.Context, exec.Control, exec.Emitter) error { return nil }
func (t *tee) Close() error                                                { return nil }
