package basic

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/planner/plan"
)

// rerankConjuncts returns the input types of rerankBatches' rows and two
// conjuncts over them: s LIKE '%needle%' and b = 3.
func rerankConjuncts() (in []types.T, like, eq plan.Expr) {
	in = []types.T{types.BigIntT, types.BigIntT, types.VarcharT, types.VarcharT}
	like = &plan.Like{Arg: calcCol(2), Pattern: &plan.Const{Val: types.StringDatum("%needle%"), Typ: types.VarcharT}, Escape: '\\'}
	eq = &plan.Binary{Op: plan.OpEq, L: calcCol(1), R: calcInt(3), Typ: types.BoolT}
	return in, like, eq
}

// rerankBatches are n batches of (a, b, s, t) rows: b equal to 3 and t
// "red" in one row of bEvery (t "blue" otherwise), s holding "needle" in
// one row of needleEvery (never when needleEvery is 0).
func rerankBatches(alloc memory.Allocator, n, bEvery, needleEvery int) []arrow.RecordBatch {
	filler := strings.Repeat("x", 54)
	var out []arrow.RecordBatch
	for k := range n {
		rows := make([][]types.Datum, 1024)
		for i := range rows {
			r := k*len(rows) + i
			s := filler + "hayhay"
			if needleEvery > 0 && r%needleEvery == 0 {
				s = filler[:3] + "needle" + filler[3:]
			}
			b, colour := int64(3), "red"
			if r%bEvery != 0 {
				b, colour = 100, "blue"
			}
			rows[i] = []types.Datum{types.IntDatum(int64(r % 1000)), types.IntDatum(b), types.StringDatum(s), types.StringDatum(colour)}
		}
		out = append(out, types.BuildRecord(alloc, []string{"a", "b", "s", "t"},
			[]types.T{types.BigIntT, types.BigIntT, types.VarcharT, types.VarcharT}, rows))
	}
	return out
}

// TestFilterRerankedAtRunTime runs a Calc whose filter was ordered badly
// (an expensive LIKE that keeps every row before a cheap equality that
// drops most): within a few dozen batches it re-ranks them from what they
// were seen to do, and says so in its figures. A filter of two LIKEs of
// like cost re-ranks when the data drift so that the one that dropped most
// rows drops none and the other drops them all.
// The rows kept are those of the filter in any order. A conjunct that can
// fail keeps its place, so nothing moves across it.
func TestFilterRerankedAtRunTime(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	in, like, eq := rerankConjuncts()
	str := func(s string) *plan.Const { return &plan.Const{Val: types.StringDatum(s), Typ: types.VarcharT} }
	guard := &plan.Binary{Op: plan.OpGt, L: &plan.Binary{Op: plan.OpAdd, L: calcCol(0), R: calcInt(1), Typ: types.BigIntT}, R: calcInt(0), Typ: types.BoolT}
	run := func(c *Calc, env *exec.Env, batches []arrow.RecordBatch) int {
		kept := 0
		sink := exec.EmitterFunc(func(_ context.Context, ch exec.Chunk) error { kept += ch.NumRows(); return nil })
		for _, b := range batches {
			if err := c.Process(context.Background(), 0, exec.Chunk{Batch: b}, sink); err != nil {
				t.Fatal(err)
			}
			b.Release()
		}
		return kept
	}
	reorders := func(env *exec.Env) int64 { return env.Metrics.Counter("filter_reorders").Load() }

	c := NewCalc(in, &plan.And{Args: []plan.Expr{like, eq}}, []plan.Expr{calcCol(0)}, []string{"a"})
	env := exec.NewTestEnv(alloc)
	if err := c.Open(context.Background(), env); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The LIKE keeps every row, the equality 1 of 10.
	if kept, want := run(c, env, rerankBatches(alloc, 100, 10, 1)), 100*1024/10; kept != want {
		t.Fatalf("kept %d rows, want %d", kept, want)
	}
	note := env.Metrics.Note()
	if reorders(env) != 1 || !strings.HasPrefix(note, "filter re-ranked at run time to price = 3 AND channel LIKE") {
		t.Fatalf("%d re-rankings, note %q: want the equality first", reorders(env), note)
	}
	// Two LIKEs: first the one on t drops 9 rows of 10 and the one on s
	// none; then the data drift and it is the other way round.
	colT := &plan.InputRef{Ord: 3, Typ: types.VarcharT, Null: true, Name: "t"}
	likeT := &plan.Like{Arg: colT, Pattern: str("%re%"), Escape: '\\'}
	d := NewCalc(in, &plan.And{Args: []plan.Expr{like, likeT}}, []plan.Expr{calcCol(0)}, []string{"a"})
	denv := exec.NewTestEnv(alloc)
	if err := d.Open(context.Background(), denv); err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if kept, want := run(d, denv, rerankBatches(alloc, 100, 10, 1)), 100*1024/10; kept != want {
		t.Fatalf("kept %d rows, want %d", kept, want)
	}
	// Costs are measured in time, so on a loaded machine an extra flip of
	// two LIKEs of like cost may happen; what matters is where they end.
	if n, note := reorders(denv), denv.Metrics.Note(); n < 1 || !strings.Contains(note, "to t LIKE") {
		t.Fatalf("%d re-rankings, note %q: want the LIKE on t first", n, note)
	}
	if kept := run(d, denv, rerankBatches(alloc, 200, 1, 0)); kept != 0 {
		t.Fatalf("kept %d rows after the drift, want 0", kept)
	}
	n := reorders(denv)
	if note := denv.Metrics.Note(); n < 2 || !strings.Contains(note, "to channel LIKE") {
		t.Fatalf("%d re-rankings, note %q: want the LIKE on s first again", n, note)
	}
	// The LIKE on t now sees no row: its figures are stale, and do not
	// move it ahead again.
	if kept := run(d, denv, rerankBatches(alloc, 200, 1, 0)); kept != 0 {
		t.Fatalf("kept %d rows after the drift, want 0", kept)
	}
	if m, note := reorders(denv), denv.Metrics.Note(); m != n {
		t.Fatalf("%d more re-rankings on figures the rows no longer reach, note %q", m-n, note)
	}

	// A conjunct that can fail (integer addition) between the two: nothing
	// crosses it.
	g := NewCalc(in, &plan.And{Args: []plan.Expr{like, guard, eq}}, []plan.Expr{calcCol(0)}, []string{"a"})
	genv := exec.NewTestEnv(alloc)
	if err := g.Open(context.Background(), genv); err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if kept, want := run(g, genv, rerankBatches(alloc, 100, 10, 1)), 100*1024/10; kept != want {
		t.Fatalf("kept %d rows, want %d", kept, want)
	}
	if n := reorders(genv); n != 0 {
		t.Fatalf("%d re-rankings across a conjunct that can fail: %q", n, genv.Metrics.Note())
	}
}

