package basic

import (
	"context"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/planner/plan"
)

// BenchmarkFilterRerankRecovers measures how fast a filter whose
// conjuncts' selectivities swap mid-run gets back to the speed of the best
// order: two LIKEs of like cost, the one on s keeping every row and the one
// on t a tenth, then the other way round. It runs, in one process, a Calc
// in the order that is best before the swap (so worst after it) and one in
// the order that is best after it, over the batches after the swap, and
// reports the first's time per row in each interval of 32 batches (the
// re-ranking period) against the second's over all of them:
//
//	go test ./exec/basic -run XXX -bench BenchmarkFilterRerankRecovers -count 5
func BenchmarkFilterRerankRecovers(b *testing.B) {
	alloc := memory.NewGoAllocator()
	in := []types.T{types.BigIntT, types.BigIntT, types.VarcharT, types.VarcharT}
	str := func(s string) *plan.Const { return &plan.Const{Val: types.StringDatum(s), Typ: types.VarcharT} }
	likeS := &plan.Like{Arg: calcCol(2), Pattern: str("%needle%"), Escape: '\\'}
	likeT := &plan.Like{Arg: &plan.InputRef{Ord: 3, Typ: types.VarcharT, Null: true, Name: "t"}, Pattern: str("%re%"), Escape: '\\'}
	before := rerankBatches(alloc, 64, 10, 1) // s always matches, t a tenth: t first is best
	after := rerankBatches(alloc, 128, 1, 10) // t always matches, s a tenth: s first is best
	defer func() {
		for _, r := range append(before, after...) {
			r.Release()
		}
	}()
	sink := exec.EmitterFunc(func(context.Context, exec.Chunk) error { return nil })
	feed := func(c *Calc, batches []arrow.RecordBatch) time.Duration {
		start := time.Now()
		for _, r := range batches {
			r.Retain()
			err := c.Process(context.Background(), 0, exec.Chunk{Batch: r}, sink)
			r.Release()
			if err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(start)
	}
	rows := func(batches []arrow.RecordBatch) float64 {
		n := 0
		for _, r := range batches {
			n += int(r.NumRows())
		}
		return float64(n)
	}
	const interval = 32
	var firsts, seconds, thirds, best float64
	for i := 0; i < b.N; i++ {
		adaptive := NewCalc(in, &plan.And{Args: []plan.Expr{likeT, likeS}}, []plan.Expr{calcCol(0)}, []string{"a"})
		fixed := NewCalc(in, &plan.And{Args: []plan.Expr{likeS, likeT}}, []plan.Expr{calcCol(0)}, []string{"a"})
		for _, c := range []*Calc{adaptive, fixed} {
			if err := c.Open(context.Background(), exec.NewTestEnv(alloc)); err != nil {
				b.Fatal(err)
			}
		}
		feed(adaptive, before) // it runs in the order best before the swap
		best += float64(feed(fixed, after)) / rows(after)
		firsts += float64(feed(adaptive, after[:interval])) / rows(after[:interval])
		seconds += float64(feed(adaptive, after[interval:2*interval])) / rows(after[interval:2*interval])
		thirds += float64(feed(adaptive, after[2*interval:3*interval])) / rows(after[2*interval:3*interval])
		adaptive.Close()
		fixed.Close()
	}
	n := float64(b.N)
	b.ReportMetric(best/n, "best-ns/row")
	b.ReportMetric(firsts/best, "interval1/best")
	b.ReportMetric(seconds/best, "interval2/best")
	b.ReportMetric(thirds/best, "interval3/best")
}

// BenchmarkFilterRerankBehindSelective measures a filter ordered badly
// where ranking alone cannot see it: a LIKE that keeps 1 row in 200 ahead
// of an equality that keeps 1 in 100, which behind it sees about five
// rows a batch and measures mostly the fixed cost of a call. A Calc that
// starts in that order and one that starts in the good order each run
// 1,024 batches (the first tries the equality ahead and keeps it there;
// both go on trying the other order now and then, less and less often),
// then are timed over 512 more; the bad order is timed over its first 64
// batches, before it tries anything. Same batches, same run:
//
//	go test ./exec/basic -run XXX -bench BenchmarkFilterRerankBehindSelective -count 5
func BenchmarkFilterRerankBehindSelective(b *testing.B) {
	alloc := memory.NewGoAllocator()
	in, like, eq := rerankConjuncts()
	batches := rerankBatches(alloc, 256, 100, 200)
	defer func() {
		for _, r := range batches {
			r.Release()
		}
	}()
	sink := exec.EmitterFunc(func(context.Context, exec.Chunk) error { return nil })
	feed := func(c *Calc, batches []arrow.RecordBatch, passes int) float64 {
		start := time.Now()
		for range passes {
			for _, r := range batches {
				if err := c.Process(context.Background(), 0, exec.Chunk{Batch: r}, sink); err != nil {
					b.Fatal(err)
				}
			}
		}
		return float64(time.Since(start)) / float64(passes*len(batches)*1024)
	}
	var adaptive, good, bad float64
	for i := 0; i < b.N; i++ {
		calcs := []*Calc{
			NewCalc(in, &plan.And{Args: []plan.Expr{like, eq}}, []plan.Expr{calcCol(0)}, []string{"a"}),
			NewCalc(in, &plan.And{Args: []plan.Expr{eq, like}}, []plan.Expr{calcCol(0)}, []string{"a"}),
			NewCalc(in, &plan.And{Args: []plan.Expr{like, eq}}, []plan.Expr{calcCol(0)}, []string{"a"}),
		}
		for _, c := range calcs {
			if err := c.Open(context.Background(), exec.NewTestEnv(alloc)); err != nil {
				b.Fatal(err)
			}
		}
		bad += feed(calcs[2], batches[:64], 1)
		feed(calcs[0], batches, 4)
		feed(calcs[1], batches, 4)
		adaptive += feed(calcs[0], batches, 2)
		good += feed(calcs[1], batches, 2)
		for _, c := range calcs {
			c.Close()
		}
	}
	b.ReportMetric(good/float64(b.N), "good-ns/row")
	b.ReportMetric(adaptive/good, "started-bad/good")
	b.ReportMetric(bad/good, "bad-order/good")
}
