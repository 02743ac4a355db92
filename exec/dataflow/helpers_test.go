package dataflow

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// The runtime's tests run jobs of the test operators below (the runtime
// imports no operator family, its tests included) over one BIGINT column
// x, with exectest's sources and counting sink.

// nopOp gives a test operator no-op Open, OnControl and Close.
type nopOp struct{}

func (nopOp) Open(context.Context, *exec.Env) error                       { return nil }
func (nopOp) OnControl(context.Context, exec.Control, exec.Emitter) error { return nil }
func (nopOp) Close() error                                                { return nil }

// sourceBase gives a test source an Open that keeps the job's allocator
// (alloc), and a Wait and a Close that do nothing.
type sourceBase struct{ alloc memory.Allocator }

func (s *sourceBase) Open(_ context.Context, env *exec.Env) error { s.alloc = env.Alloc; return nil }
func (s *sourceBase) Wait(context.Context) error                  { return nil }
func (s *sourceBase) Close() error                                { return nil }

// passthrough forwards chunks.
type passthrough struct{ nopOp }

// KeepsNoState implements exec.Stateless: a passthrough can resume.
func (*passthrough) KeepsNoState() {}

func (p *passthrough) Process(ctx context.Context, in int, c exec.Chunk, out exec.Emitter) error {
	return out.Emit(ctx, c)
}

// recorder is a sink that records, in order, the values of column x and
// the control messages that reach it.
type recorder struct {
	nopOp
	mu     sync.Mutex
	rows   []int64
	events []string
}

func (r *recorder) Process(_ context.Context, _ int, c exec.Chunk, _ exec.Emitter) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, row := range types.Rows(c.Batch, []types.T{types.BigIntT}) {
		r.rows = append(r.rows, row[0].I)
		r.events = append(r.events, fmt.Sprint(row[0].I))
	}
	return nil
}

func (r *recorder) OnControl(_ context.Context, m exec.Control, _ exec.Emitter) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, m.String())
	return nil
}

// sorted returns the values received so far, sorted.
func (r *recorder) sorted() []int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Sorted(slices.Values(r.rows))
}

// waitRows waits up to 10 s for the recorder to have n rows; if they do
// not come, it fails t with what and the rows it has.
func (r *recorder) waitRows(t *testing.T, n int, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(r.sorted()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%s: the sink has %v", what, r.sorted())
		}
		time.Sleep(time.Millisecond)
	}
}

// seen returns the values and control messages received so far, in order.
func (r *recorder) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// opsRecorder records every row it receives with its op, and the number
// of batches.
type opsRecorder struct {
	nopOp
	mu      sync.Mutex
	rows    map[int64][]exec.Op
	batches int
}

func (r *opsRecorder) Process(_ context.Context, _ int, c exec.Chunk, _ exec.Emitter) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.rows == nil {
		r.rows = map[int64][]exec.Op{}
	}
	r.batches++
	for i, row := range types.Rows(c.Batch, []types.T{types.BigIntT}) {
		r.rows[row[0].I] = append(r.rows[row[0].I], c.Op(i))
	}
	return nil
}

// checkOps fails t unless recs together received n distinct rows, each
// once, with the op want gives its value; it returns their batches.
func checkOps(t *testing.T, recs []*opsRecorder, n int, want func(v int64) exec.Op) (batches int) {
	t.Helper()
	seen := 0
	for _, r := range recs {
		batches += r.batches
		for v, ops := range r.rows {
			if !slices.Equal(ops, []exec.Op{want(v)}) {
				t.Fatalf("row %d arrived as %v", v, ops)
			}
			seen++
		}
	}
	if seen != n {
		t.Fatalf("%d distinct rows arrived, want %d", seen, n)
	}
	return batches
}

// failing fails on every chunk.
type failing struct{ nopOp }

func (failing) Process(context.Context, int, exec.Chunk, exec.Emitter) error {
	return io.ErrUnexpectedEOF
}

