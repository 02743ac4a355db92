package engine

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/dataflow"
	"github.com/eddysql/eddy/optimizer/physical"
	"github.com/eddysql/eddy/planner/plan"
)

// Shared work across queries. A materialized view keeps its query's
// result, and reading the view's changes yields that result's changes: a
// new view whose plan contains a sub-plan that some running view computes
// whole — the same scans, filters, projections and aggregates — reads
// that view's rows in place of computing them again, so the work below
// runs once for both. Sub-plans match structurally, bottom up, on the
// bound plans (plan.SameTree), so the optimizer plans the rest of the new
// query around the view's rows.
//
// A shared sub-plan must be one whose changes a view's changes replace
// exactly: it updates (an append-only one would let the operators above
// it keep less state than the view's changes need), has no event-time
// column and, unless no operator of the plan uses watermarks, carries no
// watermark (a view's changes carry neither), and its rows do not expire. (An input that ends may be shared: what knows it ends
// above an aggregate only estimates costs by it.) The
// view must run healthy with neither a state TTL nor load shedding, which
// make its rows depend on when they were computed.
//
// A query that reads a view resumes as one does: from the view's rows
// when the engine restarts (share_views.slt). Dropping the view leaves
// its query running, detached from the catalog, while a query reads it;
// the last reader to go stops it (releaseDetached).

// viewReuse is a running view whose rows a query reads in place of a
// sub-plan of its own.
type viewReuse struct {
	view string // the view's name
	plan string // the sub-plan it stands for, in plan.Format's form
}

// shareCandidate is a sub-plan of a running view whose rows are the
// view's rows: the view's plan below projections that keep every column
// of it.
type shareCandidate struct {
	view *catalog.Object
	node plan.Node
	ords map[plan.ColumnID]int // node's output column → the view's column
}

// shareViews returns root with each largest sub-plan that a running view
// computes whole replaced by a scan of the view's changes, and what it
// reused. obj is the view being planned, which reads no earlier version
// of itself.
func (e *Engine) shareViews(obj *catalog.Object, md *plan.Metadata, root plan.Node) (plan.Node, []viewReuse) {
	cands := e.shareCandidates(obj)
	if len(cands) == 0 {
		return root, nil
	}
	timeless := usesNoWatermark(root)
	var reused []viewReuse
	var visit func(n plan.Node) plan.Node
	visit = func(n plan.Node) plan.Node {
		if shareable(n, timeless) {
			for _, c := range cands {
				m := map[plan.ColumnID]plan.ColumnID{}
				if !plan.SameTree(n, c.node, m) {
					continue
				}
				out := n.Output()
				scan := &plan.Scan{Object: c.view, Alias: c.view.Name, Cols: append(plan.ColList(nil), out...), Ords: make([]int, len(out))}
				for i, col := range out {
					scan.Ords[i] = c.ords[m[col]]
				}
				reused = append(reused, viewReuse{view: c.view.Name, plan: plan.Format(md, n)})
				return scan
			}
		}
		ins := n.Inputs()
		changed := false
		next := make([]plan.Node, len(ins))
		for i, in := range ins {
			next[i] = visit(in)
			changed = changed || next[i] != in
		}
		if !changed {
			return n
		}
		return n.WithInputs(next...)
	}
	return visit(root), reused
}

// shareable reports whether a view's changes can stand for n's, in a
// plan whose operators use no watermark when timeless says so, and
// whether reading them saves work: n aggregates.
func shareable(n plan.Node, timeless bool) bool {
	p := n.Props()
	if p.AppendOnly || p.Watermarked && !timeless || !p.TimeCols.Empty() || len(p.TimeLags) > 0 || p.RowsExpire {
		return false
	}
	aggregates := false
	plan.WalkNodes(n, func(x plan.Node) {
		if _, ok := x.(*plan.Aggregate); ok {
			aggregates = true
		}
	})
	return aggregates
}

