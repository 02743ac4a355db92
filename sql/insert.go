package sql

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// parseInsert parses
//
//	INSERT INTO name [(cols)] VALUES (expr, ...), ...
//	INSERT INTO name [(cols)] query
func (p *parser) parseInsert(base Base) (Stmt, error) {
	p.next() // INSERT
	if err := p.expect("INTO", "after INSERT"); err != nil {
		return nil, err
	}
	ins := &Insert{Base: base}
	var err error
	if ins.Table, err = p.ident("the name of the stream or table to insert into"); err != nil {
		return nil, err
	}
	if p.peek().isOp("(") && !p.peekAt(1).is("SELECT") && !p.peekAt(1).is("WITH") && !p.peekAt(1).isOp("(") {
		p.next()
		for {
			id, err := p.ident("a column name")
			if err != nil {
				return nil, err
			}
			ins.Columns = append(ins.Columns, id)
			if p.acceptOp(",") {
				continue
			}
			if err := p.expectOp(")", "after the column list"); err != nil {
				return nil, err
			}
			break
		}
	}
	if !p.peek().is("VALUES") {
		if t := p.peek(); !t.is("SELECT") && !t.is("WITH") && !t.isOp("(") {
			return nil, p.errf("expected VALUES or a query after INSERT INTO %s, found %s", shown(ins.Table.Name), describe(t))
		}
		if ins.Query, err = p.parseQuery(queryOpts{}); err != nil {
			return nil, err
		}
		return ins, nil
	}
	return ins, p.parseValues(ins)
}

// parseValues parses VALUES (expr, ...), ... to the end of the statement.
// TiDB parses the rows as the statement INSERT INTO t VALUES ...: the text
// before VALUES is replaced by that header.
func (p *parser) parseValues(ins *Insert) error {
	values := p.next()
	first := p.i
	var rows []token // each row's '('
	for {
		open := p.peek()
		if !open.isOp("(") {
			return p.errf("expected '(' to start a row of VALUES, found %s", describe(open))
		}
		end := p.closeParen(p.i)
		if end < 0 {
			return p.errAt(open, "missing ')' at the end of the row")
		}
		if end == p.i+1 {
			return p.errAt(p.toks[end], "expected a value, found ')': a row needs at least one value")
		}
		rows = append(rows, open)
		p.i = end + 1
		if p.acceptOp(",") {
			continue
		}
		if p.at(tEOF) {
			break
		}
		return p.errf("expected ',' or end of statement after a row of VALUES, found %s", describe(p.peek()))
	}
	if err := p.scanRegion(first, p.i, nil, false); err != nil {
		return err
	}
	p.setJob(&tidbJob{
		lo: values.off, hi: p.toks[p.i-1].end, prefix: "INSERT INTO t ",
		fill: func(stmts []ast.StmtNode) error {
			if len(stmts) == 1 {
				if st, ok := stmts[0].(*ast.InsertStmt); ok && len(st.Lists) == len(rows) {
					ins.Rows = st.Lists
					return nil
				}
			}
			return p.errAt(values, "expected rows of values")
		},
	})
	return nil
}

// closeParen returns the index of the ')' matching the '(' at index open,
// or -1.
func (p *parser) closeParen(open int) int {
	k := p.scanTo(open, func(j, depth int) bool { return depth == 1 && p.toks[j].isOp(")") })
	if p.toks[k].kind == tEOF {
		return -1
	}
	return k
}
