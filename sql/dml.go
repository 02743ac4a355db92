// This file parses UPDATE and DELETE on tables.

package sql

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Update is UPDATE t [[AS] alias] SET col = expr, ... [WHERE cond].
type Update struct {
	Base
	Table Ident
	Sets  []Assignment
	// Query is SELECT *, expr, ... FROM t [WHERE cond]: the rows the
	// statement changes, each followed by the values of Sets, in order.
	Query *Query
}

// Assignment is one col = expr of UPDATE's SET.
type Assignment struct {
	Column Ident
	Expr   ast.ExprNode
}

// Delete is DELETE FROM t [[AS] alias] [WHERE cond].
type Delete struct {
	Base
	Table Ident
	// Query is SELECT * FROM t [WHERE cond]: the rows the statement
	// deletes.
	Query *Query
}

func (*Update) stmtNode() {}
func (*Delete) stmtNode() {}

// parseDML parses UPDATE and DELETE. TiDB parses the whole statement; its
// table, assignments and condition become a query selecting the rows the
// statement changes.
func (p *parser) parseDML(base Base) (Stmt, error) {
	start := p.i
	verb := p.next()
	del := verb.is("DELETE")
	if del {
		if err := p.expect("FROM", "after DELETE"); err != nil {
			return nil, p.unsupported(err)
		}
	}
	tableTok := p.i
	table, err := p.ident("the name of a table after " + verb.text)
	if err != nil {
		return nil, p.unsupported(err)
	}
	// The target is the first table name of the statement; the tables of
	// subqueries follow, found by scanRegion.
	p.tableToks = append(p.tableToks, tableTok)
	end := len(p.toks) - 1 // EOF
	q := &Query{Pos: p.pos(p.toks[start])}
	if err := p.scanRegion(p.i, end, q, false); err != nil {
		return nil, err
	}
	if len(q.TVFs) > 0 || q.EmitChanges || q.EmitOnWindowClose {
		return nil, p.errAt(verb, "%s takes a table, not a window function or EMIT", verb.text)
	}
	lo, hi := p.toks[start].off, p.toks[end-1].end
	q.Text = p.sc.text[lo:hi]
	var stmt Stmt
	upd := &Update{Base: base, Table: table, Query: q}
	dl := &Delete{Base: base, Table: table, Query: q}
	if del {
		stmt = dl
	} else {
		stmt = upd
	}
	p.setJob(&tidbJob{lo: lo, hi: hi, fill: func(stmts []ast.StmtNode) error {
		if len(stmts) != 1 {
			return p.errAt(verb, "expected one %s statement", verb.text)
		}
		sel := &ast.SelectStmt{Kind: ast.SelectStmtKindSelect, SelectStmtOpts: &ast.SelectStmtOpts{SQLCache: true}, Fields: &ast.FieldList{
			Fields: []*ast.SelectField{{WildCard: &ast.WildCardField{}}}}}
		switch s := stmts[0].(type) {
		case *ast.DeleteStmt:
			if s.IsMultiTable || s.Order != nil || s.Limit != nil || !singleTable(s.TableRefs) {
				return p.errAt(verb, "not supported yet: DELETE of more than 'DELETE FROM t [WHERE ...]'")
			}
			sel.From, sel.Where = s.TableRefs, s.Where
		case *ast.UpdateStmt:
			if s.MultipleTable || s.Order != nil || s.Limit != nil || !singleTable(s.TableRefs) {
				return p.errAt(verb, "not supported yet: UPDATE of more than 'UPDATE t SET ... [WHERE ...]'")
			}
			at := p.setColumns(start, end)
			for i, a := range s.List {
				col := Ident{Name: a.Column.Name.O, Pos: p.pos(p.toks[start])}
				if i < len(at) {
					col.Pos = p.pos(p.toks[at[i]])
				}
				if a.Column.Table.O != "" && !equalFold(a.Column.Table.O, table.Name) && !equalFold(a.Column.Table.O, aliasOf(s.TableRefs)) {
					return p.errAt(p.toks[at[min(i, len(at)-1)]], "SET names column '%s.%s' of another table than '%s'", a.Column.Table.O, a.Column.Name.O, table.Name)
				}
				upd.Sets = append(upd.Sets, Assignment{Column: col, Expr: a.Expr})
				sel.Fields.Fields = append(sel.Fields.Fields, &ast.SelectField{Expr: a.Expr})
			}
			sel.From, sel.Where = s.TableRefs, s.Where
		default:
			return p.errAt(verb, "expected a %s statement", verb.text)
		}
		q.Select = sel
		p.placeTables(q)
		p.placePositions(q)
		p.setDerivedColumns(q)
		scaledCalls(q)
		return p.markFullJoins(q)
	}})
	p.i = end
	return stmt, nil
}

// singleTable reports whether refs is one table, with or without alias.
func singleTable(refs *ast.TableRefsClause) bool {
	if refs == nil || refs.TableRefs == nil || refs.TableRefs.Right != nil {
		return false
	}
	ts, ok := refs.TableRefs.Left.(*ast.TableSource)
	if !ok {
		return false
	}
	_, ok = ts.Source.(*ast.TableName)
	return ok
}

// aliasOf returns the alias of the single table of refs ("" for none).
func aliasOf(refs *ast.TableRefsClause) string {
	return refs.TableRefs.Left.(*ast.TableSource).AsName.O
}

// setColumns returns the indexes of the tokens that start the assigned
// columns of UPDATE's SET list in [lo, hi): at depth 0, the name after SET
// or a comma that a '=' follows (directly, or after ".name").
func (p *parser) setColumns(lo, hi int) []int {
	var out []int
	depth, inSet := 0, false
	for j := lo; j < hi; j++ {
		t := p.toks[j]
		switch {
		case t.isOp("("):
			depth++
		case t.isOp(")"):
			depth--
		case depth != 0:
		case t.kind == tWord && t.is("SET"):
			inSet = true
			if p.startsAssignment(j + 1) {
				out = append(out, j+1)
			}
		case t.kind == tWord && t.is("WHERE"):
			inSet = false
		case inSet && t.isOp(",") && p.startsAssignment(j+1):
			out = append(out, j+1)
		}
	}
	return out
}

// startsAssignment reports whether the tokens at j are name = or
// name.name =.
func (p *parser) startsAssignment(j int) bool {
	if j+1 >= len(p.toks) || !p.toks[j].isName() {
		return false
	}
	if p.toks[j+1].isOp("=") {
		return true
	}
	return j+3 < len(p.toks) && p.toks[j+1].isOp(".") && p.toks[j+2].isName() && p.toks[j+3].isOp("=")
}
