package rules

import "github.com/eddysql/eddy/planner/plan"

// InlineApplyProject removes the projection on the right side of a semi or
// anti apply, writing its expressions into the apply's condition:
//
//	Apply Semi on=b.x = v (L) (Project v := r.a + 1 (R))  ⇒  Apply Semi on=b.x = r.a + 1 (L) (R)
//
// so that the filter below the projection (a correlated WHERE) becomes
// the right side, where PullApplyFilter finds it.
// Safety: a semi or anti apply outputs only its left side; the right side's
// rows matter only through the condition, which reads the same values
// computed from the projection's input. A volatile item stays: the
// condition would evaluate it once per pair instead of once per row.
// Profitability: the projection's work moves into the join's condition,
// where it runs once per pair instead of once per right row; decorrelation
// is what the rewrite buys.
type InlineApplyProject struct{}

// Name implements Rule.
func (InlineApplyProject) Name() string { return "InlineApplyProject" }

// Apply implements Rule.
func (InlineApplyProject) Apply(c *Context, n plan.Node) (plan.Node, bool, error) {
	return match(c, n, func(c *Context, a *plan.Apply) (plan.Node, bool, error) {
		p, ok := a.Right.(*plan.Project)
		if !ok || (a.Kind != plan.SemiJoin && a.Kind != plan.AntiJoin) || correlation(a).Empty() {
			return a, false, nil
		}
		items := map[plan.ColumnID]plan.Expr{}
		for _, it := range p.Items {
			if plan.IsVolatile(it.Expr) {
				return a, false, nil
			}
			items[it.ID] = it.Expr
		}
		on := a.On
		if on != nil {
			on = plan.MapColRefs(on, func(r *plan.ColRef) plan.Expr {
				if e, ok := items[r.ID]; ok {
					return e
				}
				return r
			})
		}
		return &plan.Apply{Kind: a.Kind, Left: a.Left, Right: p.Input, On: on, Pos: a.Pos}, true, nil
	})
}
