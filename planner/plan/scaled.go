package plan

import "github.com/eddysql/eddy/catalog/types"

// CIZ is the normal quantile of a two-sided 95% confidence interval, the
// factor of the scaled aggregates' _CI forms.
const CIZ = 1.96

// ScaledTerm returns the per-row term whose SUM a scaled aggregate is
// (planner/scaled.go), for a row kept by load shedding with probability
// keep (a DOUBLE): 1/keep for SCALED_COUNT, x/keep for SCALED_SUM (sum),
// and (1 − keep)/keep² for SCALED_COUNT_CI, times x² for SCALED_SUM_CI
// (ci). x is the argument, nil for SCALED_COUNT(*); a count's term is
// NULL where x is, as COUNT(x) skips NULLs, and a sum's is by arithmetic.
func ScaledTerm(x, keep Expr, sum, ci bool) Expr {
	var v Expr
	if sum {
		v = x
		if v.Type().Kind != types.Double {
			v = &Cast{Arg: v, To: types.DoubleT}
		}
	}
	var t Expr
	switch {
	case ci:
		t = &Binary{Op: OpDiv, Typ: types.DoubleT,
			L: &Binary{Op: OpSub, L: doubleConst(1), R: keep, Typ: types.DoubleT},
			R: &Binary{Op: OpMul, L: keep, R: keep, Typ: types.DoubleT}}
		if v != nil {
			t = &Binary{Op: OpMul, L: t, Typ: types.DoubleT,
				R: &Binary{Op: OpMul, L: v, R: v, Typ: types.DoubleT}}
		}
	case v != nil:
		t = &Binary{Op: OpDiv, L: v, R: keep, Typ: types.DoubleT}
	default:
		t = &Binary{Op: OpDiv, L: doubleConst(1), R: keep, Typ: types.DoubleT}
	}
	if x != nil && !sum && x.Nullable() {
		t = &Case{Whens: []When{{Cond: &IsNull{Arg: x}, Result: &Const{Val: types.Datum{Null: true}, Typ: types.DoubleT}}},
			Else: t, Typ: types.DoubleT}
	}
	return t
}

// ScaledResult returns a scaled aggregate's result from the SUM of its
// terms (sum, a nullable DOUBLE): a count's is 0 where the SUM is NULL
// (no rows, or no non-NULL values), as COUNT's is; a confidence
// interval's half-width is CIZ·sqrt of the sum (NULL for a sum's where
// the sum is).
func ScaledResult(sum Expr, count, ci bool) Expr {
	res := sum
	if count {
		res = &Func{Name: "coalesce", Args: []Expr{res, doubleConst(0)}, Typ: types.DoubleT}
	}
	if ci {
		res = &Binary{Op: OpMul, L: doubleConst(CIZ), Typ: types.DoubleT,
			R: &Func{Name: "sqrt", Args: []Expr{res}, Typ: types.DoubleT, Null: !count}}
	}
	return res
}

// doubleConst returns a DOUBLE constant.
func doubleConst(v float64) Expr { return &Const{Val: types.FloatDatum(v), Typ: types.DoubleT} }
