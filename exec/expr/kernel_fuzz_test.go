package expr_test

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/expr"
	"github.com/eddysql/eddy/planner/plan"
)

// The kernel fuzz test compiles random expressions shaped as the binder
// shapes them (every built-in function of plan's registry and every
// operator, cast and predicate exec/expr compiles), each argument a
// constant, a column, a typed NULL or a nested expression, and evaluates
// them over random batches of edge values. Every result is compared with
// a row-at-a-time reference evaluator (ref_*_test.go) that shares nothing
// with the vectorized kernels: the values, NULLs and which rows fail, with
// the same error kind, must agree, and nothing may panic.
//
//	go test ./exec/expr -run TestKernelsMatchReference                      # the default sample (seconds)
//	go test ./exec/expr -run TestKernelsMatchReference -kernels.n=200000    # a long run
//	go test ./exec/expr -run TestKernelsMatchReference -kernels.seed=S -kernels.n=1  # reproduce case S
//	go test ./exec/expr -run '^$' -fuzz FuzzKernels                         # coverage-guided seeds
var (
	flagCases = flag.Int("kernels.n", 0, "number of random kernel cases (0: the default sample)")
	flagSeed  = flag.Uint64("kernels.seed", 1, "seed of the first kernel case; case i runs seed+i")
	flagShow  = flag.Bool("kernels.show", false, "log every kernel case, not only the failing ones")
)

// defaultCases is the sample `go test` runs: every target dozens of times
// in a few seconds.
const defaultCases = 4000

// maxFailures stops a run after this many failing cases.
const maxFailures = 10

func TestKernelsMatchReference(t *testing.T) {
	checkEveryBuiltinHasAGenerator(t)
	n := *flagCases
	if n == 0 {
		n = defaultCases
		if testing.Short() {
			n /= 8
		}
	}
	failures := 0
	for i := 0; i < n && failures < maxFailures; i++ {
		seed := *flagSeed + uint64(i)
		c := newCase(seed)
		if *flagShow {
			t.Logf("seed %d: %s over %d rows", seed, c.e, len(c.rows))
		}
		if msg := c.run(); msg != "" {
			failures++
			t.Errorf("%s\nreproduce: go test ./exec/expr -run TestKernelsMatchReference -kernels.seed=%d -kernels.n=1", msg, seed)
		}
	}
}

// FuzzKernels is the same check driven by `go test -fuzz`: the fuzzer
// mutates the seed that generates a case.
func FuzzKernels(f *testing.F) {
	for s := uint64(1); s <= 64; s++ {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		if msg := newCase(seed).run(); msg != "" {
			t.Fatal(msg)
		}
	})
}

// kcase is one generated case: an expression over the schema's columns
// and the rows of a batch.
type kcase struct {
	seed   uint64
	r      *rand.Rand
	target string
	e      plan.Expr
	rows   [][]types.Datum
	sliced bool // the batch is a slice of a larger one (unaligned offsets)
}

// newCase generates case seed: the seed alone decides the target (targets
// take turns over consecutive seeds), the expression and the rows.
func newCase(seed uint64) *kcase {
	r := rand.New(rand.NewPCG(seed, 0x5eed_cafe))
	ts := targets()
	tg := ts[seed%uint64(len(ts))]
	g := newGen(r)
	var e plan.Expr
	for e == nil {
		e = tg.make(g, 1+r.IntN(3))
	}
	placeExpressions(e)
	return &kcase{seed: seed, r: r, target: tg.name, e: e, rows: genRows(r, batchSize(r)), sliced: r.IntN(3) == 0}
}

// outcome is what the reference says of one row: a value or a row error.
type outcome struct {
	v   types.Datum
	err *refError
}

