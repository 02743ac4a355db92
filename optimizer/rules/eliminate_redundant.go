package rules

import (
	"slices"

	"github.com/eddysql/eddy/planner/plan"
)

// EliminateRedundant removes operators and conjuncts that cannot change a
// result, in three cases.
//
// A DISTINCT over rows that are already distinct goes away:
//
//	Aggregate group=[channel, n] aggs=[] (Aggregate group=[channel] aggs=[COUNT(*) AS n] (X))
//	  ⇒  Aggregate group=[channel] aggs=[COUNT(*) AS n] (X)
//
// when the aggregate has no aggregates and its grouping columns cover a
// unique key of its input (Props.Keys). It becomes a projection of the
// grouping columns (none when they are the input's columns in order).
//
// A filter conjunct that a filter below already applies goes away, and
// the filter with it when none is left:
//
//	Filter price > 10 (TopN order=[price DESC] limit=3 (Filter price > 10 (X)))
//	  ⇒  TopN order=[price DESC] limit=3 (Filter price > 10 (X))
//
// "Below" looks through the nodes that keep or drop rows without changing
// the values of the columns tested: filters, projections (substituting
// their expressions), joins on a side they do not pad with NULLs, grouping
// columns of aggregates, Top-N, windows and unions; a filter below that
// folded to FALSE or NULL keeps no row, so it implies every conjunct
// (vacuously). A conjunct that appears
// twice in one filter — what MergeFilters makes of a subquery's WHERE and
// an outer WHERE that repeat each other — is kept once. (MergeFilters
// itself only concatenates adjacent filters; filters separated by a node
// no rule moves them through, such as a Top-N, are left to this rule.)
//
// A Sort whose order is discarded goes away:
//
//	Aggregate group=[channel] (Project (Sort price (X)))  ⇒  Aggregate group=[channel] (Project (X))
//	Sort auction (Sort price (X))                         ⇒  Sort auction (X)
//
// when it sits, through filters and projections only, under an aggregate
// or under another Sort. A Sort under a Limit (ORDER BY ... LIMIT in a
// subquery) decides which rows are kept and stays. In eddy a Sort exists
// only in pull queries (a continuous ORDER BY is an error, and ORDER BY
// ... LIMIT a Top-N), so this case never applies to a continuous query.
// Joins and unions are left alone, although SQL promises no order
// through them either: a Limit above one may take its first rows in the
// order the Sort gave, and removing the Sort would change which rows it
// keeps — a difference users notice even where SQL allows it. An
// aggregate that closes windows is left alone too (see below).
//
// Safety: for DISTINCT, a unique key means the input's current result
// holds each row at most once, so grouping every row into its own group
// and emitting it is the identity on that result; under retractions (an
// input that is not AppendOnly) each change of a row passes through as the
// aggregate would have emitted it, and the result's integral is the same.
// The output then takes the input's properties, which can only be more
// precise (an aggregate's output is never marked append-only). An
// aggregate that closes windows (EMIT ON WINDOW CLOSE, or one grouped by
// window bounds) is kept, and keeps a Sort below it: it decides when rows
// are emitted, not only which, and may count on an input that only
// appends.
// Filters: a row reaching the upper filter carries the values a filter
// below already found TRUE (or a projection of them, which evaluates the
// same), so the conjunct is TRUE there too; retractions are filtered
// alike, as their rows are the same. Nothing below an outer join's padded
// side counts, since padded rows carry NULLs instead, and volatile
// conjuncts never count, as they may change value between evaluations.
// Sorts: an aggregate's groups and values do not depend on its input's
// order (SUM over DOUBLE may round differently in the last bits, as it
// already does between parallel instances), and a Sort collects its whole
// input before ordering it, so the order it receives is lost either way;
// rows equal in the outer keys come out in no guaranteed order before and
// after. The Sort also turned a changelog into inserts; an aggregate or a
// Sort consumes retractions correctly, so the final result is the same.
// Profitability: always — an aggregate removed is its whole state (a
// DISTINCT keeps every distinct row it has seen), a conjunct removed is
// work per row, and a Sort removed is a full materialization and sort of
// its input.
type EliminateRedundant struct{}

