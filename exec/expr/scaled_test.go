package expr

import (
	"math"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// TestScaledTerms evaluates the per-row terms of the scaled aggregates
// (plan.ScaledTerm), whose SUMs SCALED_COUNT, SCALED_SUM and their _CI
// forms are, over rows kept with known probabilities: 1/q, x/q and
// (1 − q)/q²·x² (x = 1 for a count), a count's term NULL where its
// argument is (the first row, kept for sure, weighs 1, x and 0).
func TestScaledTerms(t *testing.T) {
	x, k := col(0, bigint), col(1, double)
	qs := []float64{1, 0.5, 0.25, 0.1}
	xs := []types.Datum{i(10), i(10), null, i(-3)}
	var rows [][]types.Datum
	for r, q := range qs {
		rows = append(rows, []types.Datum{xs[r], f(q)})
	}
	term := func(fn func(x, q float64) float64, skipNull bool) []types.Datum {
		var out []types.Datum
		for r, q := range qs {
			if xs[r].Null && skipNull {
				out = append(out, null)
				continue
			}
			out = append(out, f(fn(float64(xs[r].I), q)))
		}
		return out
	}
	runCases(t, []types.T{bigint, double}, []tcase{
		{name: "SCALED_COUNT(*)", e: plan.ScaledTerm(nil, k, false, false), rows: rows,
			want: term(func(_, q float64) float64 { return 1 / q }, false)},
		{name: "SCALED_COUNT(x)", e: plan.ScaledTerm(x, k, false, false), rows: rows,
			want: term(func(_, q float64) float64 { return 1 / q }, true)},
		{name: "SCALED_SUM(x)", e: plan.ScaledTerm(x, k, true, false), rows: rows,
			want: term(func(x, q float64) float64 { return x / q }, true)},
		{name: "SCALED_COUNT_CI(*)", e: plan.ScaledTerm(nil, k, false, true), rows: rows,
			want: term(func(_, q float64) float64 { return (1 - q) / (q * q) }, false)},
		{name: "SCALED_COUNT_CI(x)", e: plan.ScaledTerm(x, k, false, true), rows: rows,
			want: term(func(_, q float64) float64 { return (1 - q) / (q * q) }, true)},
		{name: "SCALED_SUM_CI(x)", e: plan.ScaledTerm(x, k, true, true), rows: rows,
			want: term(func(x, q float64) float64 { return (1 - q) / (q * q) * (x * x) }, true)},
	})
}

// TestScaledResults evaluates the results of the scaled aggregates from
// the SUMs of their terms (plan.ScaledResult): a count is 0 where the SUM
// is NULL, a sum NULL; an interval is 1.96·sqrt of its SUM.
func TestScaledResults(t *testing.T) {
	s := col(0, double)
	rows := [][]types.Datum{{f(7.5)}, {f(0)}, {null}}
	half := 1.96 * math.Sqrt(7.5)
	runCases(t, []types.T{double}, []tcase{
		{name: "SCALED_COUNT", e: plan.ScaledResult(s, true, false), rows: rows, want: []types.Datum{f(7.5), f(0), f(0)}},
		{name: "SCALED_SUM", e: plan.ScaledResult(s, false, false), rows: rows, want: []types.Datum{f(7.5), f(0), null}},
		{name: "SCALED_COUNT_CI", e: plan.ScaledResult(s, true, true), rows: rows, want: []types.Datum{f(half), f(0), f(0)}},
		{name: "SCALED_SUM_CI", e: plan.ScaledResult(s, false, true), rows: rows, want: []types.Datum{f(half), f(0), null}},
	})
}