// intBatch builds a batch of column x holding lo, lo+step, ... below hi
// (step 1 when omitted).
func intBatch(alloc memory.Allocator, lo, hi int, step ...int) arrow.RecordBatch {
	by := 1
	if len(step) > 0 {
		by = step[0]
	}
	var rows [][]types.Datum
	for i := lo; i < hi; i += by {
		rows = append(rows, []types.Datum{types.IntDatum(int64(i))})
	}
	return types.BuildRecord(alloc, []string{"x"}, []types.T{types.BigIntT}, rows)
}

// intReplay returns a source of the values lo, lo+step, ... below hi in
// batches of exec.BatchRows values, released when t ends.
func intReplay(t *testing.T, alloc memory.Allocator, lo, hi, step int) *exectest.Replay {
	src := &exectest.Replay{}
	for start := lo; start < hi; start += exec.BatchRows * step {
		src.Batches = append(src.Batches, intBatch(alloc, start, min(hi, start+exec.BatchRows*step), step))
	}
	t.Cleanup(func() {
		for _, b := range src.Batches {
			b.Release()
		}
	})
	return src
}

// smallChunks returns a source of n chunks of size rows, the values 0 to
// n*size-1 in order, each row with the op opOf gives its value; released
// when t ends.
func smallChunks(t *testing.T, alloc memory.Allocator, n, size int, opOf func(v int64) exec.Op) *exectest.Replay {
	src := &exectest.Replay{}
	for k := range n {
		src.Batches = append(src.Batches, intBatch(alloc, size*k, size*k+size))
		o := make([]exec.Op, size)
		for i := range o {
			o[i] = opOf(int64(size*k + i))
		}
		src.Ops = append(src.Ops, o)
	}
	t.Cleanup(func() {
		for _, b := range src.Batches {
			b.Release()
		}
	})
	return src
}

// deleteEvery returns the op of value v: a Delete for every n-th value,
// else an Insert.
func deleteEvery(n int64) func(v int64) exec.Op {
	return func(v int64) exec.Op {
		if v%n == 0 {
			return exec.Delete
		}
		return exec.Insert
	}
}

// only returns an operator spec whose every instance is op.
func only(name string, op exec.Operator) OpSpec {
	return OpSpec{Name: name, New: func(int) (exec.Operator, error) { return op, nil }}
}

// sourceStage returns a stage of one instance that reads src and runs ops.
func sourceStage(src exec.Source, ops ...OpSpec) StageSpec {
	return StageSpec{Parallelism: 1, Source: func(int) (exec.Source, error) { return src, nil }, Ops: ops}
}

// stage returns a stage of p instances that reads stage from by dist
// (hashing column x) and runs ops.
func stage(from int, dist Distribution, p int, ops ...OpSpec) StageSpec {
	return StageSpec{Parallelism: p, Inputs: []InputSpec{{From: from, Dist: dist, Keys: []int{0}}}, Ops: ops}
}

// exchanged returns the job most tests run: src, then mid at parallelism
// p behind an exchange by dist, then sink at parallelism 1.
func exchanged(src exec.Source, dist Distribution, p int, mid OpSpec, sink exec.Operator) GraphSpec {
	return GraphSpec{Stages: []StageSpec{sourceStage(src), stage(0, dist, p, mid), stage(1, DistSingle, 1, only("sink", sink))}}
}

// startJob starts g, failing t on an error; the job is stopped when t
// ends.
func startJob(t *testing.T, g GraphSpec, opts JobOptions) *Job {
	t.Helper()
	job, err := StartJob(context.Background(), g, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(job.Stop)
	return job
}

// runJob runs g to its end, failing t on an error.
func runJob(t *testing.T, g GraphSpec, opts JobOptions) *Job {
	t.Helper()
	job := startJob(t, g, opts)
	if err := job.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	return job
}