// usesNoWatermark reports whether no operator of root uses the
// watermarks of its input: it has no windows, sessions, window joins,
// temporal filters, rankings or windowed aggregates — only scans,
// filters, projections, plain aggregates, joins that keep their state and
// unions. Under such operators a sub-plan whose input carries watermarks
// (but no column that follows them) may read a view's changes, which
// carry none.
func usesNoWatermark(root plan.Node) bool {
	ok := true
	plan.WalkNodes(root, func(n plan.Node) {
		switch n := n.(type) {
		case *plan.Scan, *plan.Values, *plan.Filter, *plan.Project, *plan.Calc, *plan.Union:
		case *plan.Aggregate:
			ok = ok && n.WindowClose == 0 && !n.EmitOnClose
		case *plan.Join:
			_, windowed := n.Windowed()
			ok = ok && !windowed
		default:
			ok = false
		}
	})
	return ok
}

// shareCandidates returns the sub-plans of the running views, but obj's,
// that a new query may read in their place.
func (e *Engine) shareCandidates(obj *catalog.Object) []shareCandidate {
	e.mu.Lock()
	defer e.mu.Unlock()
	qs := make([]*runningQuery, 0, len(e.queries))
	for _, q := range e.queries {
		qs = append(qs, q)
	}
	// The oldest view first: the same plan shares the same view however
	// the map orders them.
	slices.SortFunc(qs, func(a, b *runningQuery) int { return cmp.Compare(a.obj.ID, b.obj.ID) })
	var out []shareCandidate
	for _, q := range qs {
		v := q.obj
		if v.Kind != catalog.View || q.bound == nil || q.mv == nil || q.cluster != nil || strings.EqualFold(v.Name, obj.Name) ||
			v.StateTTLMs != 0 || v.Shed != nil || q.mv.Err() != nil {
			continue
		}
		if state, _ := q.job.State(); state != dataflow.JobRunning {
			continue
		}
		n := q.bound
		ords := map[plan.ColumnID]int{}
		for i, c := range n.Output() {
			if _, dup := ords[c]; !dup {
				ords[c] = i
			}
		}
		for {
			out = append(out, shareCandidate{view: v, node: n, ords: ords})
			p, ok := n.(*plan.Project)
			if !ok {
				break
			}
			// Below a projection that passes every column of its input on.
			in := map[plan.ColumnID]int{}
			for _, it := range p.Items {
				if ref, ok := it.Expr.(*plan.ColRef); ok {
					if _, dup := in[ref.ID]; !dup {
						in[ref.ID] = ords[it.ID]
					}
				}
			}
			whole := true
			for _, c := range p.Input.Output() {
				if _, ok := in[c]; !ok {
					whole = false
				}
			}
			if !whole {
				break
			}
			n, ords = p.Input, in
		}
	}
	return out
}

// readsObject reports whether the physical plan root reads an object
// whose ID is in ids.
func readsObject(root physical.Node, ids map[uint64]bool) bool {
	return readsSource(root, func(src *physical.Source) bool { return ids[src.Object.ID] })
}

// releaseDetached stops the dropped views that still ran for the queries
// reading them and that no running query reads any more, and drops their
// checkpoints.
func (e *Engine) releaseDetached() {
	e.mu.Lock()
	var done []*runningQuery
	for id, d := range e.detached {
		read := false
		for _, q := range e.queries {
			if q.plan != nil && readsObject(q.plan, map[uint64]bool{id: true}) {
				read = true
				break
			}
		}
		if !read {
			done = append(done, d)
			delete(e.detached, id)
		}
	}
	e.mu.Unlock()
	for _, d := range done {
		d.stop()
		endSubscribers(d)
		if err := e.dropQueryState(d.obj); err != nil {
			e.notices.add(err.Error())
		}
	}
}

// endSubscribers ends the streams of the queries reading q's view.
func endSubscribers(q *runningQuery) {
	if q.mv != nil {
		q.mv.Control(context.Background(), exec.Control{Kind: exec.EndOfInput})
	}
}
