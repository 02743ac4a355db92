package basic

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/planner/plan"
)

// calcInput is the input of the Calc tests: auction, price, channel.
var calcInput = []types.T{types.BigIntT, types.BigIntT, types.VarcharT}

func calcCol(ord int) *plan.InputRef {
	return &plan.InputRef{Ord: ord, Typ: calcInput[ord], Null: true, Name: []string{"auction", "price", "channel"}[ord]}
}

func calcInt(v int64) *plan.Const { return &plan.Const{Val: types.IntDatum(v), Typ: types.BigIntT} }

// collected is what a test emitter received: rows (formatted) and ops.
type collected struct {
	rows    []string
	ops     []exec.Op
	batches int
	schema  *arrow.Schema
}

func (c *collected) emitter() exec.Emitter {
	return exec.EmitterFunc(func(_ context.Context, ch exec.Chunk) error {
		c.batches++
		c.schema = ch.Batch.Schema()
		ts := make([]types.T, ch.Batch.NumCols())
		for j, f := range ch.Batch.Schema().Fields() {
			t, err := types.FromField(f)
			if err != nil {
				return err
			}
			ts[j] = t
		}
		for i, row := range types.Rows(ch.Batch, ts) {
			parts := make([]string, len(row))
			for j, d := range row {
				parts[j] = types.Format(d, ts[j])
			}
			c.rows = append(c.rows, strings.Join(parts, " "))
			c.ops = append(c.ops, ch.Op(i))
		}
		return nil
	})
}

func calcBatch(alloc memory.Allocator, rows [][]types.Datum) arrow.RecordBatch {
	return types.BuildRecord(alloc, []string{"auction", "price", "channel"}, calcInput, rows)
}

var calcRows = [][]types.Datum{
	{types.IntDatum(1), types.IntDatum(5), types.StringDatum("web")},
	{types.IntDatum(2), types.IntDatum(50), types.StringDatum("app")},
	{types.IntDatum(3), types.NullDatum, types.NullDatum},
	{types.IntDatum(4), types.IntDatum(70), types.StringDatum("web")},
}

func openCalc(t *testing.T, alloc memory.Allocator, filter plan.Expr, projs []plan.Expr, names []string) (*Calc, *exec.Env) {
	t.Helper()
	c := NewCalc(calcInput, filter, projs, names)
	env := exec.NewTestEnv(alloc)
	if err := c.Open(context.Background(), env); err != nil {
		t.Fatal(err)
	}
	return c, env
}

func TestCalcFilterProjectWithOps(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	filter := &plan.Binary{Op: plan.OpGt, L: calcCol(1), R: calcInt(10), Typ: types.BoolT}
	double := &plan.Binary{Op: plan.OpMul, L: calcCol(1), R: calcInt(2), Typ: types.BigIntT}
	upper := &plan.Func{Name: "upper", Args: []plan.Expr{calcCol(2)}, Typ: types.VarcharT, Null: true}
	c, _ := openCalc(t, alloc, filter, []plan.Expr{calcCol(0), double, upper}, []string{"auction", "p2", "ch"})
	defer c.Close()

	rec := calcBatch(alloc, calcRows)
	defer rec.Release()
	var got collected
	ops := []exec.Op{exec.UpdateBefore, exec.Delete, exec.Insert, exec.UpdateAfter}
	if err := c.Process(context.Background(), 0, exec.Chunk{Batch: rec, Ops: ops}, got.emitter()); err != nil {
		t.Fatal(err)
	}
	want := []string{"2 100 APP", "4 140 WEB"}
	if strings.Join(got.rows, "|") != strings.Join(want, "|") {
		t.Errorf("rows %v, want %v", got.rows, want)
	}
	// The kept +U lost its -U (row 3 is an insert), so it enters the
	// result as an insert.
	if len(got.ops) != 2 || got.ops[0] != exec.Delete || got.ops[1] != exec.Insert {
		t.Errorf("ops %v, want [-D +I]", got.ops)
	}
	if f := got.schema.Field(1); f.Name != "p2" || f.Type.ID() != arrow.INT64 {
		t.Errorf("field %v", f)
	}
	if err := c.OnControl(context.Background(), exec.Control{Kind: exec.Watermark, Watermark: 5}, got.emitter()); err != nil || got.batches != 1 {
		t.Errorf("OnControl: %v, %d batches", err, got.batches)
	}
}

func TestCalcZeroCopyAndSelections(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	rec := calcBatch(alloc, calcRows)
	defer rec.Release()

	// No filter, plain columns: the output shares the input's buffers.
	c, _ := openCalc(t, alloc, nil, []plan.Expr{calcCol(2), calcCol(0)}, []string{"ch", "a"})
	var batch arrow.RecordBatch
	keep := exec.EmitterFunc(func(_ context.Context, ch exec.Chunk) error {
		batch = ch.Batch
		batch.Retain()
		return nil
	})
	if err := c.Process(context.Background(), 0, exec.Chunk{Batch: rec}, keep); err != nil {
		t.Fatal(err)
	}
	if batch.Column(0).Data().Buffers()[2] != rec.Column(2).Data().Buffers()[2] {
		t.Errorf("plain column was copied")
	}
	batch.Release()
	c.Close()
	c.Close() // idempotent

	// A filter that keeps every row avoids the take: ops pass through as is.
	all := &plan.IsNull{Arg: calcCol(0), Negated: true}
	c, _ = openCalc(t, alloc, all, []plan.Expr{calcCol(1)}, []string{"p"})
	ops := []exec.Op{exec.Insert, exec.Delete, exec.Insert, exec.Insert}
	var got collected
	if err := c.Process(context.Background(), 0, exec.Chunk{Batch: rec, Ops: ops}, got.emitter()); err != nil {
		t.Fatal(err)
	}
	if len(got.rows) != 4 || got.ops[1] != exec.Delete {
		t.Errorf("full selection: %v %v", got.rows, got.ops)
	}
	// A filter that keeps nothing emits nothing (NULL is not TRUE).
	none := &plan.Binary{Op: plan.OpGt, L: calcCol(1), R: &plan.Const{Val: types.NullDatum, Typ: types.BigIntT}, Typ: types.BoolT}
	c2, _ := openCalc(t, alloc, none, []plan.Expr{calcCol(1)}, []string{"p"})
	if err := c2.Process(context.Background(), 0, exec.Chunk{Batch: rec}, got.emitter()); err != nil {
		t.Fatal(err)
	}
	if got.batches != 1 {
		t.Errorf("empty selection emitted: %d batches", got.batches)
	}
	// An empty chunk emits nothing.
	empty := calcBatch(alloc, nil)
	if err := c.Process(context.Background(), 0, exec.Chunk{Batch: empty}, got.emitter()); err != nil || got.batches != 1 {
		t.Errorf("empty chunk: %v, %d batches", err, got.batches)
	}
	empty.Release()
}

