package dataflow

import (
	"context"
	"io"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/exec"
)

// TestKeeperAppendsKeepProbability: after the shedder drops a fraction p
// of a chunk, the keeper appends a column of 1 − p to the rows kept; with
// no shedder, or a fraction of 0, the column is 1.
func TestKeeperAppendsKeepProbability(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	var drop atomic.Uint64
	for _, c := range []struct {
		p    float64
		shed bool
	}{{0.3, true}, {0, true}, {0.9, false}} {
		drop.Store(math.Float64bits(c.p))
		var s *shedder
		if c.shed {
			s = newShedder(&drop, 1, 0)
		}
		k := newKeeper(alloc)
		m := &exec.OperatorMetrics{}
		want := 1.0
		if c.shed {
			want = 1 - c.p
		}
		for range 10 {
			in := exec.Chunk{Batch: intBatch(alloc, 0, 1000)}
			kept := in
			if s != nil {
				var err error
				if kept, err = s.apply(in, m, alloc); err != nil {
					t.Fatal(err)
				}
			}
			n := kept.NumRows()
			out := k.apply(kept, in, s)
			if out.Batch.NumCols() != 2 || out.NumRows() != n || out.Batch.Schema().Field(1).Name != KeepField.Name {
				t.Fatalf("p=%v: %d columns (%v), %d rows; want x and _keep, %d rows", c.p, out.Batch.NumCols(), out.Batch.Schema(), out.NumRows(), n)
			}
			for i, q := range out.Batch.Column(1).(*array.Float64).Float64Values() {
				if q != want {
					t.Fatalf("p=%v shed=%v: row %d keeps with %v, want %v", c.p, c.shed, i, q, want)
				}
			}
			out.Batch.Release()
			in.Batch.Release()
		}
		k.close()
	}
}

// gatedSource emits batches of 1000 rows, n in all, once gate is closed.
type gatedSource struct {
	sourceBase
	gate chan struct{}
	n    int
}

func (s *gatedSource) Next(context.Context) (exec.Chunk, error) {
	select {
	case <-s.gate:
	default:
		return exec.Chunk{}, exec.ErrCaughtUp
	}
	if s.n == 0 {
		return exec.Chunk{}, io.EOF
	}
	s.n--
	return exec.Chunk{Batch: intBatch(s.alloc, 0, 1000)}, nil
}

func (s *gatedSource) Wait(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-s.gate:
		return nil
	case <-time.After(time.Millisecond):
		return nil
	}
}

// keepRecorder records the keep probabilities of the rows it gets.
type keepRecorder struct {
	nopOp
	mu   sync.Mutex
	keep map[float64]int
	cols int
}

func (r *keepRecorder) Process(_ context.Context, _ int, c exec.Chunk, _ exec.Emitter) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cols = int(c.Batch.NumCols())
	for _, q := range c.Batch.Column(r.cols - 1).(*array.Float64).Float64Values() {
		r.keep[q]++
	}
	return nil
}

// TestJobFillsKeepColumn runs a source stage with Keep in a job that sheds
// a fixed fraction (its controller never runs within the test): every row
// reaches the next stage with the keep probability 1 − p it was kept with,
// the rows kept are about 1 − p of those read, and without shedding every
// row arrives with 1.
func TestJobFillsKeepColumn(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	const p, batches = 0.75, 100
	for _, shed := range []*ShedSpec{{MaxLatency: time.Hour, Every: time.Hour, Seed: 3}, nil} {
		src := &gatedSource{gate: make(chan struct{}), n: batches}
		rec := &keepRecorder{keep: map[float64]int{}}
		st := sourceStage(src)
		st.Keep = true
		g := GraphSpec{Stages: []StageSpec{st, stage(0, DistSingle, 1, only("sink", rec))}}
		job := startJob(t, g, JobOptions{Alloc: alloc, Shed: shed})
		want := 1.0
		if shed != nil {
			job.shed.drop.Store(math.Float64bits(p))
			want = 1 - p
		}
		close(src.gate)
		if err := job.Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
		st0 := job.Stats()[0]
		kept := rec.keep[want]
		if rec.cols != 2 || len(rec.keep) != 1 || int64(kept) != st0.RowsIn-st0.ShedRows {
			t.Fatalf("shed %v: %d columns, keep probabilities %v; want 2 columns and every one of the %d rows kept at %v",
				shed != nil, rec.cols, rec.keep, st0.RowsIn-st0.ShedRows, want)
		}
		if share := float64(kept) / (1000 * batches); math.Abs(share-want) > 0.02 {
			t.Errorf("shed %v: kept %.3f of the rows, want %v", shed != nil, share, want)
		}
	}
}
