package dataflow

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// pairReplay returns a source of the rows (i, -i) for i in [0, n), in
// batches of 100 rows, with columns x and neg.
func pairReplay(t *testing.T, alloc memory.Allocator, n int) *exectest.Replay {
	src := &exectest.Replay{}
	for lo := 0; lo < n; lo += 100 {
		var rows [][]types.Datum
		for i := lo; i < min(n, lo+100); i++ {
			rows = append(rows, []types.Datum{types.IntDatum(int64(i)), types.IntDatum(int64(-i))})
		}
		src.Batches = append(src.Batches, types.BuildRecord(alloc, []string{"x", "neg"}, []types.T{types.BigIntT, types.BigIntT}, rows))
	}
	t.Cleanup(func() {
		for _, b := range src.Batches {
			b.Release()
		}
	})
	return src
}

// widthCheck passes chunks on, failing unless they have width columns.
type widthCheck struct {
	passthrough
	width int
}

func (w *widthCheck) Process(ctx context.Context, in int, c exec.Chunk, out exec.Emitter) error {
	if got := int(c.Batch.NumCols()); got != w.width {
		return fmt.Errorf("a chunk of %d columns, want %d", got, w.width)
	}
	return out.Emit(ctx, c)
}

// TestStageFeedsSeveralInputs: a source stage read by two later stages —
// a shared sub-plan — sends each every row once, with the columns its
// input projects (here x to one, neg to the other), by its own
// distribution; both meet again in the sink, which sees every row of each
// once and one end of input, and nothing leaks.
func TestStageFeedsSeveralInputs(t *testing.T) {
	for _, coalesce := range []bool{false, true} {
		t.Run(fmt.Sprintf("coalesce=%v", coalesce), func(t *testing.T) {
			alloc := exectest.Alloc(t)
			const n = 1000
			src := pairReplay(t, alloc, n)
			check := func(w int) OpSpec {
				return OpSpec{Name: "check", New: func(int) (exec.Operator, error) { return &widthCheck{width: w}, nil }}
			}
			sink := &recorder{}
			g := GraphSpec{Stages: []StageSpec{
				sourceStage(src),
				{Parallelism: 2, Inputs: []InputSpec{{From: 0, Dist: DistHash, Keys: []int{0}, Project: []int{0}}}, Ops: []OpSpec{check(1)}},
				{Parallelism: 3, Inputs: []InputSpec{{From: 0, Dist: DistRoundRobin, Project: []int{1}}}, Ops: []OpSpec{check(1)}},
				{Parallelism: 1, Inputs: []InputSpec{{From: 1, Dist: DistSingle}, {From: 2, Dist: DistSingle, Input: 1}},
					Ops: []OpSpec{only("sink", sink)}},
			}}
			runJob(t, g, JobOptions{Alloc: alloc, Coalesce: coalesce})
			var want []int64
			for i := range n {
				want = append(want, int64(i), int64(-i))
			}
			slices.Sort(want)
			if got := sink.sorted(); !slices.Equal(got, want) {
				t.Fatalf("the sink got %d values, want %d (each of x and -x once)", len(got), len(want))
			}
			ends := 0
			for _, e := range sink.seen() {
				if e == "end-of-input" {
					ends++
				}
			}
			if ends != 1 {
				t.Errorf("the sink saw %d ends of input, want 1 (aligned over both paths)", ends)
			}
		})
	}
}

// TestGraphRefusesNegativeProjection: an input that projects a column
// below zero is refused before anything runs.
func TestGraphRefusesNegativeProjection(t *testing.T) {
	g := GraphSpec{Stages: []StageSpec{
		sourceStage(&exectest.Replay{}),
		{Parallelism: 1, Inputs: []InputSpec{{From: 0, Dist: DistSingle, Project: []int{-1}}}, Ops: []OpSpec{only("sink", &recorder{})}},
	}}
	if err := g.validate(); err == nil {
		t.Fatal("a negative projected column was accepted")
	}
}