func TestCalcErrors(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	rec := calcBatch(alloc, calcRows)
	defer rec.Release()
	big := &plan.Binary{Op: plan.OpMul, L: calcCol(1), R: calcInt(math.MaxInt64 / 60), Typ: types.BigIntT}
	// The projection overflows for prices >= 61, which the filter drops.
	small := &plan.Binary{Op: plan.OpLt, L: calcCol(1), R: calcInt(60), Typ: types.BoolT}
	c, _ := openCalc(t, alloc, small, []plan.Expr{big}, []string{"x"})
	var got collected
	if err := c.Process(context.Background(), 0, exec.Chunk{Batch: rec}, got.emitter()); err != nil {
		t.Fatalf("filtered rows failed the projection: %v", err)
	}
	if len(got.rows) != 2 {
		t.Errorf("rows %v", got.rows)
	}
	// Without the filter the row with price 70 fails.
	c2, _ := openCalc(t, alloc, nil, []plan.Expr{calcCol(0), big}, []string{"a", "x"})
	err := c2.Process(context.Background(), 0, exec.Chunk{Batch: rec}, got.emitter())
	if err == nil || !strings.Contains(err.Error(), "BIGINT value is out of range in '70 * ") {
		t.Errorf("got %v", err)
	}
	if NewCalc(calcInput, nil, nil, nil).Process(context.Background(), 0, exec.Chunk{Batch: rec}, got.emitter()) == nil {
		t.Errorf("Process before Open succeeded")
	}
	bad := NewCalc(calcInput, calcCol(0), []plan.Expr{calcCol(0)}, []string{"a"})
	if bad.Open(context.Background(), exec.NewTestEnv(alloc)) == nil {
		t.Errorf("a BIGINT filter compiled")
	}
	if NewCalc(calcInput, nil, []plan.Expr{calcCol(0)}, nil).Open(context.Background(), exec.NewTestEnv(alloc)) == nil {
		t.Errorf("missing names accepted")
	}
	if c.Process(context.Background(), 1, exec.Chunk{Batch: rec}, got.emitter()) == nil {
		t.Errorf("input 1 accepted")
	}
	// An emitter failure is returned and nothing leaks.
	fail := exec.EmitterFunc(func(context.Context, exec.Chunk) error { return context.Canceled })
	if err := c.Process(context.Background(), 0, exec.Chunk{Batch: rec}, fail); err != context.Canceled {
		t.Errorf("emit error: %v", err)
	}
}

func TestCalcSlicedBatch(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	rec := calcBatch(alloc, calcRows)
	defer rec.Release()
	sliced := rec.NewSlice(1, 4) // rows 2, 3, 4: offset 1
	defer sliced.Release()
	filter := &plan.IsNull{Arg: calcCol(1), Negated: true}
	plus := &plan.Binary{Op: plan.OpAdd, L: calcCol(0), R: calcCol(1), Typ: types.BigIntT}
	c, _ := openCalc(t, alloc, filter, []plan.Expr{plus, calcCol(2)}, []string{"s", "ch"})
	var got collected
	if err := c.Process(context.Background(), 0, exec.Chunk{Batch: sliced, Ops: []exec.Op{exec.Insert, exec.Delete, exec.Insert}}, got.emitter()); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got.rows, "|") != "52 app|74 web" || got.ops[0] != exec.Insert || got.ops[1] != exec.Insert {
		t.Errorf("rows %v ops %v", got.rows, got.ops)
	}
}

func TestSelectOpsRepairsHalvedUpdates(t *testing.T) {
	all := []exec.Op{exec.UpdateBefore, exec.UpdateAfter, exec.UpdateBefore, exec.UpdateAfter, exec.UpdateBefore, exec.UpdateAfter, exec.Insert, exec.Delete}
	for _, c := range []struct {
		sel  []int32
		want []exec.Op
	}{
		{[]int32{0, 1, 2, 3}, []exec.Op{exec.UpdateBefore, exec.UpdateAfter, exec.UpdateBefore, exec.UpdateAfter}},
		{[]int32{0, 3}, []exec.Op{exec.Delete, exec.Insert}}, // each update lost a half
		{[]int32{1, 2}, []exec.Op{exec.Insert, exec.Delete}}, // adjacent rows from different updates
		{[]int32{4, 5, 6, 7}, []exec.Op{exec.UpdateBefore, exec.UpdateAfter, exec.Insert, exec.Delete}},
		{[]int32{5}, []exec.Op{exec.Insert}},
	} {
		got := selectOps(all, c.sel)
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("selectOps(%v) = %v, want %v", c.sel, got, c.want)
		}
	}
}
