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
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/planner/plan"
)

// calcInput is the input of the Calc tests: auction, price, channel.
var calcInput = []types.T{types.BigIntT, types.BigIntT, types.VarcharT}

func calcCol(ord int) *plan.InputRef {
	return &plan.InputRef{Ord: ord, Typ: calcInput[ord], Null: true, Name: []string{"auction", "price", "channel"}[ord]}
}

func calcInt(v int64) *plan.Const { return &plan.Const{Val: types.IntDatum(v), Typ: types.BigIntT} }

// calcRows are four bids: auction, price, channel.
const calcRows = `bigint bigint varchar
	+I 1 5 web
	+I 2 50 app
	+I 3 NULL NULL
	+I 4 70 web`

// calcRunner returns a runner of a Calc over calcInput, not yet open.
func calcRunner(t *testing.T, alloc memory.Allocator, filter plan.Expr, projs []plan.Expr, names []string) *exectest.Runner {
	return &exectest.Runner{
		Op:  NewCalc(calcInput, filter, projs, names),
		Env: exec.NewTestEnv(alloc),
		Out: exectest.NewCollector(t, exectest.CollectorOptions{}),
	}
}

// openCalc returns an open Calc over calcInput, closed when t ends.
func openCalc(t *testing.T, alloc memory.Allocator, filter plan.Expr, projs []plan.Expr, names []string) *Calc {
	t.Helper()
	c := NewCalc(calcInput, filter, projs, names)
	if err := c.Open(context.Background(), exec.NewTestEnv(alloc)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestCalcFilterProjectWithOps(t *testing.T) {
	filter := &plan.Binary{Op: plan.OpGt, L: calcCol(1), R: calcInt(10), Typ: types.BoolT}
	double := &plan.Binary{Op: plan.OpMul, L: calcCol(1), R: calcInt(2), Typ: types.BigIntT}
	upper := &plan.Func{Name: "upper", Args: []plan.Expr{calcCol(2)}, Typ: types.VarcharT, Null: true}
	r := calcRunner(t, exectest.Alloc(t), filter, []plan.Expr{calcCol(0), double, upper}, []string{"auction", "p2", "ch"})
	r.Run(t, []exectest.Step{
		{In: `bigint bigint varchar
			+I 2 50 app`,
			Want: `+I 2 100 APP`},
		// The kept +U lost its -U (row 3 is an insert), so it enters the
		// result as an insert; the kept -D stays a delete.
		{In: `bigint bigint varchar
			-U 1 5 web
			-D 2 50 app
			+I 3 NULL NULL
			+U 4 70 web`,
			Want: `-D 2 100 APP
			       +I 4 140 WEB`,
			Check: func(t *testing.T) {
				if f := r.Out.Schema().Field(1); f.Name != "p2" || f.Type.ID() != arrow.INT64 {
					t.Errorf("field %v", f)
				}
			}},
		// A watermark passes through the runtime, not the Calc.
		{Ctl: exectest.Watermark(5), Want: ``},
	})
}

func TestCalcZeroCopy(t *testing.T) {
	alloc := exectest.Alloc(t)
	in := exectest.Chunk(t, alloc, calcRows)
	defer in.Batch.Release()

	// No filter, plain columns: the output shares the input's buffers.
	c := NewCalc(calcInput, nil, []plan.Expr{calcCol(2), calcCol(0)}, []string{"ch", "a"})
	if err := c.Open(context.Background(), exec.NewTestEnv(alloc)); err != nil {
		t.Fatal(err)
	}
	var batch arrow.RecordBatch
	keep := exec.EmitterFunc(func(_ context.Context, ch exec.Chunk) error {
		batch = ch.Batch
		batch.Retain()
		return nil
	})
	if err := c.Process(context.Background(), 0, in, keep); err != nil {
		t.Fatal(err)
	}
	if batch.Column(0).Data().Buffers()[2] != in.Batch.Column(2).Data().Buffers()[2] {
		t.Errorf("plain column was copied")
	}
	batch.Release()
	c.Close()
	c.Close() // idempotent
}

func TestCalcSelections(t *testing.T) {
	alloc := exectest.Alloc(t)
	// A filter that keeps every row avoids the take: ops pass through as is.
	all := &plan.IsNull{Arg: calcCol(0), Negated: true}
	calcRunner(t, alloc, all, []plan.Expr{calcCol(1)}, []string{"p"}).Run(t, []exectest.Step{
		{In: `bigint bigint varchar
			+I 2 50 app`,
			Want: `+I 50`},
		{In: `bigint bigint varchar
			+I 1 5 web
			-D 2 50 app
			+I 3 NULL NULL
			+I 4 70 web`,
			Want: `+I 5
			       -D 50
			       +I NULL
			       +I 70`},
	})
	// A filter that keeps nothing emits nothing (NULL is not TRUE), and
	// neither does an empty chunk.
	none := &plan.Binary{Op: plan.OpGt, L: calcCol(1), R: &plan.Const{Val: types.NullDatum, Typ: types.BigIntT}, Typ: types.BoolT}
	calcRunner(t, alloc, none, []plan.Expr{calcCol(1)}, []string{"p"}).Run(t, []exectest.Step{
		{In: calcRows, Want: ``},
		{In: `bigint bigint varchar`, Want: ``},
	})
}

func TestCalcErrors(t *testing.T) {
	alloc := exectest.Alloc(t)
	in := exectest.Chunk(t, alloc, calcRows)
	defer in.Batch.Release()
	ctx := context.Background()
	big := &plan.Binary{Op: plan.OpMul, L: calcCol(1), R: calcInt(math.MaxInt64 / 60), Typ: types.BigIntT}
	// The projection overflows for prices >= 61, which the filter drops.
	small := &plan.Binary{Op: plan.OpLt, L: calcCol(1), R: calcInt(60), Typ: types.BoolT}
	c := openCalc(t, alloc, small, []plan.Expr{big}, []string{"x"})
	out := exectest.NewCollector(t, exectest.CollectorOptions{})
	if err := c.Process(ctx, 0, in, out); err != nil {
		t.Fatalf("filtered rows failed the projection: %v", err)
	}
	if got := out.Take(); got != fmt.Sprintf("+I %d\n+I %d", 5*(math.MaxInt64/60), 50*(math.MaxInt64/60)) {
		t.Errorf("emitted %s", got)
	}
	// Without the filter the row with price 70 fails, naming the value.
	c2 := openCalc(t, alloc, nil, []plan.Expr{calcCol(0), big}, []string{"a", "x"})
	err := c2.Process(ctx, 0, in, out)
	if err == nil || !strings.Contains(err.Error(), "BIGINT value is out of range in '70 * ") {
		t.Errorf("got %v", err)
	}
	if NewCalc(calcInput, nil, nil, nil).Process(ctx, 0, in, out) == nil {
		t.Errorf("Process before Open succeeded")
	}
	bad := NewCalc(calcInput, calcCol(0), []plan.Expr{calcCol(0)}, []string{"a"})
	if bad.Open(ctx, exec.NewTestEnv(alloc)) == nil {
		t.Errorf("a BIGINT filter compiled")
	}
	if NewCalc(calcInput, nil, []plan.Expr{calcCol(0)}, nil).Open(ctx, exec.NewTestEnv(alloc)) == nil {
		t.Errorf("missing names accepted")
	}
	if c.Process(ctx, 1, in, out) == nil {
		t.Errorf("input 1 accepted")
	}
	// An emitter failure is returned and nothing leaks (the checked
	// allocator says so when the test ends).
	fail := exec.EmitterFunc(func(context.Context, exec.Chunk) error { return context.Canceled })
	if err := c.Process(ctx, 0, in, fail); err != context.Canceled {
		t.Errorf("emit error: %v", err)
	}
}

func TestCalcSlicedBatch(t *testing.T) {
	alloc := exectest.Alloc(t)
	in := exectest.Chunk(t, alloc, calcRows)
	defer in.Batch.Release()
	sliced := in.Batch.NewSlice(1, 4) // rows 2, 3, 4: offset 1
	defer sliced.Release()
	filter := &plan.IsNull{Arg: calcCol(1), Negated: true}
	plus := &plan.Binary{Op: plan.OpAdd, L: calcCol(0), R: calcCol(1), Typ: types.BigIntT}
	c := openCalc(t, alloc, filter, []plan.Expr{plus, calcCol(2)}, []string{"s", "ch"})
	out := exectest.NewCollector(t, exectest.CollectorOptions{})
	if err := c.Process(context.Background(), 0, exec.Chunk{Batch: sliced, Ops: []exec.Op{exec.Insert, exec.Delete, exec.Insert}}, out); err != nil {
		t.Fatal(err)
	}
	// Row 3's delete is filtered out (NULL price): the rest are inserts.
	if got := out.Take(); got != "+I 52 app\n+I 74 web" {
		t.Errorf("emitted\n%s", got)
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
