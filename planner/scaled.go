package planner

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
	"github.com/eddysql/eddy/sql"
)

// Scaled aggregates estimate, over the rows a query's load shedding kept,
// what COUNT and SUM would be without shedding (Horvitz–Thompson): a row
// kept with probability q stands for 1/q rows. SCALED_COUNT is Σ 1/qᵢ and
// SCALED_SUM Σ xᵢ/qᵢ over the kept rows; their _CI forms are the
// half-width of a 95% confidence interval, 1.96·sqrt(Σ (1 − qᵢ)/qᵢ²·xᵢ²)
// (xᵢ = 1 for a count). NULL arguments count as they do in COUNT and SUM.
//
// Each row's q is a hidden column of its stream's Scan (Scan.Keep), which
// the source fills in right after shedding. A scaled call is bound as the
// SUM of its per-row term over the aggregate's input, computed by the
// pre-aggregation projection like any argument, so that it is maintained
// like SUM (two-phase, in SESSION windows, through checkpoints); a
// projection above the aggregate turns the sums into the results. The sum
// of a retraction's term is only right when the row's q is the one its
// insertion had, so the input must be a stream read through filters and
// windows alone: rows are dropped only at the source, where q is known.

// keepColumn is the name EXPLAIN shows for the hidden column of the keep
// probabilities; a query cannot name it (a stream's own column of that
// name is another column).
const keepColumn = "_keep"

// scaledSigs are the arguments and results of the scaled aggregates, for
// SHOW FUNCTIONS.
var scaledSigs = map[string]string{
	"scaled_count":    "(* | x) → DOUBLE: COUNT as if load shedding had dropped no rows",
	"scaled_count_ci": "(* | x) → DOUBLE: the half-width of SCALED_COUNT's 95% confidence interval",
	"scaled_sum":      "(x number) → DOUBLE: SUM as if load shedding had dropped no rows",
	"scaled_sum_ci":   "(x number) → DOUBLE: the half-width of SCALED_SUM's 95% confidence interval",
}

// scaledAggs binds the scaled calls of one aggregation.
type scaledAggs struct {
	keep  plan.ColumnID
	items []plan.ProjItem // the results computed from the sums, above the aggregate
}

// firstScaled returns the first scaled call of calls, or nil.
func firstScaled(calls []*ast.AggregateFuncExpr) *ast.AggregateFuncExpr {
	for _, c := range calls {
		if sql.ScaledAggregates[strings.ToLower(c.F)] {
			return c
		}
	}
	return nil
}

// scaledInput returns the aggregate's input in with its stream's keep
// column added, or a not-supported error at call when something between
// the stream and the aggregate would drop or retract rows with another
// probability than the source's.
func (b *Builder) scaledInput(in plan.Node, call *ast.AggregateFuncExpr) (plan.Node, *scaledAggs, error) {
	out, keep, over := b.withKeep(in)
	if over != "" {
		return nil, nil, b.unsupported(call, strings.ToUpper(call.F)+" over "+over)
	}
	return out, &scaledAggs{keep: keep}, nil
}

// withKeep returns n with the keep column of the stream it reads added to
// its output, and the column; or what n reads that the scaled aggregates
// cannot scale.
func (b *Builder) withKeep(n plan.Node) (plan.Node, plan.ColumnID, string) {
	switch x := n.(type) {
	case *plan.Scan:
		switch {
		case x.Object.Kind == catalog.View:
			return nil, 0, "a view (only a stream's rows carry their keep probability)"
		case x.Object.Kind != catalog.Stream:
			return nil, 0, "a table (its rows are updated)"
		case x.Object.Dedup != nil:
			return nil, 0, "a stream that drops duplicate rows (dedup_key)"
		}
		s := *x
		s.Keep = b.md.AddColumn(keepColumn, x.Alias, types.DoubleT, false)
		return plan.ResetProps(&s), s.Keep, ""
	case *plan.Filter, *plan.Window:
		in, keep, over := b.withKeep(n.Inputs()[0])
		if over != "" {
			return nil, 0, over
		}
		return n.WithInputs(in), keep, ""
	case *plan.Join:
		return nil, 0, "a join"
	case *plan.Union:
		return nil, 0, "a UNION"
	case *plan.SetOp:
		return nil, 0, "an " + x.Kind.String()
	case *plan.TemporalFilter:
		return nil, 0, "a filter on NOW() (it retracts rows)"
	case *plan.Values:
		return nil, 0, "no stream"
	}
	return nil, 0, "a subquery"
}

// bind binds the scaled call (whose name is lower case) over the
// argument bound by c: it returns the SUMs the aggregate computes and the
// column of the call's result.
func (s *scaledAggs) bind(b *Builder, call *ast.AggregateFuncExpr, c *exprCtx, addPre func(plan.Expr, string) plan.ColumnID) ([]plan.AggCall, plan.ColumnID, error) {
	name := strings.ToUpper(call.F)
	if len(call.Args) != 1 {
		return nil, 0, b.errAt(call, "%s takes one argument", name)
	}
	f := plan.AggSum
	if strings.HasPrefix(call.F, "scaled_count") {
		f = plan.AggCount
	}
	text := name + "(*)"
	var x plan.Expr // the argument; nil counts rows
	if arg := call.Args[0]; !countsRows(f, arg) {
		e, err := b.bindExpr(arg, &exprCtx{sc: c.sc, clause: "an aggregate's argument"})
		if err != nil {
			return nil, 0, err
		}
		if e, _, err = b.typeAggArg(f, e, arg, name); err != nil {
			return nil, 0, err
		}
		text = name + "(" + e.String() + ")"
		x = e
	}
	k := &plan.ColRef{ID: s.keep, Name: keepColumn, Typ: types.DoubleT}
	count, ci := f == plan.AggCount, strings.HasSuffix(call.F, "_ci")
	term := plan.ScaledTerm(x, k, !count, ci)
	sum := plan.AggCall{Func: plan.AggSum, Arg: addPre(term, term.String()), ArgTyp: types.DoubleT, Typ: types.DoubleT}
	if !count && !ci {
		// SCALED_SUM is the SUM of its terms.
		sum.Text = text
		sum.Out = b.md.AddColumn(text, "", types.DoubleT, true)
		return []plan.AggCall{sum}, sum.Out, nil
	}
	sum.Text = "SUM(" + term.String() + ")"
	sum.Out = b.md.AddColumn(sum.Text, "", types.DoubleT, true)
	res := plan.ScaledResult(&plan.ColRef{ID: sum.Out, Name: sum.Text, Typ: types.DoubleT, Null: true}, count, ci)
	out := b.md.AddColumn(text, "", types.DoubleT, !count)
	s.items = append(s.items, plan.ProjItem{ID: out, Expr: res})
	return []plan.AggCall{sum}, out, nil
}

// project returns the aggregate node agg with the scaled results computed
// above it, next to its own outputs.
func (s *scaledAggs) project(b *Builder, agg plan.Node) plan.Node {
	if s == nil || len(s.items) == 0 {
		return agg
	}
	var items []plan.ProjItem
	for _, id := range agg.Output() {
		items = append(items, plan.ProjItem{ID: id, Expr: b.md.Ref(id)})
	}
	return &plan.Project{Input: agg, Items: append(items, s.items...)}
}
