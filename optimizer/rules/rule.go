package rules

import (
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/optimizer/cost"
	"github.com/eddysql/eddy/planner/plan"
)

// Rule rewrites one node.
type Rule interface {
	// Name is the rule's CamelCase name, as used by traces and by
	// disable=Name in tests.
	Name() string
	// Apply returns the rewritten node and whether it changed. A rule that
	// does not match returns n, false.
	Apply(c *Context, n plan.Node) (plan.Node, bool, error)
}

// Context is what rules may use: the statement's metadata and a constant
// evaluator. Rules must not execute queries.
type Context struct {
	Md *plan.Metadata
	// Fold evaluates an expression without column references. It is
	// supplied by the engine (the same kernels that run queries), so
	// folding can never disagree with execution. Nil disables folding.
	Fold func(e plan.Expr) (types.Datum, error)
	// Cost estimates selectivities and costs for the cost-based rules
	// (nil: the defaults).
	Cost *cost.Estimator
	// Parent is the node whose input the driver is rewriting, nil at the
	// plan's root. The driver sets it before it tries the rules at a
	// node; a rule that matches only the root of a maximal tree of like
	// nodes (ReorderJoins) reads it. Rules run bottom-up, so Parent's own
	// rewrites in the current pass have not happened yet.
	Parent plan.Node
	// Decisions collects the cost-based choices rules make, with their
	// alternatives, for EXPLAIN VERBOSE; the driver moves them into its
	// trace.
	Decisions []cost.Decision

	// mayImply memoizes mayImply per node (plans are immutable).
	mayImplyMemo map[plan.Node]bool
	// impliedSteps counts the nodes impliedOver looked at, for the test
	// that bounds it.
	impliedSteps int
}

// match runs rewrite on n when n is a T and leaves any other node as it
// is: the type test a rule starts with, so that the rule's own code sees
// only the kind of node it rewrites.
func match[T plan.Node](c *Context, n plan.Node, rewrite func(c *Context, x T) (plan.Node, bool, error)) (plan.Node, bool, error) {
	if x, ok := n.(T); ok {
		return rewrite(c, x)
	}
	return n, false, nil
}

// matchOver runs rewrite on n when n is an O whose input is an I — the
// pattern of the rules that merge two stacked operators or move one below
// the other — and leaves any other node as it is.
func matchOver[O, I plan.Node](c *Context, n plan.Node, rewrite func(c *Context, outer O, inner I) (plan.Node, bool, error)) (plan.Node, bool, error) {
	if outer, ok := n.(O); ok {
		if inner, ok := outer.Inputs()[0].(I); ok {
			return rewrite(c, outer, inner)
		}
	}
	return n, false, nil
}
