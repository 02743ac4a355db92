package expr

import (
	"errors"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// TestRegistryAgreement checks that plan's function registry and the
// kernels agree: every builtin that can run has a kernel, and every kernel
// is a builtin.
func TestRegistryAgreement(t *testing.T) {
	kernels := funcTable()
	for _, b := range plan.Builtins() {
		_, ok := kernels[b.Name]
		switch run := runnable(b); {
		case run && !ok:
			t.Errorf("builtin %s has no kernel", b.Name)
		case !run && ok:
			t.Errorf("builtin %s never resolves but has a kernel", b.Name)
		case !run:
			// NOW() and friends: the registry explains why they cannot run.
			if _, _, _, err := b.Resolve(nil, nil); !errors.Is(err, plan.ErrNotSupported) {
				t.Errorf("%s: got %v, want a not-supported error", b.Name, err)
			}
		}
	}
	for name := range kernels {
		if _, ok := plan.LookupBuiltin(name); !ok {
			t.Errorf("kernel %s is not in plan's registry", name)
		}
	}
}

// runnable reports whether some call of b resolves.
func runnable(b *plan.Builtin) bool {
	ok := false
	hi := b.MaxArgs
	if hi < 0 {
		hi = 3
	}
	for arity := b.MinArgs; arity <= hi && !ok; arity++ {
		forEachCombo(arity, len(sampleTypes), func(combo []int) {
			args := make([]types.T, arity)
			for k, c := range combo {
				args[k] = sampleTypes[c]
			}
			if _, _, _, err := b.Resolve(args, make([]bool, arity)); err == nil {
				ok = true
			}
		})
	}
	return ok
}

// sampleTypes and sampleValues are the argument types the registry test
// tries, with one non-NULL value each.
var (
	sampleTypes  = []types.T{bigint, double, vchar, dec102, ts3, dateT, boolT}
	sampleValues = []types.Datum{i(12), f(2.5), s("2024-01-01"), d("3.25", 2), tsd("2024-01-01 10:00:00.5"), dd("2024-01-01"), b(true)}
)

// TestRegistryKernelsAcceptResolvedTypes resolves every builtin over many
// argument type combinations and compiles and runs each call the binder
// could produce (arguments cast to the types Resolve wants), over a row of
// NULLs and a row of values. Only row errors (a failed cast) may occur.
func TestRegistryKernelsAcceptResolvedTypes(t *testing.T) {
	alloc := checkedAlloc(t)
	nulls := make([]types.Datum, len(sampleTypes))
	for k := range nulls {
		nulls[k] = null
	}
	names := []string{"i", "f", "s", "d", "t", "dt", "b"}
	rec := types.BuildRecord(alloc, names, sampleTypes, [][]types.Datum{nulls, sampleValues})
	defer rec.Release()
	// Columns that are entirely NULL load as constants: another code path.
	allNull := types.BuildRecord(alloc, names, sampleTypes, [][]types.Datum{nulls, nulls, nulls})
	defer allNull.Release()
	calls := 0
	for _, bi := range plan.Builtins() {
		hi := bi.MaxArgs
		if hi < 0 {
			hi = 3
		}
		for arity := max(bi.MinArgs, 1); arity <= hi; arity++ {
			forEachCombo(arity, len(sampleTypes), func(combo []int) {
				args := make([]types.T, arity)
				nullable := make([]bool, arity)
				for k, c := range combo {
					args[k], nullable[k] = sampleTypes[c], true
				}
				want, ret, retNullable, err := bi.Resolve(args, nullable)
				if err != nil {
					return
				}
				call := &plan.Func{Name: bi.Name, Typ: ret, Null: true}
				for k, c := range combo {
					var a plan.Expr = col(c, sampleTypes[c])
					switch {
					case bi.Name == "extract" && k == 0:
						a = litS("YEAR")
					case bi.Name == "timestampdiff" && k == 0:
						a = litS("MONTH")
					case bi.Name == "trim" && k == 2:
						a = litS("BOTH")
					case want[k] != args[k]:
						a = cast(a, want[k])
					}
					call.Args = append(call.Args, a)
				}
				calls++
				x, err := Compile(call, sampleTypes)
				if err != nil {
					t.Errorf("%s: Compile: %v", call, err)
					return
				}
				on, err := x.Eval(alloc, allNull)
				if err != nil {
					t.Errorf("%s over NULL columns: %v", call, err)
					return
				}
				for r := 0; r < on.Len(); r++ {
					if retNullable && !on.IsNull(r) { // RAND(NULL) is RAND(0)
						t.Errorf("%s over NULL columns, row %d = %s", call, r, types.Format(types.DatumAt(on, r, ret), ret))
					}
				}
				on.Release()
				out, err := x.Eval(alloc, rec)
				if err != nil {
					if !IsRowError(err) {
						t.Errorf("%s: %v", call, err)
					}
					return
				}
				if retNullable && !out.IsNull(0) {
					t.Errorf("%s over NULLs = %v, want NULL", call, types.Format(types.DatumAt(out, 0, ret), ret))
				}
				out.Release()
			})
		}
	}
	if calls < 500 {
		t.Fatalf("only %d calls tried", calls)
	}
}

// forEachCombo calls fn with every tuple of n indices below k.
func forEachCombo(n, k int, fn func([]int)) {
	idx := make([]int, n)
	if n == 0 {
		fn(idx)
		return
	}
	for {
		fn(idx)
		p := n - 1
		for p >= 0 && idx[p] == k-1 {
			idx[p] = 0
			p--
		}
		if p < 0 {
			return
		}
		idx[p]++
	}
}
