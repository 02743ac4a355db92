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
	// Visits counts the nodes the driver visited, over every pass of every
	// phase: planning work that tests can bound without timing it.
	Visits int
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
		tr.Decisions = append(tr.Decisions, c.Decisions...)
		c.Decisions = nil
		if err != nil {
			return nil, tr, err
		}
	}
	return root, tr, nil
}

// runPhase runs one phase: a single pass for a Once phase, passes until
// none changes the plan otherwise.
func runPhase(c *rules.Context, ph Phase, root plan.Node, opts Options, tr *Trace) (plan.Node, error) {
	defer func(parent plan.Node) { c.Parent = parent }(c.Parent)
	budget := maxFiringsPerNode * (countNodes(root) + 1)
	done := map[plan.Node]bool{}
	for range maxPasses {
		clear(done) // reused: its buckets are the size of the plan already
		p := &pass{c: c, ph: ph, opts: opts, tr: tr, done: done, budget: &budget}
		var err error
		root, err = p.visit(nil, root)
		if err != nil {
			return nil, err
		}
		if !p.changed || ph.Once {
			return root, nil
		}
	}
	return nil, &InternalError{Rule: ph.Name, Msg: fmt.Sprintf("phase did not reach a fixed point in %d passes", maxPasses)}
}

// maxFiringsPerNode bounds the rule applications of one phase, per node of
// the plan it started with. A node sees a handful (a filter pushed through
// it, a projection merged into it); a hundred means rules that undo each
// other without the plan ever repeating, reported as an InternalError.
const maxFiringsPerNode = 100

// pass is one bottom-up walk of a phase over the plan.
type pass struct {
	c    *rules.Context
	ph   Phase
	opts Options
	tr   *Trace
	// done holds the nodes this pass has already rewritten to their
	// result: when a rule's output reuses one (a filter pushed onto an
	// input keeps the input below it), the pass does not walk it again.
	done    map[plan.Node]bool
	changed bool
	budget  *int
}

// visit rewrites the inputs of n first, then tries each rule of the phase
// at n once, in order, telling the rules n's parent. After a rule fires,
// it rewrites the new nodes the rule made below its output at once — a
// filter pushed into a join's inputs goes on down in the same pass — so a
// phase takes a few passes whatever the depth of the plan, where moving
// one level per pass would take as many passes as the plan is deep.
func (p *pass) visit(parent, n plan.Node) (plan.Node, error) {
	if p.done[n] {
		return n, nil
	}
	p.tr.Visits++
	n, err := p.visitInputs(n)
	if err != nil {
		return nil, err
	}
	for _, r := range p.ph.Rules {
		if p.opts.Disabled[r.Name()] {
			continue
		}
		p.c.Parent = parent
		out, ok, err := apply(p.c, r, n)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if p.opts.CheckInvariants {
			if err := checkRewrite(p.c.Md, r.Name(), n, out); err != nil {
				return nil, err
			}
		}
		p.tr.Steps = append(p.tr.Steps, TraceStep{
			Phase: p.ph.Name, Rule: r.Name(),
			Before: plan.FormatLine(p.c.Md, n), After: plan.FormatLine(p.c.Md, out),
		})
		p.changed = true
		if *p.budget--; *p.budget < 0 {
			return nil, &InternalError{Rule: r.Name(), Msg: fmt.Sprintf("phase %s did not reach a fixed point: more than %d rule applications per node", p.ph.Name, maxFiringsPerNode)}
		}
		n = out
		if p.ph.Once {
			continue
		}
		if n, err = p.visitInputs(n); err != nil {
			return nil, err
		}
	}
	p.done[n] = true
	return n, nil
}

// visitInputs rewrites the inputs of n, returning n with the new ones.
func (p *pass) visitInputs(n plan.Node) (plan.Node, error) {
	in := n.Inputs()
	var nin []plan.Node
	for i, child := range in {
		r, err := p.visit(n, child)
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
	return n, nil
}

func countNodes(n plan.Node) int {
	c := 1
	for _, in := range n.Inputs() {
		c += countNodes(in)
	}
	return c
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
