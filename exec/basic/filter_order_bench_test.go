package basic

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/brute"
	"github.com/eddysql/eddy/optimizer/cost"
	"github.com/eddysql/eddy/planner/plan"
)

// filterOrderConjuncts are four conjuncts over (a BIGINT, b BIGINT, s
// VARCHAR, t VARCHAR) with known selectivities on filterOrderBatches and
// different costs: a LIKE over long strings (keeps 1/2), a range (keeps
// 9/10), an equality (keeps 1/10) and a string IN list (keeps 1/2).
func filterOrderConjuncts() ([]plan.Expr, []float64) {
	col := func(i int, t types.T) *plan.InputRef {
		return &plan.InputRef{Ord: i, Typ: t, Name: fmt.Sprintf("c%d", i)}
	}
	str := func(s string) *plan.Const { return &plan.Const{Val: types.StringDatum(s), Typ: types.VarcharT} }
	like := &plan.Like{Arg: col(2, types.VarcharT), Pattern: str("%needle%"), Escape: '\\'}
	rng := &plan.Binary{Op: plan.OpLt, L: col(0, types.BigIntT), R: calcInt(900), Typ: types.BoolT}
	eq := &plan.Binary{Op: plan.OpEq, L: col(1, types.BigIntT), R: calcInt(3), Typ: types.BoolT}
	in := &plan.In{Arg: col(3, types.VarcharT), List: []plan.Expr{str("red"), str("green"), str("blue"), str("cyan")}}
	return []plan.Expr{like, rng, eq, in}, []float64{0.5, 0.9, 0.1, 0.5}
}

// filterOrderBatches are 1M rows: a uniform in [0, 1000), b in [0, 10),
// s a 60-character string half of which contain "needle", t one of six
// colours.
func filterOrderBatches(alloc memory.Allocator) []arrow.RecordBatch {
	rng := rand.New(rand.NewPCG(3, 4))
	colours := []string{"red", "green", "blue", "black", "white", "grey"}
	filler := strings.Repeat("x", 54)
	var out []arrow.RecordBatch
	for start := 0; start < calcBenchRows; start += calcBenchBatch {
		rows := make([][]types.Datum, calcBenchBatch)
		for i := range rows {
			s := filler + "hayhay"
			if rng.IntN(2) == 0 {
				s = filler[:3] + "needle" + filler[3:]
			}
			rows[i] = []types.Datum{types.IntDatum(rng.Int64N(1000)), types.IntDatum(rng.Int64N(10)),
				types.StringDatum(s), types.StringDatum(colours[rng.IntN(len(colours))])}
		}
		out = append(out, types.BuildRecord(alloc, []string{"a", "b", "s", "t"},
			[]types.T{types.BigIntT, types.BigIntT, types.VarcharT, types.VarcharT}, rows))
	}
	return out
}

// permutations returns every order of 0..n-1.
func permutations(n int) [][]int {
	if n == 1 {
		return [][]int{{0}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for i := 0; i <= len(p); i++ {
			q := append(append(append([]int(nil), p[:i]...), n-1), p[i:]...)
			out = append(out, q)
		}
	}
	return out
}

// chosenOrder is the order the cost model picks: increasing rank, with
// the conjuncts' known selectivities and cost.ExprCost's costs.
func chosenOrder(conj []plan.Expr, sels []float64) []int {
	order := []int{0, 1, 2, 3}
	rank := func(i int) float64 { return cost.Rank(sels[i], cost.ExprCost(conj[i])) }
	for i := range order {
		for j := i + 1; j < len(order); j++ {
			if rank(order[j]) < rank(order[i]) {
				order[i], order[j] = order[j], order[i]
			}
		}
	}
	return order
}

// BenchmarkFilterOrder runs a Calc whose filter is four conjuncts of known
// selectivity and cost in each of their 24 orders over 1M rows, and in the
// order the cost model chooses ("chosen"), in one run. The Calc evaluates
// each conjunct only on the rows the earlier ones kept, so the order
// matters; the chosen order should be within 10% of the fastest. Run it as
//
//	go test ./exec -run XXX -bench BenchmarkFilterOrder -count 5 -cpu 1
func BenchmarkFilterOrder(b *testing.B) {
	alloc := memory.NewGoAllocator()
	batches := filterOrderBatches(alloc)
	defer func() {
		for _, r := range batches {
			r.Release()
		}
	}()
	conj, sels := filterOrderConjuncts()
	in := []types.T{types.BigIntT, types.BigIntT, types.VarcharT, types.VarcharT}
	run := func(b *testing.B, order []int) {
		es := make([]plan.Expr, len(order))
		for i, k := range order {
			es[i] = conj[k]
		}
		c := NewCalc(in, &plan.And{Args: es}, []plan.Expr{calcCol(0)}, []string{"a"})
		brute.Open(b, c, alloc)
		kept := 0
		sink := exec.EmitterFunc(func(_ context.Context, ch exec.Chunk) error { kept += ch.NumRows(); return nil })
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			kept = 0
			for _, r := range batches {
				if err := c.Process(context.Background(), 0, exec.Chunk{Batch: r}, sink); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/calcBenchRows, "ns/row")
		if want := calcBenchRows * 0.5 * 0.9 * 0.1 / 2; float64(kept) < want*0.8 || float64(kept) > want*1.2 {
			b.Fatalf("kept %d rows, want about %.0f", kept, want)
		}
	}
	name := func(order []int) string {
		var s strings.Builder
		for _, k := range order {
			s.WriteString([]string{"L", "R", "E", "I"}[k])
		}
		return s.String()
	}
	b.Run("chosen="+name(chosenOrder(conj, sels)), func(b *testing.B) { run(b, chosenOrder(conj, sels)) })
	if testing.Verbose() {
		// Each conjunct alone over every row: its measured cost.
		for k := range conj {
			b.Run("alone="+name([]int{k}), func(b *testing.B) {
				c := NewCalc(in, conj[k], []plan.Expr{calcCol(0)}, []string{"a"})
				brute.Open(b, c, alloc)
				sink := exec.EmitterFunc(func(context.Context, exec.Chunk) error { return nil })
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					for _, r := range batches {
						if err := c.Process(context.Background(), 0, exec.Chunk{Batch: r}, sink); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/calcBenchRows, "ns/row")
			})
		}
	}
	for _, p := range permutations(4) {
		b.Run(name(p), func(b *testing.B) { run(b, p) })
	}
}
