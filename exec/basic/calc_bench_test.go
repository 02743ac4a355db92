package basic

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/expr"
	"github.com/eddysql/eddy/exec/internal/brute"
	"github.com/eddysql/eddy/planner/plan"
)

// Benchmark shape: 1M rows of (auction BIGINT, price BIGINT, channel
// VARCHAR) in batches of 4096; WHERE price > <median>; SELECT auction,
// price * 2.
const (
	calcBenchRows  = 1 << 20
	calcBenchBatch = 4096
	calcBenchPrice = 1_000_000 // prices are uniform in [0, calcBenchPrice)
)

func calcBenchBatches(alloc memory.Allocator) []arrow.RecordBatch {
	rng := rand.New(rand.NewPCG(1, 2))
	channels := []string{"web", "app", "partner", "direct"}
	var out []arrow.RecordBatch
	for start := 0; start < calcBenchRows; start += calcBenchBatch {
		ab := array.NewInt64Builder(alloc)
		pb := array.NewInt64Builder(alloc)
		cb := array.NewStringBuilder(alloc)
		for i := 0; i < calcBenchBatch; i++ {
			ab.Append(int64(start + i))
			pb.Append(rng.Int64N(calcBenchPrice))
			cb.Append(channels[rng.IntN(len(channels))])
		}
		cols := []arrow.Array{ab.NewArray(), pb.NewArray(), cb.NewArray()}
		schema := arrow.NewSchema([]arrow.Field{
			types.Field("auction", types.BigIntT, true), types.Field("price", types.BigIntT, true),
			types.Field("channel", types.VarcharT, true)}, nil)
		out = append(out, array.NewRecordBatch(schema, cols, calcBenchBatch))
		for _, c := range cols {
			c.Release()
		}
		ab.Release()
		pb.Release()
		cb.Release()
	}
	return out
}

// calcBenchPlan returns the filter and the projections.
func calcBenchPlan() (plan.Expr, []plan.Expr) {
	filter := &plan.Binary{Op: plan.OpGt, L: calcCol(1), R: calcInt(calcBenchPrice / 2), Typ: types.BoolT}
	double := &plan.Binary{Op: plan.OpMul, L: calcCol(1), R: calcInt(2), Typ: types.BigIntT}
	return filter, []plan.Expr{calcCol(0), double}
}

// BenchmarkCalc runs the fused Calc against two alternatives in the same
// run: evaluating projections over the whole batch and then taking the
// selected rows, and a naive row-at-a-time interpreter over Datums (the
// baseline). Run it as
//
//	go test ./exec -run XXX -bench BenchmarkCalc -count 5 -cpu 1
func BenchmarkCalc(b *testing.B) {
	alloc := memory.NewGoAllocator()
	batches := calcBenchBatches(alloc)
	defer func() {
		for _, r := range batches {
			r.Release()
		}
	}()
	filter, projs := calcBenchPlan()
	kept := 0
	sink := exec.EmitterFunc(func(_ context.Context, ch exec.Chunk) error {
		kept += ch.NumRows()
		return nil
	})
	run := func(b *testing.B, process func(rec arrow.RecordBatch) error) {
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			for _, rec := range batches {
				if err := process(rec); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(calcBenchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	}
	b.Run("fused", func(b *testing.B) {
		c := NewCalc(calcInput, filter, projs, []string{"auction", "p2"})
		brute.Open(b, c, alloc)
		run(b, func(rec arrow.RecordBatch) error {
			return c.Process(context.Background(), 0, exec.Chunk{Batch: rec}, sink)
		})
	})
	b.Run("eval-then-take", func(b *testing.B) {
		pred, err := expr.Compile(filter, calcInput)
		if err != nil {
			b.Fatal(err)
		}
		exprs := make([]*expr.Expr, len(projs))
		for i, p := range projs {
			if exprs[i], err = expr.Compile(p, calcInput); err != nil {
				b.Fatal(err)
			}
		}
		var sel []int32
		cols := make([]arrow.Array, len(projs))
		run(b, func(rec arrow.RecordBatch) error {
			if sel, err = pred.Select(alloc, rec, sel[:0]); err != nil {
				return err
			}
			for i, x := range exprs {
				full, err := x.Eval(alloc, rec)
				if err != nil {
					return err
				}
				cols[i], err = expr.Take(alloc, full, sel)
				full.Release()
				if err != nil {
					return err
				}
			}
			for _, c := range cols {
				kept += c.Len()
				c.Release()
			}
			return nil
		})
	})
	b.Run("naive-rows", func(b *testing.B) {
		run(b, func(rec arrow.RecordBatch) error {
			return calcNaive(alloc, rec, filter, projs, sink)
		})
	})
	if kept == 0 {
		b.Fatal("no rows kept")
	}
}

// calcNaive is the baseline: a row-at-a-time loop that reads each row into
// Datums, interprets the expressions by walking them, and appends results
// to builders.
func calcNaive(alloc memory.Allocator, rec arrow.RecordBatch, filter plan.Expr, projs []plan.Expr, out exec.Emitter) error {
	builders := make([]array.Builder, len(projs))
	for i, p := range projs {
		builders[i] = types.NewBuilder(alloc, p.Type())
		defer builders[i].Release()
	}
	row := make([]types.Datum, rec.NumCols())
	for r := 0; r < int(rec.NumRows()); r++ {
		for j := range row {
			row[j] = types.DatumAt(rec.Column(j), r, calcInput[j])
		}
		keep, err := calcNaiveEval(filter, row)
		if err != nil {
			return err
		}
		if keep.Null || !keep.Bool() {
			continue
		}
		for i, p := range projs {
			v, err := calcNaiveEval(p, row)
			if err != nil {
				return err
			}
			types.AppendDatum(builders[i], v, p.Type())
		}
	}
	cols := make([]arrow.Array, len(projs))
	for i, b := range builders {
		cols[i] = b.NewArray()
		defer cols[i].Release()
	}
	res := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{
		types.Field("auction", types.BigIntT, true), types.Field("p2", types.BigIntT, true)}, nil), cols, int64(cols[0].Len()))
	defer res.Release()
	return out.Emit(context.Background(), exec.Chunk{Batch: res})
}

// calcNaiveEval interprets the few expressions the benchmark uses.
func calcNaiveEval(e plan.Expr, row []types.Datum) (types.Datum, error) {
	switch e := e.(type) {
	case *plan.InputRef:
		return row[e.Ord], nil
	case *plan.Const:
		return e.Val, nil
	case *plan.Binary:
		l, err := calcNaiveEval(e.L, row)
		if err != nil {
			return l, err
		}
		r, err := calcNaiveEval(e.R, row)
		if err != nil || l.Null || r.Null {
			return types.NullDatum, err
		}
		switch e.Op {
		case plan.OpGt:
			return types.BoolDatum(types.Compare(l, r, e.L.Type()) > 0), nil
		case plan.OpMul:
			return types.IntDatum(l.I * r.I), nil
		}
	}
	return types.NullDatum, fmt.Errorf("naive: %s not supported", e)
}