// run evaluates the case every way exec/expr offers and returns a
// description of the first disagreement with the reference ("" when none).
func (c *kcase) run() (msg string) {
	defer func() {
		if p := recover(); p != nil {
			msg = c.describe(fmt.Sprintf("panic: %v\n%s", p, debug.Stack()))
		}
	}()
	if isVolatileCall(c.e) {
		return c.runVolatile()
	}
	t := c.e.Type()
	want := make([]outcome, len(c.rows))
	for i, row := range c.rows {
		v, err := (&refEval{row: row}).eval(c.e)
		var re *refError
		switch {
		case errors.As(err, &re):
			want[i].err = re
		case err != nil:
			return c.describe(fmt.Sprintf("reference: %v", err))
		}
		want[i].v = v
	}
	x, err := expr.Compile(c.e, schema)
	if err != nil {
		return c.describe(fmt.Sprintf("Compile: %v", err))
	}
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	rec := expr.MakeBatch(alloc, schema, c.rows, c.sliced)
	msg = c.check(x, alloc, rec, t, want)
	rec.Release()
	if msg == "" && alloc.CurrentAlloc() != 0 {
		msg = c.describe(fmt.Sprintf("%d bytes of Arrow memory not released", alloc.CurrentAlloc()))
	}
	return msg
}

// check compares every evaluation path with the reference outcomes.
func (c *kcase) check(x *expr.Expr, alloc memory.Allocator, rec arrow.RecordBatch, t types.T, want []outcome) string {
	all := make([]int32, len(want))
	for i := range all {
		all[i] = int32(i)
	}
	got, err := x.Eval(alloc, rec)
	if m := c.compare("Eval", got, err, t, want, all); m != "" {
		return m
	}
	// Row by row: which rows fail, and how, must agree exactly.
	for i := range min(len(want), 48) {
		var got arrow.Array
		var err error
		if i%2 == 0 {
			got, err = x.EvalSelected(alloc, rec, []int32{int32(i)})
		} else {
			one := rec.NewSlice(int64(i), int64(i+1))
			got, err = x.Eval(alloc, one)
			one.Release()
		}
		if m := c.compare(fmt.Sprintf("row %d alone", i), got, err, t, want, []int32{int32(i)}); m != "" {
			return m
		}
	}
	// A random subset of the rows, in random order.
	sel := make([]int32, 0, len(want))
	for _, i := range c.r.Perm(len(want)) {
		if c.r.IntN(2) == 0 {
			sel = append(sel, int32(i))
		}
	}
	got, err = x.EvalSelected(alloc, rec, sel)
	if m := c.compare(fmt.Sprintf("EvalSelected%v", sel), got, err, t, want, sel); m != "" {
		return m
	}
	if t.Kind == types.Boolean {
		if m := c.checkSelect(x, alloc, rec, want); m != "" {
			return m
		}
	}
	if m := c.checkProgram(alloc, rec); m != "" {
		return m
	}
	if len(expr.ColsUsed(c.e)) == 0 {
		v, err := expr.EvalConst(c.e)
		w := outcome{}
		rv, rerr := (&refEval{}).eval(c.e)
		if !errors.As(rerr, &w.err) {
			w.v = rv
		}
		if m := sameOutcome(v, err, w, t); m != "" {
			return c.describe("EvalConst: " + m)
		}
	}
	return ""
}

// compare checks an evaluation of the rows rows (got holds them in that
// order) against the reference: when some row fails, the evaluation must
// fail with the kind of one of the failing rows; else every value agrees.
func (c *kcase) compare(what string, got arrow.Array, err error, t types.T, want []outcome, rows []int32) string {
	if got != nil {
		defer got.Release()
	}
	failures := map[failure]bool{}
	for _, i := range rows {
		if want[i].err != nil {
			failures[want[i].err.failure()] = true
		}
	}
	if len(failures) > 0 {
		var re *expr.RowError
		switch {
		case err == nil:
			return c.describe(fmt.Sprintf("%s: no error; the reference fails: %s", what, firstError(want, rows)))
		case !errors.As(err, &re):
			return c.describe(fmt.Sprintf("%s: %v is not a RowError; the reference fails: %s", what, err, firstError(want, rows)))
		case !failures[failure{re.Kind, re.Pos}]:
			return c.describe(fmt.Sprintf("%s: error %q of kind %d; the reference fails with %s", what, err, re.Kind, firstError(want, rows)))
		}
		return ""
	}
	if err != nil {
		return c.describe(fmt.Sprintf("%s: %v; the reference has no error", what, err))
	}
	if !arrow.TypeEqual(got.DataType(), t.Arrow()) || got.Len() != len(rows) {
		return c.describe(fmt.Sprintf("%s: %d values of %s, want %d of %s", what, got.Len(), got.DataType(), len(rows), t.Arrow()))
	}
	for k, i := range rows {
		if m := sameOutcome(types.DatumAt(got, k, t), nil, want[i], t); m != "" {
			return c.describe(fmt.Sprintf("%s, row %d: %s", what, i, m))
		}
	}
	return ""
}

