package engine

import (
	"fmt"
	"strings"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/optimizer/cost"
	"github.com/eddysql/eddy/optimizer/physical"
	"github.com/eddysql/eddy/planner/plan"
	"github.com/eddysql/eddy/sql"
)

// explain renders the plan of a statement without running it.
func (s *Session) explain(st *sql.Explain) (*Result, error) {
	if st.Mode == sql.ExplainAnalyze {
		return s.explainAnalyze(st)
	}
	cq, root, err := s.explainPlan(st)
	if err != nil {
		return nil, err
	}
	var text string
	switch st.Mode {
	case sql.ExplainLogical:
		text = plan.Format(cq.bound.Md, cq.logical)
	case sql.ExplainVerbose:
		text = withRoot(root, physical.Format(cq.phys)) + verboseTrailer(cq)
	default:
		text = withRoot(root, physical.Format(cq.phys))
	}
	text += reuseTrailer(cq)
	res := &Result{Kind: ResultRows, Preformatted: true, Columns: []Column{{Name: "plan", Type: types.VarcharT}}}
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		res.Rows = append(res.Rows, []types.Datum{types.StringDatum(line)})
	}
	res.Tag = fmt.Sprintf("EXPLAIN %d", len(res.Rows))
	return res, nil
}

// explainPlan plans the statement EXPLAIN shows and names the root line
// above its plan: where the query's rows go.
func (s *Session) explainPlan(st *sql.Explain) (*compiledQuery, string, error) {
	inner := st.Stmt
	var obj *catalog.Object
	var q *sql.Query
	var with []sql.Option // the view's or sink's options, for a shed error's position
	src := inner.Source()
	optSrc := src
	switch x := inner.(type) {
	case *sql.Select:
		if x.Query.EmitChanges {
			cq, err := s.eng.planQuery(x.Query, src, st.Start, continuous, s.settings())
			return cq, "PushChanges", err
		}
		cq, err := s.eng.planQuery(x.Query, src, st.Start, snapshot, s.settings())
		return cq, "Result", err
	case *sql.CreateView:
		var err error
		if obj, err = s.viewObject(x); err != nil {
			return nil, "", err
		}
		q, with = x.Query, x.With
	case *sql.CreateStream:
		if x.Query == nil {
			return nil, "", bindErr(st.Start, st.Source(), "EXPLAIN needs a query: CREATE STREAM without AS SELECT runs none")
		}
		var err error
		if obj, err = s.derivedObject(x); err != nil {
			return nil, "", err
		}
		q = x.Query
	case *sql.CreateSink:
		var err error
		if obj, q, src, err = s.sinkObject(x); err != nil {
			return nil, "", err
		}
		with = x.With
	case *sql.Insert:
		if x.Query == nil {
			return nil, "", bindErr(st.Start, st.Source(), "EXPLAIN needs a query: INSERT ... VALUES runs none")
		}
		target, err := s.insertTarget(x)
		if err != nil {
			return nil, "", err
		}
		if target.Kind == catalog.Table {
			cq, err := s.planInsertCopy(target, x)
			return cq, "CopyInto " + target.Name, err
		}
		if obj, err = s.insertObject(target, x); err != nil {
			return nil, "", err
		}
		q = x.Query
	default:
		return nil, "", bindErr(st.Start, st.Source(), "EXPLAIN needs a query or a CREATE ... AS statement")
	}
	cq, err := s.eng.planContinuous(obj, q, src, st.Start, s.settings())
	if err != nil {
		return nil, "", shedErrorAt(err, with, optSrc)
	}
	line := s.eng.rootLine(obj)
	if s.eng.writesOut(obj) {
		line = fmt.Sprintf("Sink %s (connector=%s, guarantee=%s)", obj.Name, obj.Options["connector"],
			s.eng.sinkGuarantee(obj, cq.phys, s.checkpointInterval()))
	}
	return cq, line, nil
}

// rootLine names where a continuous object's rows go.
func (e *Engine) rootLine(obj *catalog.Object) string {
	switch {
	case obj.Kind == catalog.View:
		return "Materialize " + obj.Name
	case obj.Kind == catalog.Stream:
		return "AppendStream " + obj.Name
	}
	if target, ok := e.insertTarget(obj); ok {
		return "InsertInto " + target
	}
	return fmt.Sprintf("Sink %s (connector=%s)", obj.Name, obj.Options["connector"])
}

// withRoot puts the sink line above a plan tree.
func withRoot(root, tree string) string {
	var b strings.Builder
	b.WriteString(root + "\n")
	for i, line := range strings.Split(strings.TrimRight(tree, "\n"), "\n") {
		if i == 0 {
			b.WriteString("└── " + line + "\n")
		} else {
			b.WriteString("    " + line + "\n")
		}
	}
	return b.String()
}

// verboseTrailer lists the rules that fired, in order.
func verboseTrailer(cq *compiledQuery) string {
	var b strings.Builder
	b.WriteString("\nRules applied:\n")
	if len(cq.trace.Steps) == 0 {
		b.WriteString("  (none)\n")
	}
	for _, st := range cq.trace.Steps {
		fmt.Fprintf(&b, "  %s/%s:\n    before: %s\n    after:  %s\n", st.Phase, st.Rule, st.Before, st.After)
	}
	if ds := cq.decisions(); len(ds) > 0 {
		b.WriteString("\nCost-based decisions:\n")
		for _, line := range strings.Split(strings.TrimRight(cost.FormatDecisions(ds), "\n"), "\n") {
			b.WriteString("  " + line + "\n")
		}
	}
	return b.String()
}

// reuseTrailer says which running views the query reads in place of
// sub-plans of its own, and which (share.go).
func reuseTrailer(cq *compiledQuery) string {
	var b strings.Builder
	for _, r := range cq.reuses {
		fmt.Fprintf(&b, "\nReuses materialized view %s, which computes:\n", r.view)
		for _, line := range strings.Split(strings.TrimRight(r.plan, "\n"), "\n") {
			b.WriteString("  " + line + "\n")
		}
	}
	return b.String()
}
