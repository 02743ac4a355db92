package engine

import (
	"fmt"
	"strings"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/optimizer/physical"
	"github.com/eddysql/eddy/planner"
	"github.com/eddysql/eddy/planner/plan"
	"github.com/eddysql/eddy/sql"
)

// explain renders the plan of a statement without running it.
func (s *Session) explain(st *sql.Explain) (*Result, error) {
	if st.Mode == sql.ExplainAnalyze {
		return s.explainAnalyze(st)
	}
	var q *sql.Query
	var mode planner.Mode
	var root string
	inner := st.Stmt
	switch x := inner.(type) {
	case *sql.Select:
		q, mode, root = x.Query, snapshot, "Result"
		if x.Query.EmitChanges {
			mode, root = continuous, "PushChanges"
		}
	case *sql.CreateView:
		q, mode, root = x.Query, continuous, "Materialize "+x.Name.Name
	case *sql.CreateStream:
		if x.Query == nil {
			return nil, bindErr(st.Start, st.Source(), "EXPLAIN needs a query: CREATE STREAM without AS SELECT runs none")
		}
		return nil, notSupported(x.Query.Pos, "derived streams (CREATE STREAM ... AS SELECT)")
	case *sql.CreateSink:
		return nil, notSupported(st.Start, "CREATE SINK")
	case *sql.Insert:
		if x.Query == nil {
			return nil, bindErr(st.Start, st.Source(), "EXPLAIN needs a query: INSERT ... VALUES runs none")
		}
		return nil, notSupported(x.Query.Pos, "INSERT INTO ... SELECT (continuous inserts)")
	default:
		return nil, bindErr(st.Start, st.Source(), "EXPLAIN needs a query or a CREATE ... AS statement")
	}
	cq, err := s.eng.planQuery(q, inner.Source(), st.Start, mode, s.parallelism)
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
	res := &Result{Kind: ResultRows, Preformatted: true, Columns: []Column{{Name: "plan", Type: types.VarcharT}}}
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		res.Rows = append(res.Rows, []types.Datum{types.StringDatum(line)})
	}
	res.Tag = fmt.Sprintf("EXPLAIN %d", len(res.Rows))
	return res, nil
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
	return b.String()
}
