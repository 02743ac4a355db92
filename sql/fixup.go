// This file holds what is done to TiDB's AST after it parsed a query.

package sql

import (
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// placeTables gives every table name of the query's TiDB AST the offset
// of its name in the TiDB text, as TiDB does for expressions, so that
// Source.Pos finds it. TiDB visits table names in the order they are
// written; each is matched to the next token in table position (after
// FROM, JOIN, ',' or '(' in a FROM clause) that spells it, or else the
// next one. A window function's placeholder gets the offset of the
// function's name.
func (p *parser) placeTables(q *Query) {
	cursor := 0
	inspect(q.Select, func(n ast.Node) {
		tn, ok := n.(*ast.TableName)
		if !ok {
			return
		}
		if strings.HasPrefix(tn.Name.L, TVFPrefix) {
			if w := q.TVF(tn.Name.O); w != nil {
				tn.SetOriginTextPosition(p.src.tidbOffset(p.sc.offset(w.Pos)))
			}
			return
		}
		first := tn.Name.O
		if tn.Schema.O != "" {
			first = tn.Schema.O
		}
		match := func(k int) bool {
			t := p.toks[p.tableToks[k]]
			if !strings.EqualFold(t.val, first) {
				return false
			}
			tn.SetOriginTextPosition(p.src.tidbOffset(t.off))
			return true
		}
		for k := cursor; k < len(p.tableToks); k++ {
			if match(k) {
				cursor = k + 1
				return
			}
		}
		for k := 0; k < cursor; k++ {
			if match(k) {
				return
			}
		}
		// TiDB respells names it cannot read (invalid UTF-8 becomes '?'):
		// take the next table position.
		if cursor < len(p.tableToks) {
			tn.SetOriginTextPosition(p.src.tidbOffset(p.toks[p.tableToks[cursor]].off))
			cursor++
		}
	})
}

// restoreFieldTexts gives every select field of the query the text the
// user wrote (TiDB records the rewritten text), which names a result
// column that has no alias: SELECT CAST(a AS INT) names it CAST(a AS INT).
func (p *parser) restoreFieldTexts(q *Query) {
	inspect(q.Select, func(n ast.Node) {
		f, ok := n.(*ast.SelectField)
		if !ok || f.OriginalText() == "" {
			return
		}
		lo := p.src.origOffset(f.Offset)
		hi := p.src.origEnd(f.Offset + len(f.OriginalText()))
		if lo < hi && hi <= len(p.sc.text) {
			f.SetText(nil, p.sc.text[lo:hi])
		}
	})
}

// markFullJoins finds the joins written FULL [OUTER] JOIN (parsed by TiDB
// as LEFT joins): the one whose right side starts with the first table
// name after the JOIN keyword.
func (p *parser) markFullJoins(q *Query) error {
	for _, f := range p.fullJoins {
		right := -1
		for _, k := range p.tableToks {
			if k > f {
				right = p.src.tidbOffset(p.toks[k].off)
				break
			}
		}
		var found *ast.Join
		inspect(q.Select, func(n ast.Node) {
			j, ok := n.(*ast.Join)
			if ok && found == nil && j.Tp == ast.LeftJoin && j.Right != nil && leftmostTable(j.Right) == right {
				found = j
			}
		})
		if found == nil {
			return p.errAt(p.toks[f], "FULL JOIN needs a table (or a query reading one) on its right")
		}
		q.FullJoins = append(q.FullJoins, found)
	}
	return nil
}

// leftmostTable returns the smallest offset of a table name under n, or -1.
func leftmostTable(n ast.Node) int {
	best := -1
	inspect(n, func(n ast.Node) {
		if tn, ok := n.(*ast.TableName); ok {
			if off := tn.OriginTextPosition(); best < 0 || off < best {
				best = off
			}
		}
	})
	return best
}

// tidbOffset maps a script text offset to the TiDB text offset that
// Source.Pos maps back to it, or -1.
func (s *Source) tidbOffset(k int) int {
	for _, g := range s.segs {
		if g.exact && g.orig <= k && k < g.orig+(g.hi-g.lo) {
			return g.lo + k - g.orig
		}
		if !g.exact && g.orig == k {
			return g.lo
		}
	}
	return -1
}

// visitor calls fn on every node of a TiDB tree, in TiDB's visiting order.
type visitor struct{ fn func(ast.Node) }

func (v visitor) Enter(n ast.Node) (ast.Node, bool) { v.fn(n); return n, false }
func (v visitor) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// inspect calls fn on every node of the tree rooted at n.
func inspect(n ast.Node, fn func(ast.Node)) {
	if n != nil {
		n.Accept(visitor{fn})
	}
}

// placePositions gives every `GROUP BY 2` / `ORDER BY 2` position of the
// query (which TiDB parses into a PositionExpr without an offset) the
// offset of its number, so errors about it point at it. Positions are
// matched, in the order they are written, to number tokens that follow BY
// or a comma.
func (p *parser) placePositions(q *Query) {
	cursor := 0
	inspect(q.Select, func(n ast.Node) {
		pe, ok := n.(*ast.PositionExpr)
		if !ok || pe.P != nil {
			return
		}
		want := strconv.Itoa(pe.N)
		for k := max(cursor, 1); k < len(p.toks); k++ {
			t, prev := p.toks[k], p.toks[k-1]
			if t.kind != tNumber || t.text != want || !(prev.is("BY") || (prev.kind == tOp && prev.text == ",")) {
				continue
			}
			if off := p.src.tidbOffset(t.off); off >= 0 {
				pe.SetOriginTextPosition(off)
			}
			cursor = k + 1
			return
		}
	})
}

// setDerivedColumns puts each recorded derived-table column list on the
// TableSource of a subquery with that alias. Lists are recorded where they
// close (inner first) while TiDB visits outer first, so each TableSource
// takes the first unused list with its alias.
func (p *parser) setDerivedColumns(q *Query) {
	used := make([]bool, len(q.DerivedColumns))
	inspect(q.Select, func(n ast.Node) {
		ts, ok := n.(*ast.TableSource)
		if !ok {
			return
		}
		switch ts.Source.(type) {
		case *ast.SelectStmt, *ast.SetOprStmt:
		default:
			return
		}
		for i, dc := range q.DerivedColumns {
			if used[i] || !strings.EqualFold(ts.AsName.O, dc.Alias) {
				continue
			}
			used[i] = true
			for _, id := range dc.Names {
				ts.ColumnNames = append(ts.ColumnNames, ast.NewCIStr(id.Name))
			}
			return
		}
	})
}
