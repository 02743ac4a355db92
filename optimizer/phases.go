package optimizer

import "github.com/eddysql/eddy/optimizer/rules"

// Phase is a batch of rules run together, bottom-up, to a fixed point
// (or in a single pass when Once).
type Phase struct {
	Name  string
	Rules []rules.Rule
	// Once runs a single pass that does not walk a rule's output again:
	// for rules that search (ReorderJoins), whose output is final, and
	// which a second look would only search again.
	Once bool
}

// phases is the only place rules are registered; their order is the order
// they are tried at each node.
var phases = []Phase{
	{
		// decorrelate turns every Apply (a subquery) into joins and
		// aggregates; it runs first, as no other rule reads an Apply. The
		// cheap rewrites come first at each node: a semi or anti apply's
		// projection goes into its condition, a filter's correlated
		// conjuncts become the condition, and an apply left without outer
		// references becomes a join; UnnestApply takes whatever is left.
		Name: "decorrelate",
		Rules: []rules.Rule{
			rules.InlineApplyProject{},
			rules.PullApplyFilter{},
			rules.ApplyToJoin{},
			rules.UnnestApply{},
		},
	},
	{
		// normalize simplifies expressions and moves filters towards the
		// sources. Folding comes first so that pushdown sees simplified
		// predicates (and RemoveTrueFilter sees the TRUEs folding makes);
		// MergeFilters runs before the pushdown rules so a stack of filters
		// moves as one conjunction.
		Name: "normalize",
		Rules: []rules.Rule{
			rules.FoldConstants{},
			// Required, and first after folding: a filter that bounds a row
			// number (or folded to FALSE) becomes a Top-N before any other
			// rule can drop it — EliminateRedundant removes every conjunct
			// above an input that keeps no row, which would leave a
			// RowNumber no plan can run. It finds the filter through
			// projections itself, needing no pushdown first.
			rules.RowNumberToTopN{},
			// After folding, which turns x = NULL into NULL in filters and
			// projections; InferJoinPredicates compares conjuncts in the
			// form these two leave them in.
			rules.OrEqualitiesToIn{},
			// Before the pushdown rules: the conjuncts it takes out of a
			// disjunction (a join's key, in TPC-H q19) move like any other.
			rules.FactorOr{},
			rules.RemoveTrueFilter{},
			rules.MergeFilters{},
			// After MergeFilters, whose conjunction may repeat a conjunct,
			// and before the pushdown rules, so a conjunct already applied
			// below is dropped rather than pushed down a second time.
			rules.EliminateRedundant{},
			rules.PushFilterThroughProject{},
			rules.PushFilterBelowAggregate{},
			rules.PushFilterIntoSetOp{},
			rules.PushFilterIntoJoin{},
			rules.PushJoinCondition{},
			// After PushFilterIntoJoin and PushJoinCondition, so the
			// restrictions of a join's keys already sit on its inputs
			// (where it reads them) and its condition keeps only what
			// cannot move; the filters it adds on the inputs move further
			// down in the next pass.
			rules.InferJoinPredicates{},
			rules.MergeProjects{},
			rules.EliminateProject{},
		},
	},
	{
		// join-order chooses the order of each tree of inner joins. It
		// runs after normalize, once filters and join conditions have
		// moved into place (the sizes it compares are those of the
		// filtered inputs, and every condition is in the tree's joins),
		// and before fuse, which would hide filters in Calcs. One pass:
		// the rule searches each tree once, at its root.
		Name:  "join-order",
		Once:  true,
		Rules: []rules.Rule{rules.ReorderJoins{}},
	},
	{
		// fuse turns each projection over a filter into a Calc. It runs
		// after normalize, once filters have reached their final place, so
		// fusion does not hide a filter that could still move below an
		// aggregate.
		Name: "fuse",
		Rules: []rules.Rule{
			rules.MergeFilterProject{},
		},
	},
	{
		// calc turns the remaining filters and projections into Calcs and
		// merges adjacent Calcs. It is a phase of its own, after fuse,
		// because traversal is bottom-up: in one phase a filter would
		// become a Calc before the projection above it could fuse with it.
		Name: "calc",
		Rules: []rules.Rule{
			rules.ConvertToCalc{},
			rules.MergeCalcs{},
			rules.EliminateProject{},
			// After MergeCalcs, which composes the predicates it orders.
			rules.OrderConjuncts{},
		},
	},
	{
		// prune narrows every operator's input to the columns it uses,
		// down to the sources. It runs last, when the consumers are the
		// final Calcs and Aggregates, so each Calc asks only for what its
		// merged predicate and projections read.
		Name: "prune",
		Rules: []rules.Rule{
			rules.PruneColumns{},
			rules.EliminateProject{},
		},
	},
}

// required are the rules a plan cannot run without: a continuous ROW_NUMBER
// filter runs only as a Top-N, and an Apply only as joins.
var required = map[string]bool{
	"RowNumberToTopN": true,
	// Every Apply must become a join; the others only make that cheaper.
	"ApplyToJoin": true, "UnnestApply": true,
}

// OptionalRules names every rule that may be disabled without changing
// what a plan can run: disabling them all must never change a query's
// answer (the property test checks it).
func OptionalRules() map[string]bool {
	out := map[string]bool{}
	for _, name := range RuleNames() {
		if !required[name] {
			out[name] = true
		}
	}
	return out
}

// RuleNames lists every registered rule once, in phase order.
func RuleNames() []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range phases {
		for _, r := range p.Rules {
			if !seen[r.Name()] {
				seen[r.Name()] = true
				out = append(out, r.Name())
			}
		}
	}
	return out
}