// checkSelect checks Select: the rows where the predicate is TRUE.
func (c *kcase) checkSelect(x *expr.Expr, alloc memory.Allocator, rec arrow.RecordBatch, want []outcome) string {
	sel, err := x.Select(alloc, rec, make([]int32, 2))
	var wantSel []int32
	var failing []int32
	for i, w := range want {
		if w.err != nil {
			failing = append(failing, int32(i))
		} else if !w.v.Null && w.v.Bool() {
			wantSel = append(wantSel, int32(i))
		}
	}
	if len(failing) > 0 {
		if err == nil {
			return c.describe("Select: no error; the reference fails: " + firstError(want, failing))
		}
		return ""
	}
	if err != nil {
		return c.describe(fmt.Sprintf("Select: %v", err))
	}
	if fmt.Sprint(sel) != fmt.Sprint(wantSel) && len(sel)+len(wantSel) > 0 {
		return c.describe(fmt.Sprintf("Select = %v, want %v", sel, wantSel))
	}
	return ""
}

// sameOutcome compares one value (or error) with the reference's.
func sameOutcome(v types.Datum, err error, w outcome, t types.T) string {
	var re *expr.RowError
	switch {
	case w.err != nil && err == nil:
		return fmt.Sprintf("got %s, the reference fails: %s", types.Format(v, t), w.err)
	case w.err != nil && (!errors.As(err, &re) || re.Kind != w.err.kind || re.Pos != w.err.pos):
		return fmt.Sprintf("error %q, the reference fails with kind %d at %v: %s", err, w.err.kind, w.err.pos, w.err)
	case w.err != nil:
		return ""
	case err != nil:
		return fmt.Sprintf("error %v, the reference gives %s", err, types.Format(w.v, t))
	case v.Null != w.v.Null || !types.Equal(v, w.v, t):
		return fmt.Sprintf("got %s, the reference gives %s", formatDatum(v, t), formatDatum(w.v, t))
	}
	return ""
}

// formatDatum renders a value for a failure message, strings quoted.
func formatDatum(d types.Datum, t types.T) string {
	if t.Physical() == types.PhysString && !d.Null {
		return fmt.Sprintf("%q", d.S)
	}
	return types.Format(d, t)
}

// firstError describes the reference's first failing row among rows.
func firstError(want []outcome, rows []int32) string {
	for _, i := range rows {
		if want[i].err != nil {
			return fmt.Sprintf("row %d: kind %d at %v: %s", i, want[i].err.kind, want[i].err.pos, want[i].err)
		}
	}
	return "none"
}

// describe renders the case and a finding.
func (c *kcase) describe(finding string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d (%s): %s\n  expression: %s  [%s]\n  rows (%d, sliced=%v):", c.seed, c.target, finding, c.e, c.e.Type(), len(c.rows), c.sliced)
	used := expr.ColsUsed(c.e)
	for i, row := range c.rows {
		if i == 12 {
			fmt.Fprintf(&b, "\n    ...")
			break
		}
		var vals []string
		for _, o := range used {
			vals = append(vals, fmt.Sprintf("c%d=%s", o, formatDatum(row[o], schema[o])))
		}
		fmt.Fprintf(&b, "\n    %d: %s", i, strings.Join(vals, " "))
	}
	return b.String()
}
