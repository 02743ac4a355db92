package optimizer

import (
	"fmt"

	"github.com/eddysql/eddy/optimizer/cost"
	"github.com/eddysql/eddy/optimizer/rules"
	"github.com/eddysql/eddy/planner/plan"
)

// maxPasses bounds the passes of one phase. Every rule strictly simplifies
// the plan, so a phase converges in a handful of passes; hitting the bound
// means two rules undo each other, a bug reported as an InternalError.
const maxPasses = 100

// Options configure one optimization.
type Options struct {
	// Disabled names rules not to apply (tests, EXPLAIN comparisons).
	Disabled map[string]bool
	// CheckInvariants verifies the plan after every rule application (tests).
	CheckInvariants bool
}

// InternalError reports a broken optimizer invariant, naming the rule.
type InternalError struct {
	Rule string
	Msg  string
}

func (e *InternalError) Error() string {
	return fmt.Sprintf("internal optimizer error in rule %s: %s", e.Rule, e.Msg)
}

// TraceStep records one rule application.
type TraceStep struct {
	Phase, Rule   string
	Before, After string // one-line forms of the rewritten node
}

// Trace is the list of rule applications, in order, and the cost-based
// decisions taken.
type Trace struct {
	Steps     []TraceStep
	Decisions []cost.Decision
}

// Fired reports whether the named rule fired at least once.
func (t *Trace) Fired(rule string) bool {
	for _, s := range t.Steps {
		if s.Rule == rule {
			return true
		}
	}
	return false
}

// Normalize runs the rule phases over root and returns the rewritten plan
// with the trace of the rules that fired.
func Normalize(c *rules.Context, root plan.Node, opts Options) (plan.Node, *Trace, error) {
	tr := &Trace{}
	for _, ph := range phases {
		var err error
		root, err = runPhase(c, ph, root, opts, tr)
		if err != nil {
			return nil, tr, err
		}
		if ph.Name == "normalize" && !opts.Disabled[ReorderJoinsName] {
			// Join order is chosen once filters and conditions have moved
			// into place, before fusion hides them in Calcs.
			before := root
			out, changed, ds := reorderJoins(c.Cost, c.Md, root)
			tr.Decisions = append(tr.Decisions, ds...)
			if changed {
				if opts.CheckInvariants {
					if err := checkRewrite(c.Md, ReorderJoinsName, before, out); err != nil {
						return nil, tr, err
					}
				}
				tr.Steps = append(tr.Steps, TraceStep{Phase: "join-order", Rule: ReorderJoinsName,
					Before: plan.FormatLine(c.Md, before), After: plan.FormatLine(c.Md, out)})
				root = out
			}
		}
	}
	return root, tr, nil
}

func runPhase(c *rules.Context, ph Phase, root plan.Node, opts Options, tr *Trace) (plan.Node, error) {
	for pass := 0; pass < maxPasses; pass++ {
		changed := false
		var err error
		root, err = applyBottomUp(c, ph, root, opts, tr, &changed)
		if err != nil {
			return nil, err
		}
		if !changed {
			return root, nil
		}
	}
	return nil, &InternalError{Rule: ph.Name, Msg: fmt.Sprintf("phase did not reach a fixed point in %d passes", maxPasses)}
}

// applyBottomUp rewrites the children of n first, then tries each rule of the
// phase at n once, in order.
func applyBottomUp(c *rules.Context, ph Phase, n plan.Node, opts Options, tr *Trace, changed *bool) (plan.Node, error) {
	in := n.Inputs()
	if len(in) > 0 {
		var nin []plan.Node
		for i, child := range in {
			r, err := applyBottomUp(c, ph, child, opts, tr, changed)
			if err != nil {
				return nil, err
			}
			if r != child && nin == nil {
				nin = append([]plan.Node(nil), in...)
			}
			if nin != nil {
				nin[i] = r
			}
		}
		if nin != nil {
			n = n.WithInputs(nin...)
		}
	}
	for _, r := range ph.Rules {
		if opts.Disabled[r.Name()] {
			continue
		}
		out, ok, err := apply(c, r, n)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if opts.CheckInvariants {
			if err := checkRewrite(c.Md, r.Name(), n, out); err != nil {
				return nil, err
			}
		}
		tr.Steps = append(tr.Steps, TraceStep{
			Phase: ph.Name, Rule: r.Name(),
			Before: plan.FormatLine(c.Md, n), After: plan.FormatLine(c.Md, out),
		})
		*changed = true
		n = out
	}
	return n, nil
}

// apply runs one rule, turning a panic (a broken invariant inside the rule)
// into an InternalError that names it.
func apply(c *rules.Context, r rules.Rule, n plan.Node) (out plan.Node, ok bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &InternalError{Rule: r.Name(), Msg: fmt.Sprint(p)}
		}
	}()
	return r.Apply(c, n)
}