// TestFilterRerankBehindSelectiveConjunct runs a filter whose first
// conjunct, an expensive LIKE, keeps 1 row of 200, ahead of a cheap
// equality that keeps 1 in 100: the equality sees a few rows a batch, so its
// measured cost per row is mostly the fixed cost of a call, and ranking
// by it never moves it ahead. The filter measures the equality on a whole
// batch (a probe, counted), and ranks it first on those figures.
func TestFilterRerankBehindSelectiveConjunct(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	in, like, eq := rerankConjuncts()
	c := NewCalc(in, &plan.And{Args: []plan.Expr{like, eq}}, []plan.Expr{calcCol(0)}, []string{"a"})
	env := exec.NewTestEnv(alloc)
	if err := c.Open(context.Background(), env); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	kept := 0
	sink := exec.EmitterFunc(func(_ context.Context, ch exec.Chunk) error { kept += ch.NumRows(); return nil })
	// The equality first costs about a tenth of the LIKE first: a
	// difference no noise of a loaded machine hides.
	for _, b := range rerankBatches(alloc, 600, 100, 200) {
		if err := c.Process(context.Background(), 0, exec.Chunk{Batch: b}, sink); err != nil {
			t.Fatal(err)
		}
		b.Release()
	}
	// Rows r with r%200 == 0 and r%100 == 0: every 200th.
	if want := 600 * 1024 / 200; kept != want {
		t.Fatalf("kept %d rows, want %d", kept, want)
	}
	n, note := env.Metrics.Counter("filter_reorders").Load(), env.Metrics.Note()
	if probes := env.Metrics.Counter("filter_probes").Load(); probes < 1 {
		t.Errorf("%d probes counted", probes)
	}
	if n < 1 || !strings.Contains(note, "to price = 3 AND channel LIKE") || !strings.Contains(note, "price = 3 keeps 1% at") {
		t.Fatalf("%d re-rankings, note %q: want the equality first, on a probe's figures", n, note)
	}
}