// Name implements Rule.
func (EliminateRedundant) Name() string { return "EliminateRedundant" }

// Apply implements Rule.
func (EliminateRedundant) Apply(c *Context, n plan.Node) (plan.Node, bool, error) {
	switch n := n.(type) {
	case *plan.Filter:
		return removeImpliedConjuncts(c, n)
	case *plan.Aggregate:
		if out, ok := removeDistinct(c, n); ok {
			return out, true, nil
		}
		if n.WindowClose != 0 || n.EmitOnClose {
			break
		}
		if in, ok := removeSortBelow(n.Input); ok {
			return n.WithInputs(in), true, nil
		}
	case *plan.Sort:
		if in, ok := removeSortBelow(n.Input); ok {
			return n.WithInputs(in), true, nil
		}
	}
	return n, false, nil
}

// removeImpliedConjuncts drops the conjuncts of f that repeat an earlier
// one or that f's input already guarantees.
func removeImpliedConjuncts(c *Context, f *plan.Filter) (plan.Node, bool, error) {
	conj := plan.Conjuncts(f.Pred)
	var keep []plan.Expr
	var kept exprSet
	for _, cj := range conj {
		if !isVolatile(cj) && (kept.has(cj) || implied(c, f.Input, cj)) {
			continue
		}
		keep = append(keep, cj)
		kept.add(cj)
	}
	switch {
	case len(keep) == len(conj):
		return f, false, nil
	case len(keep) == 0:
		return f.Input, true, nil
	}
	return &plan.Filter{Input: f.Input, Pred: plan.MakeAnd(keep)}, true, nil
}

// removeDistinct replaces an aggregate without aggregates whose grouping
// columns contain a key of its input by a projection of those columns.
func removeDistinct(c *Context, a *plan.Aggregate) (plan.Node, bool) {
	if len(a.Aggs) > 0 || a.WindowClose != 0 || a.EmitOnClose {
		return nil, false
	}
	group := a.Group.ToSet()
	unique := false
	for _, k := range uniqueKeys(a.Input) {
		if k.SubsetOf(group) {
			unique = true
			break
		}
	}
	if !unique {
		return nil, false
	}
	items := c.Md.IdentityItems(a.Group)
	if isIdentity(items, a.Input.Output()) {
		return a.Input, true
	}
	return &plan.Project{Input: a.Input, Items: items}, true
}

// uniqueKeys returns n's keys (Props.Keys), adding those a projection
// forwards under new IDs — as the select list of a join does, renaming
// b.auction to auction — which Props keep only for columns forwarded
// under their own IDs.
func uniqueKeys(n plan.Node) []plan.ColSet {
	var items []plan.ProjItem
	var in plan.Node
	switch x := n.(type) {
	case *plan.Project:
		items, in = x.Items, x.Input
	case *plan.Calc:
		items, in = x.Items, x.Input
	case *plan.Filter:
		return append(uniqueKeys(x.Input), n.Props().Keys...)
	}
	keys := slices.Clone(n.Props().Keys) // appended to below: never share Props' array
	if in == nil {
		return keys
	}
	renamed := map[plan.ColumnID]plan.ColumnID{}
	for _, it := range items {
		if r, ok := it.Expr.(*plan.ColRef); ok {
			if _, seen := renamed[r.ID]; !seen {
				renamed[r.ID] = it.ID
			}
		}
	}
	for _, k := range uniqueKeys(in) {
		var out plan.ColSet
		all := true
		for _, col := range k.Ordered() {
			id, ok := renamed[col]
			if !ok {
				all = false
				break
			}
			out.Add(id)
		}
		if all {
			keys = append(keys, out)
		}
	}
	return keys
}

// removeSortBelow removes the first Sort reached from n through filters
// and projections, and rebuilds the path above it.
func removeSortBelow(n plan.Node) (plan.Node, bool) {
	switch x := n.(type) {
	case *plan.Sort:
		return x.Input, true
	case *plan.Filter, *plan.Project, *plan.Calc:
		in, ok := removeSortBelow(x.Inputs()[0])
		if !ok {
			return n, false
		}
		return x.WithInputs(in), true
	}
	return n, false
}
