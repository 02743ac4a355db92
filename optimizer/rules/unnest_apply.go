package rules

import (
	"fmt"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// UnnestApply decorrelates any apply the simpler rules leave, by the
// general unnesting of Neumann and Kemper ("Unnesting Arbitrary Queries",
// BTW 2015). The subquery is evaluated once per distinct value of the
// outer columns it reads — the domain D, a DISTINCT over the left side —
// rather than once per left row: the dependent join of D with the right
// side is pushed down through its operators (a filter and a projection
// carry D's columns along, an aggregate and a Top-N also group by them, a
// join takes D into the side that reads it) until it reaches operators
// that read no outer column, where it becomes a cross join with D. The
// apply is then a join of the left side with that result on the outer
// columns equal to D's:
//
//	Apply Left single (B) (Project (Aggregate COUNT(*) (Filter b2.auction = b.auction AND b2.price > b.price (B2))))
//	  ⇒  Join Left on=b.auction = d1 AND b.price = d2 (B)
//	       (Project … (Join Left (D) (Aggregate group=d1,d2 (Filter d1 = b2.auction AND b2.price > d2 (Join Inner (D) (B2))))))
//
// Two refinements keep it cheap. When a filter over operators that read no
// outer column equates every outer column with an expression of theirs
// (b2.auction = b.auction), D is not needed there: the expression's value
// becomes D's column (the rows of values no left row has find no partner
// in the final join). And an aggregate without GROUP BY, which has a row
// even over no input, joins its groups to D (a left join) so that every
// value of D gets its row, with COUNT 0 — the "COUNT bug".
//
// Safety: Neumann and Kemper's equivalences; each step keeps, for each
// value of D, the rows the subquery returns for it, and the final join
// pairs each left row with the rows of its value (NULL matching NULL,
// sameValue). A single-row apply checks the rows per value of D
// (singleRowCheck) unless an aggregate made them one. Operators through
// which D cannot be pushed (a union, a window, a set operation, a join
// whose both sides or whose padded side read the outer columns) are
// refused as not supported yet.
// Profitability: required — no operator runs an Apply; the cost is one
// DISTINCT over the left side where no equality removes D.
type UnnestApply struct{}

// Name implements Rule.
func (UnnestApply) Name() string { return "UnnestApply" }

// Apply implements Rule.
func (UnnestApply) Apply(c *Context, n plan.Node) (plan.Node, bool, error) {
	return match(c, n, unnestApply)
}

func unnestApply(c *Context, a *plan.Apply) (plan.Node, bool, error) {
	outer := correlation(a)
	if outer.Empty() {
		return a, false, nil
	}
	u := &unnester{md: c.Md, left: a.Left, outer: plan.ColList(outer.Ordered()), outerSet: outer}
	out, ok, err := u.scalarAggregate(a)
	if ok || err != nil {
		return out, ok, atSubquery(err, a)
	}
	right, err := u.push(a.Right)
	if err != nil {
		return nil, false, atSubquery(err, a)
	}
	node := right.node
	if a.Single && !right.unique {
		node = singleRowCheck(c.Md, node, right.d, a.Pos)
	}
	j := &plan.Join{Kind: a.Kind, Left: a.Left, Right: node, On: u.joinBack(a.On, right.d)}
	if a.Kind == plan.SemiJoin || a.Kind == plan.AntiJoin {
		return j, true, nil
	}
	return &plan.Project{Input: j, Items: c.Md.IdentityItems(a.Output())}, true, nil
}

// unnester pushes the domain of an apply's outer columns into its right
// side.
type unnester struct {
	md       *plan.Metadata
	left     plan.Node    // the apply's left side, whose DISTINCT outer columns are D
	outer    plan.ColList // the outer columns, in order
	outerSet plan.ColSet
}

// pushed is a subtree joined with D: node outputs the subtree's columns and
// d, D's columns (one per outer column); unique says it has at most one
// row per value of d.
type pushed struct {
	node   plan.Node
	d      plan.ColList
	unique bool
}

// domain returns a new copy of D: the distinct values of the outer columns
// of the left side, under new columns.
func (u *unnester) domain() (plan.Node, plan.ColList) {
	d := make(plan.ColList, len(u.outer))
	items := make([]plan.ProjItem, len(u.outer))
	for i, f := range u.outer {
		m := u.md.Column(f)
		d[i] = u.md.AddColumn(m.Name, "", m.Type, m.Nullable)
		items[i] = plan.ProjItem{ID: d[i], Expr: u.md.Ref(f)}
	}
	return &plan.Aggregate{Input: &plan.Project{Input: u.left, Items: items}, Group: d}, d
}

// joinBack is the condition joining the apply's left rows to the pushed
// right side: the apply's own condition on, and each outer column holding
// the value of its column of d.
func (u *unnester) joinBack(on plan.Expr, d plan.ColList) plan.Expr {
	var conds []plan.Expr
	if on != nil {
		conds = append(conds, on)
	}
	for i, f := range u.outer {
		conds = append(conds, sameValue(u.md, f, d[i]))
	}
	return plan.MakeAnd(conds)
}

// reads reports whether n reads an outer column.
func (u *unnester) reads(n plan.Node) bool { return plan.OuterCols(n).Intersects(u.outerSet) }

// subst rewrites e to read d in place of the outer columns.
func (u *unnester) subst(e plan.Expr, d plan.ColList) plan.Expr {
	return substCols(u.md, e, u.outer, d)
}

func (u *unnester) push(n plan.Node) (pushed, error) {
	if !u.reads(n) {
		dn, d := u.domain()
		return pushed{node: &plan.Join{Kind: plan.InnerJoin, Left: dn, Right: n}, d: d}, nil
	}
	switch x := n.(type) {
	case *plan.Filter:
		if p, ok := u.equated(x); ok {
			return p, nil
		}
		in, err := u.push(x.Input)
		if err != nil {
			return pushed{}, err
		}
		in.node = &plan.Filter{Input: in.node, Pred: u.subst(x.Pred, in.d)}
		return in, nil
	case *plan.Project:
		in, err := u.push(x.Input)
		if err != nil {
			return pushed{}, err
		}
		items := make([]plan.ProjItem, 0, len(x.Items)+len(in.d))
		for _, it := range x.Items {
			items = append(items, plan.ProjItem{ID: it.ID, Expr: u.subst(it.Expr, in.d)})
		}
		items = append(items, u.md.IdentityItems(in.d)...)
		in.node = &plan.Project{Input: in.node, Items: items}
		return in, nil
	case *plan.Aggregate:
		return u.pushAggregate(x)
	case *plan.TopN:
		in, err := u.push(x.Input)
		if err != nil {
			return pushed{}, err
		}
		t := *x
		t.Input, t.Partition = in.node, append(append(plan.ColList(nil), x.Partition...), in.d...)
		plan.ResetProps(&t)
		// One row per value of D when the Top-N keeps one per partition
		// and D is the whole partition.
		in.node, in.unique = &t, len(x.Partition) == 0 && x.Limit <= 1 && x.Out == 0
		return in, nil
	case *plan.Join:
		return u.pushJoin(x)
	}
	op, _ := n.Describe(u.md)
	return pushed{}, fmt.Errorf("%w: a correlated subquery that reads the outer query through %s", plan.ErrNotSupported, op)
}

// equated decorrelates a filter over operators that read no outer column
// when its conjuncts equate every outer column with an expression of
// theirs: that expression, where not NULL, is D's column, and the
// equalities' other uses read it (they hold on every row that passes).
func (u *unnester) equated(f *plan.Filter) (pushed, bool) {
	if u.reads(f.Input) {
		return pushed{}, false
	}
	conjuncts := plan.Conjuncts(f.Pred)
	values := make([]plan.Expr, len(u.outer))
	used := make([]bool, len(conjuncts))
	inputCols := plan.OutputSet(f.Input)
	for i, oc := range u.outer {
		for k, e := range conjuncts {
			b, ok := e.(*plan.Binary)
			if used[k] || !ok || b.Op != plan.OpEq {
				continue
			}
			var v plan.Expr
			switch {
			case isColRef(b.L, oc):
				v = b.R
			case isColRef(b.R, oc):
				v = b.L
			default:
				continue
			}
			if v.Type() != u.md.Column(oc).Type || !plan.ColsUsed(v).SubsetOf(inputCols) || plan.IsVolatile(v) {
				continue
			}
			values[i], used[k] = v, true
			break
		}
		if values[i] == nil {
			return pushed{}, false
		}
	}
	var rest []plan.Expr
	for k, e := range conjuncts {
		if !used[k] {
			rest = append(rest, plan.MapColRefs(e, func(r *plan.ColRef) plan.Expr {
				if i := u.outer.Find(r.ID); i >= 0 {
					return values[i]
				}
				return r
			}))
		}
	}
	// The rows are one per value of D when a key of the input is among the
	// equated columns (a lookup by primary key).
	equatedCols := plan.ColSet{}
	for _, v := range values {
		if r, ok := v.(*plan.ColRef); ok {
			equatedCols.Add(r.ID)
		}
	}
	unique := false
	for _, k := range f.Input.Props().Keys {
		unique = unique || k.SubsetOf(equatedCols)
	}
	d := make(plan.ColList, len(u.outer))
	items := u.md.IdentityItems(f.Input.Output())
	for i, v := range values {
		if v.Nullable() {
			rest = append(rest, &plan.Not{Arg: &plan.IsNull{Arg: v}})
		}
		d[i] = u.md.AddColumn(u.md.Column(u.outer[i]).Name, "", v.Type(), false)
		items = append(items, plan.ProjItem{ID: d[i], Expr: v})
	}
	var in plan.Node = f.Input
	if len(rest) > 0 {
		in = &plan.Filter{Input: in, Pred: plan.MakeAnd(rest)}
	}
	return pushed{node: &plan.Project{Input: in, Items: items}, d: d, unique: unique}, true
}

// scalarAggregate decorrelates the commonest scalar subquery, an aggregate
// without GROUP BY (under at most a projection) in a single-row left
// apply, without the left join to D that pushAggregate needs: the groups
// by D are left-joined to the left rows directly, and the aggregates'
// values over no rows (COUNT 0, the others NULL, which the padding gives)
// are filled in above that join, where the projection is computed.
func (u *unnester) scalarAggregate(a *plan.Apply) (plan.Node, bool, error) {
	if a.Kind != plan.LeftJoin || !a.Single {
		return nil, false, nil
	}
	proj, _ := a.Right.(*plan.Project)
	var agg *plan.Aggregate
	if proj != nil {
		agg, _ = proj.Input.(*plan.Aggregate)
	} else {
		agg, _ = a.Right.(*plan.Aggregate)
	}
	if agg == nil || len(agg.Group) > 0 || agg.WindowClose != 0 {
		return nil, false, nil
	}
	in, err := u.push(agg.Input)
	if err != nil {
		return nil, false, err
	}
	aggs := make([]plan.AggCall, len(agg.Aggs))
	value := map[plan.ColumnID]plan.Expr{} // each aggregate's value above the join
	for i, ac := range agg.Aggs {
		aggs[i] = ac
		aggs[i].Out = u.md.AddColumn(u.md.Column(ac.Out).Name, "", ac.Typ, true)
		var e plan.Expr = u.md.Ref(aggs[i].Out)
		if !plan.AggNullable(ac.Func) {
			e = &plan.Func{Name: "coalesce", Args: []plan.Expr{e, &plan.Const{Val: types.IntDatum(0), Typ: ac.Typ}}, Typ: ac.Typ}
		}
		value[ac.Out] = e
	}
	groups := &plan.Aggregate{Input: in.node, Group: in.d, Aggs: aggs}
	j := &plan.Join{Kind: plan.LeftJoin, Left: a.Left, Right: groups, On: u.joinBack(a.On, in.d)}
	items := u.md.IdentityItems(a.Left.Output())
	if proj == nil {
		for _, ac := range agg.Aggs {
			items = append(items, plan.ProjItem{ID: ac.Out, Expr: value[ac.Out]})
		}
	} else {
		for _, it := range proj.Items {
			e := plan.MapColRefs(it.Expr, func(r *plan.ColRef) plan.Expr {
				if v, ok := value[r.ID]; ok {
					return v
				}
				return r
			})
			items = append(items, plan.ProjItem{ID: it.ID, Expr: e})
		}
	}
	return &plan.Project{Input: j, Items: items}, true, nil
}

func isColRef(e plan.Expr, id plan.ColumnID) bool {
	r, ok := e.(*plan.ColRef)
	return ok && r.ID == id
}

// pushAggregate groups an aggregate also by D. An aggregate without GROUP
// BY has a row even over no input; grouped by D, a value of D without
// input rows would have none, so the groups are left-joined to a copy of
// D and the value's row gets each aggregate over no rows: COUNT 0, the
// others NULL.
func (u *unnester) pushAggregate(x *plan.Aggregate) (pushed, error) {
	if x.WindowClose != 0 {
		return pushed{}, fmt.Errorf("%w: a correlated subquery that aggregates windows", plan.ErrNotSupported)
	}
	in, err := u.push(x.Input)
	if err != nil {
		return pushed{}, err
	}
	group := append(append(plan.ColList(nil), x.Group...), in.d...)
	if len(x.Group) > 0 {
		return pushed{node: &plan.Aggregate{Input: in.node, Group: group, Aggs: x.Aggs}, d: in.d}, nil
	}
	// Each aggregate writes a new column; the original ones are computed
	// above the left join with D.
	aggs := make([]plan.AggCall, len(x.Aggs))
	items := make([]plan.ProjItem, 0, len(x.Aggs)+len(in.d))
	for i, ac := range x.Aggs {
		aggs[i] = ac
		aggs[i].Out = u.md.AddColumn(u.md.Column(ac.Out).Name, "", ac.Typ, true)
		var e plan.Expr = u.md.Ref(aggs[i].Out)
		if !plan.AggNullable(ac.Func) {
			e = &plan.Func{Name: "coalesce", Args: []plan.Expr{e, &plan.Const{Val: types.IntDatum(0), Typ: ac.Typ}}, Typ: ac.Typ}
		}
		items = append(items, plan.ProjItem{ID: ac.Out, Expr: e})
	}
	groups := &plan.Aggregate{Input: in.node, Group: in.d, Aggs: aggs}
	dn, d := u.domain()
	conds := make([]plan.Expr, len(d))
	for i := range d {
		conds[i] = sameValue(u.md, d[i], in.d[i])
	}
	j := &plan.Join{Kind: plan.LeftJoin, Left: dn, Right: groups, On: plan.MakeAnd(conds)}
	items = append(items, u.md.IdentityItems(d)...)
	return pushed{node: &plan.Project{Input: j, Items: items}, d: d, unique: true}, nil
}

// pushJoin takes D into the side of a join that reads the outer columns:
// either side of an inner join, the preserved side of an outer join, the
// left side of a semi or anti join; a condition that reads them is
// rewritten to read D's columns of that side. When both sides read them,
// or the side a left, semi or anti join pads or probes does, D goes into
// both and the join also matches their D columns: each value of D joins
// its own rows.
func (u *unnester) pushJoin(x *plan.Join) (pushed, error) {
	l, r := u.reads(x.Left), u.reads(x.Right)
	j := &plan.Join{Kind: x.Kind, Left: x.Left, Right: x.Right, On: x.On}
	switch {
	case r && (l || x.Kind != plan.InnerJoin && x.Kind != plan.RightJoin):
		if x.Kind == plan.RightJoin || x.Kind == plan.FullJoin {
			return pushed{}, fmt.Errorf("%w: a correlated subquery that reads the outer query in both sides of a %s join", plan.ErrNotSupported, x.Kind)
		}
		left, err := u.push(x.Left)
		if err != nil {
			return pushed{}, err
		}
		right, err := u.push(x.Right)
		if err != nil {
			return pushed{}, err
		}
		conds := []plan.Expr{}
		if x.On != nil {
			conds = append(conds, u.subst(x.On, left.d))
		}
		for i := range left.d {
			conds = append(conds, sameValue(u.md, left.d[i], right.d[i]))
		}
		j.Left, j.Right, j.On = left.node, right.node, plan.MakeAnd(conds)
		return pushed{node: j, d: left.d}, nil
	case r: // an inner or right join: into the right side
		right, err := u.push(x.Right)
		if err != nil {
			return pushed{}, err
		}
		j.Right, j.On = right.node, u.subst(x.On, right.d)
		return pushed{node: j, d: right.d}, nil
	}
	// The left side, or only the condition, reads the outer columns.
	if x.Kind == plan.RightJoin || x.Kind == plan.FullJoin {
		return pushed{}, fmt.Errorf("%w: a correlated subquery that reads the outer query in the padded side of an outer join", plan.ErrNotSupported)
	}
	left, err := u.push(x.Left)
	if err != nil {
		return pushed{}, err
	}
	j.Left, j.On = left.node, u.subst(x.On, left.d)
	return pushed{node: j, d: left.d}, nil
}

// atSubquery adds the position of a's subquery to err.
func atSubquery(err error, a *plan.Apply) error {
	if err == nil || !a.Pos.IsKnown() {
		return err
	}
	return fmt.Errorf("%w at %s", err, a.Pos)
}
