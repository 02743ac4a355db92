package build

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/agg"
	"github.com/eddysql/eddy/exec/dataflow"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/mview"
	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/mem"
)

// TestViewResumesFromItsCheckpoint runs a materialized view's dataflow —
// a source, SELECT k, COUNT(*), SUM(v) GROUP BY k at parallelism 2, the
// view's sink — checkpoints it, feeds it more, and drops it as a crash
// would. Resumed from the checkpoint (the aggregate at parallelism 1, 2
// and 3) over the whole input replayed, the view holds exactly what an
// uninterrupted run computes: the checkpoint's rows are neither lost nor
// counted twice, and the rows after it are read again.
func TestViewResumesFromItsCheckpoint(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rng := rand.New(rand.NewPCG(3, 4))
	var input []string
	for range 8 {
		var b strings.Builder
		b.WriteString("bigint bigint")
		for range 1 + rng.IntN(50) {
			fmt.Fprintf(&b, "\n+I %d %d", rng.IntN(40), rng.IntN(1000)-500)
		}
		input = append(input, b.String())
	}
	want := viewAfter(t, ctx, nil, false, 2, input)
	for _, p := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("resumed at parallelism %d", p), func(t *testing.T) {
			db := mem.New()
			store, err := db.State("v")
			if err != nil {
				t.Fatal(err)
			}
			// The crashed run: checkpoint 1 covers the first five chunks,
			// the sixth is read and lost.
			viewAfter(t, ctx, store, false, 2, input[:5], input[5])
			if err := store.Close(); err != nil {
				t.Fatal(err)
			}
			store, err = db.State("v")
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			if got := viewAfter(t, ctx, store, true, p, input); got != want {
				t.Fatalf("resumed view\n%s\nuninterrupted\n%s", got, want)
			}
		})
	}
}

// TestViewResumesFromABackgroundSnapshot is TestViewResumesFromItsCheckpoint
// with tens of thousands of groups, so that the aggregate writes its
// snapshot on a goroutine of its own, and with the rows after the
// checkpoint fed while it does: those rows change groups the writer has
// yet to write, which must go into the checkpoint as they were at the
// barrier, or the resumed view counts them twice.
func TestViewResumesFromABackgroundSnapshot(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rng := rand.New(rand.NewPCG(5, 6))
	var input []string
	for range 6 {
		var b strings.Builder
		b.WriteString("bigint bigint")
		for range 40000 {
			fmt.Fprintf(&b, "\n+I %d %d", rng.IntN(200000), rng.IntN(1000)-500)
		}
		input = append(input, b.String())
	}
	want := viewAfter(t, ctx, nil, false, 1, input)
	db := mem.New()
	store, err := db.State("v")
	if err != nil {
		t.Fatal(err)
	}
	_, stats := viewRun(t, ctx, viewRunOptions{store: store, p: 1, chunks: input[:3], after: input[3:], concurrent: true})
	if n := opCount(stats, "agg", "snapshots_in_background"); n != 1 {
		t.Fatalf("%d snapshots written in the background, want the checkpoint's", n)
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	if store, err = db.State("v"); err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if got := viewAfter(t, ctx, store, true, 2, input); got != want {
		t.Fatalf("resumed view differs from the uninterrupted one (%d and %d bytes)", len(got), len(want))
	}
}

// barrierSource is an exectest.Source that closes positioned the first
// time the runtime asks its position: when it emits a checkpoint's
// barrier.
type barrierSource struct {
	*exectest.Source
	positioned chan struct{}
	once       sync.Once
}

func (s *barrierSource) Position() ([]byte, error) {
	s.once.Do(func() { close(s.positioned) })
	return s.Source.Position()
}

// opCount returns the operator's own counter of that name in stats.
func opCount(stats []dataflow.OpStats, op, name string) int64 {
	for _, s := range stats {
		if s.Name != op {
			continue
		}
		for _, c := range s.Counts {
			if c.Name == name {
				return c.Value
			}
		}
	}
	return 0
}

// viewAfter runs the view's dataflow over chunks at aggregate parallelism
// p, with state in store (restored from it if restore), flushes, takes a
// checkpoint if store is set, feeds after (read but not checkpointed) and
// returns the view's rows, sorted.
func viewAfter(t *testing.T, ctx context.Context, store storage.StateStore, restore bool, p int, chunks []string, after ...string) string {
	t.Helper()
	rows, _ := viewRun(t, ctx, viewRunOptions{store: store, restore: restore, p: p, chunks: chunks, after: after})
	return rows
}

// viewRunOptions are viewRun's: viewAfter's arguments, and whether after
// is fed while the checkpoint is taken rather than once it is.
type viewRunOptions struct {
	store         storage.StateStore
	restore       bool
	p             int
	chunks, after []string
	concurrent    bool
}

// viewRun is viewAfter, which also returns the job's operator stats.
func viewRun(t *testing.T, ctx context.Context, o viewRunOptions) (string, []dataflow.OpStats) {
	t.Helper()
	store, restore, p, chunks, after := o.store, o.restore, o.p, o.chunks, o.after
	src := &barrierSource{Source: exectest.NewSource(t, exectest.Alloc(t), chunks...), positioned: make(chan struct{})}
	mv := mview.New([]string{"k", "n", "s"}, append(slices.Clone(oneAgg.Input), oneAgg.Input[0]), []int{0})
	g := dataflow.GraphSpec{Stages: []dataflow.StageSpec{
		{Parallelism: 1, Source: func(int) (exec.Source, error) { return src, nil }},

		{Parallelism: p, Inputs: []dataflow.InputSpec{{From: 0, Dist: dataflow.DistHash, Keys: []int{0}}},
			Ops: []dataflow.OpSpec{{Name: "agg", New: func(int) (exec.Operator, error) { return agg.NewHashAgg(oneAgg), nil }}}},
		{Parallelism: 1, Inputs: []dataflow.InputSpec{{From: 1, Dist: dataflow.DistSingle}},
			Ops: []dataflow.OpSpec{{Name: "view", New: func(int) (exec.Operator, error) { return &mview.Sink{MV: mv}, nil }}}},
	}}
	job, err := dataflow.StartJob(ctx, g, dataflow.JobOptions{Alloc: exectest.Alloc(t), State: store, Restore: restore})
	if err != nil {
		t.Fatal(err)
	}
	defer job.Stop()
	flush := func(id uint64) {
		t.Helper()
		job.RequestFlush(id)
		if err := job.WaitFlushed(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	flush(1)
	if store != nil {
		var built []exec.Chunk // parsed before the checkpoint, to be fed at once
		if o.concurrent {
			for _, c := range after {
				built = append(built, exectest.Chunk(t, exectest.Alloc(t), c))
			}
		}
		done := make(chan error, 1)
		go func() {
			_, err := job.CheckpointNext(ctx)
			done <- err
		}()
		if o.concurrent && len(after) > 0 {
			// After the barrier left the source: the rows reach the
			// aggregate once it began its snapshot.
			<-src.positioned
			src.Push(built...)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if len(after) > 0 {
		if !o.concurrent || store == nil {
			src.Add(after...)
		}
		flush(2)
	}
	var rows []string
	for _, r := range mv.Snapshot() {
		rows = append(rows, fmt.Sprintf("%d %d %d", r[0].I, r[1].I, r[2].I))
	}
	slices.Sort(rows)
	return strings.Join(rows, "\n"), job.Stats()
}
