// This file holds the parsing of eddy's scaled aggregates, which TiDB
// does not know: SCALED_COUNT, SCALED_SUM and their _CI forms.

package sql

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// ScaledAggregates are the lower-case names of the aggregate functions
// that estimate, over input a query's load shedding thinned, what COUNT
// and SUM would be without it (planner/scaled.go binds them).
var ScaledAggregates = map[string]bool{
	"scaled_count": true, "scaled_count_ci": true, "scaled_sum": true, "scaled_sum_ci": true,
}

// scaledCountStar records the rewrite of SCALED_COUNT(*) or
// SCALED_COUNT_CI(*) at token j into the same call of 1, which TiDB
// parses (it takes * only in COUNT), as COUNT(*) is COUNT(1).
func (p *parser) scaledCountStar(j int) {
	t := p.toks[j]
	name := strings.ToLower(t.text)
	if name != "scaled_count" && name != "scaled_count_ci" {
		return
	}
	if !p.toks[j+1].isOp("(") || !p.toks[j+2].isOp("*") || !p.toks[j+3].isOp(")") {
		return
	}
	star := p.toks[j+2]
	p.edits = append(p.edits, edit{lo: star.off, hi: star.end, repl: "1", anchor: star.off})
}

// scaledCalls makes every call of a scaled aggregate in the query, which
// TiDB parses as a scalar function call, an aggregate call, so that the
// planner finds it with the other aggregates.
func scaledCalls(q *Query) {
	q.Select.Accept(scaledVisitor{})
}

// scaledVisitor replaces scaled aggregates' FuncCallExprs by
// AggregateFuncExprs, at the same position and with the same text.
type scaledVisitor struct{}

func (scaledVisitor) Enter(n ast.Node) (ast.Node, bool) { return n, false }

func (scaledVisitor) Leave(n ast.Node) (ast.Node, bool) {
	f, ok := n.(*ast.FuncCallExpr)
	if !ok || !ScaledAggregates[f.FnName.L] {
		return n, true
	}
	a := &ast.AggregateFuncExpr{F: f.FnName.L, Args: f.Args}
	a.SetOriginTextPosition(f.OriginTextPosition())
	a.SetText(nil, f.OriginalText())
	return a, true
}
