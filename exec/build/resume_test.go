package build

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
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

// viewAfter runs the view's dataflow over chunks at aggregate parallelism
// p, with state in store (restored from it if restore), flushes, takes a
// checkpoint if store is set, feeds after (read but not checkpointed) and
// returns the view's rows, sorted.
func viewAfter(t *testing.T, ctx context.Context, store storage.StateStore, restore bool, p int, chunks []string, after ...string) string {
	t.Helper()
	src := exectest.NewSource(t, exectest.Alloc(t), chunks...)
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
		if _, err := job.CheckpointNext(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if len(after) > 0 {
		src.Add(after...)
		flush(2)
	}
	var rows []string
	for _, r := range mv.Snapshot() {
		rows = append(rows, fmt.Sprintf("%d %d %d", r[0].I, r[1].I, r[2].I))
	}
	slices.Sort(rows)
	return strings.Join(rows, "\n")
}
