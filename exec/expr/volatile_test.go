package expr

import (
	"regexp"

	"github.com/apache/arrow-go/v18/arrow"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// TestRandSeedIsMySQLs checks RAND(seed) against values MySQL returns:
// SELECT RAND(3) is 0.9057697559760601, and a constant seed's sequence
// goes on from batch to batch as one sequence.
func TestRandSeedIsMySQLs(t *testing.T) {
	if got := evalConst(t, fn("rand", double, litI(3))); got.F != 0.9057697559760601 {
		t.Errorf("RAND(3) = %v, want MySQL's 0.9057697559760601", got.F)
	}
	alloc := checkedAlloc(t)
	rows := [][]types.Datum{{i(1)}, {i(2)}, {i(3)}}
	x, err := Compile(fn("rand", double, litI(3)), []types.T{bigint})
	if err != nil {
		t.Fatal(err)
	}
	var seq mysqlRand
	seq.seed(3)
	for batch := range 2 {
		rec := makeBatch(alloc, []types.T{bigint}, rows, false)
		out, err := x.Eval(alloc, rec)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		for r := range rows {
			if got, want := types.DatumAt(out, r, double).F, seq.next(); got != want {
				t.Errorf("batch %d row %d: RAND(3) = %v, want %v", batch, r, got, want)
			}
		}
		out.Release()
	}
	// A seed by row seeds each row alone: RAND(c0) for c0 = 3 is RAND(3).
	y, err := Compile(fn("rand", double, col(0, bigint)), []types.T{bigint})
	if err != nil {
		t.Fatal(err)
	}
	rec := makeBatch(alloc, []types.T{bigint}, [][]types.Datum{{i(3)}, {i(3)}, {null}}, false)
	defer rec.Release()
	out, err := y.Eval(alloc, rec)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	var zero mysqlRand
	zero.seed(0)
	for r, want := range []float64{0.9057697559760601, 0.9057697559760601, zero.next()} {
		if got := types.DatumAt(out, r, double); got.Null || got.F != want {
			t.Errorf("RAND(c0) row %d = %v, want %v", r, got, want)
		}
	}
}

// TestVolatileCallsAreNotShared compiles two calls of RAND() and two of
// UUID() in one Program: each is its own value per row, never a shared
// temporary nor a folded constant, and every row has its own.
func TestVolatileCallsAreNotShared(t *testing.T) {
	alloc := checkedAlloc(t)
	r1, r2 := fn("rand", double), fn("rand", double)
	u1, u2 := fn("uuid", vchar), fn("uuid", vchar)
	scaled := bin(plan.OpMul, fn("rand", double), litF(2), double)
	p, err := CompileProgram(nil, []plan.Expr{r1, r2, u1, u2, scaled, scaled}, []types.T{bigint})
	if err != nil {
		t.Fatal(err)
	}
	if p.Temps() != 0 {
		t.Errorf("the program shares %d volatile subexpressions", p.Temps())
	}
	var rows [][]types.Datum
	for r := range 50 {
		rows = append(rows, []types.Datum{i(int64(r))})
	}
	rec := makeBatch(alloc, []types.T{bigint}, rows, false)
	defer rec.Release()
	cols := make([]arrow.Array, 6)
	n, _, err := p.Eval(alloc, rec, cols, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seenF, seenS := map[float64]bool{}, map[string]bool{}
	for r := range n {
		for k := range 2 {
			v := types.DatumAt(cols[k], r, double)
			if v.Null || v.F < 0 || v.F >= 1 || seenF[v.F] {
				t.Fatalf("row %d: RAND() #%d = %v: NULL, out of [0, 1) or repeated", r, k+1, v)
			}
			seenF[v.F] = true
			u := types.DatumAt(cols[2+k], r, vchar)
			if !uuid.MatchString(u.S) || seenS[u.S] {
				t.Fatalf("row %d: UUID() #%d = %q: not a v4 UUID or repeated", r, k+1, u.S)
			}
			seenS[u.S] = true
		}
		if a, b := types.DatumAt(cols[4], r, double), types.DatumAt(cols[5], r, double); a.F == b.F {
			t.Errorf("row %d: two calls of RAND() * 2 share their value %v", r, a.F)
		}
	}
}
