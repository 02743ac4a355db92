package sql

import (
	"errors"
	"strconv"
	"strings"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/internal/jsonpath"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// tableBody is the parenthesized list of CREATE STREAM and CREATE TABLE.
type tableBody struct {
	cols []ColumnDef
	pk   []Ident
	wm   *Watermark
}

// parseTableBody parses (col type [NOT NULL|NULL] [PRIMARY KEY], ...,
// [PRIMARY KEY (a, b) [NOT ENFORCED]], [WATERMARK FOR col AS expr]).
// kind is "stream" or "table": only a table has a primary key.
func (p *parser) parseTableBody(kind string) (tableBody, error) {
	var b tableBody
	p.next() // (
	seen := map[string]bool{}
	for {
		t := p.peek()
		switch {
		case t.is("WATERMARK") && p.peekAt(1).is("FOR"):
			if b.wm != nil {
				return b, p.errf("only one WATERMARK is allowed")
			}
			wm, err := p.parseWatermark()
			if err != nil {
				return b, err
			}
			b.wm = wm
		case t.is("PRIMARY") && p.peekAt(1).is("KEY"), t.is("CONSTRAINT") && p.peekAt(2).is("PRIMARY"):
			if kind != "table" {
				return b, p.errf("a stream has no primary key: use CREATE TABLE for a keyed changelog")
			}
			if b.pk != nil {
				return b, p.errf("a table has one PRIMARY KEY")
			}
			pk, err := p.parsePrimaryKey()
			if err != nil {
				return b, err
			}
			b.pk = pk
		case t.isOp(")") && len(b.cols) == 0:
			return b, p.errf("expected a column definition, found ')'")
		default:
			c, err := p.parseColumn()
			if err != nil {
				return b, err
			}
			key := strings.ToLower(c.Name.Name)
			if seen[key] {
				return b, p.sc.errAt(p.sc.offset(c.Name.Pos), "duplicate column %s", shown(c.Name.Name))
			}
			seen[key] = true
			if c.PrimaryKey {
				if kind != "table" {
					return b, p.sc.errAt(p.sc.offset(c.Name.Pos), "a stream has no primary key: use CREATE TABLE for a keyed changelog")
				}
				if b.pk != nil {
					return b, p.sc.errAt(p.sc.offset(c.Name.Pos), "a table has one PRIMARY KEY")
				}
				b.pk = []Ident{c.Name}
			}
			b.cols = append(b.cols, c)
		}
		if p.acceptOp(",") {
			continue
		}
		if p.acceptOp(")") {
			break
		}
		if p.at(tEOF) {
			return b, p.errf("expected ')' after the column list")
		}
		return b, p.errf("expected ',' or ')' in the column list, found %s", describe(p.peek()))
	}
	if len(b.cols) == 0 {
		return b, p.errAt(p.toks[p.i-1], "expected at least one column definition")
	}
	for _, id := range b.pk {
		if !seen[strings.ToLower(id.Name)] {
			return b, p.sc.errAt(p.sc.offset(id.Pos), "PRIMARY KEY names unknown column %s", shown(id.Name))
		}
	}
	if b.wm != nil && !seen[strings.ToLower(b.wm.Column.Name)] {
		return b, p.sc.errAt(p.sc.offset(b.wm.Column.Pos), "WATERMARK FOR names unknown column %s", shown(b.wm.Column.Name))
	}
	return b, nil
}

// parseColumn parses `name type [NOT NULL | NULL] [PRIMARY KEY [NOT ENFORCED]]`.
func (p *parser) parseColumn() (ColumnDef, error) {
	var c ColumnDef
	var err error
	if c.Name, err = p.ident("a column name"); err != nil {
		return c, err
	}
	if c.Type, err = p.parseType(); err != nil {
		return c, err
	}
	for {
		switch t := p.peek(); {
		case t.is("NOT") && p.peekAt(1).is("NULL"):
			p.next()
			p.next()
			c.NotNull = true
		case t.is("NULL"):
			p.next()
			c.NotNull = false
		case t.is("PRIMARY"):
			p.next()
			if err := p.expect("KEY", "after PRIMARY"); err != nil {
				return c, err
			}
			if c.PrimaryKey {
				return c, p.errAt(t, "PRIMARY KEY is declared twice")
			}
			c.PrimaryKey = true
			if err := p.notEnforced(); err != nil {
				return c, err
			}
		case t.is("NOT"):
			return c, p.errAt(p.peekAt(1), "expected NULL after NOT, found %s", describe(p.peekAt(1)))
		case t.is("WITH") && p.peekAt(1).isOp("("):
			if err := p.columnOptions(&c); err != nil {
				return c, err
			}
		default:
			return c, nil
		}
	}
}

// notEnforced accepts Flink's NOT ENFORCED after a primary key.
func (p *parser) notEnforced() error {
	if p.peek().is("NOT") && !p.peekAt(1).is("NULL") {
		p.next()
		return p.expect("ENFORCED", "after PRIMARY KEY ... NOT")
	}
	return nil
}

// parsePrimaryKey parses [CONSTRAINT name] PRIMARY KEY (a, b) [NOT ENFORCED].
func (p *parser) parsePrimaryKey() ([]Ident, error) {
	if p.accept("CONSTRAINT") {
		p.next() // the constraint's name, which eddy does not keep
	}
	p.next() // PRIMARY
	p.next() // KEY
	if err := p.expectOp("(", "after PRIMARY KEY"); err != nil {
		return nil, err
	}
	var cols []Ident
	for {
		id, err := p.ident("a column name in PRIMARY KEY")
		if err != nil {
			return nil, err
		}
		for _, c := range cols {
			if strings.EqualFold(c.Name, id.Name) {
				return nil, p.sc.errAt(p.sc.offset(id.Pos), "column %s appears twice in PRIMARY KEY", shown(id.Name))
			}
		}
		cols = append(cols, id)
		if p.acceptOp(",") {
			continue
		}
		if err := p.expectOp(")", "after the PRIMARY KEY columns"); err != nil {
			return nil, err
		}
		break
	}
	return cols, p.notEnforced()
}

// multiWordTypes are type names of two words, by their first word.
var multiWordTypes = map[string][]string{
	"DOUBLE":    {"PRECISION"},
	"CHARACTER": {"VARYING"},
	"CHAR":      {"VARYING"},
	"SIGNED":    {"INTEGER", "INT"},
}

// parseType parses a type name such as BIGINT, DECIMAL(10, 2),
// TIMESTAMP(3) or DOUBLE PRECISION and checks that eddy knows it.
func (p *parser) parseType() (TypeName, error) {
	t := p.peek()
	if t.kind != tWord {
		return TypeName{}, p.errf("expected a type, found %s", describe(t))
	}
	p.next()
	tn := TypeName{Name: strings.ToUpper(t.text), Pos: p.pos(t)}
	for _, second := range multiWordTypes[tn.Name] {
		if p.peek().is(second) {
			tn.Name += " " + strings.ToUpper(p.next().text)
			break
		}
	}
	if p.acceptOp("(") {
		for {
			n := p.peek()
			v, err := strconv.Atoi(n.text)
			if n.kind != tNumber || err != nil || v < 0 {
				return tn, p.errf("expected a whole number in the arguments of %s, found %s", tn.Name, describe(n))
			}
			p.next()
			tn.Args = append(tn.Args, v)
			if p.acceptOp(",") {
				continue
			}
			if err := p.expectOp(")", "after the arguments of "+tn.Name); err != nil {
				return tn, err
			}
			break
		}
	}
	if _, err := types.FromName(tn.Name, tn.Args); err != nil {
		return tn, p.errAt(t, "%s", err.Error())
	}
	return tn, nil
}

// parseWatermark parses WATERMARK FOR col AS expr; TiDB parses expr.
func (p *parser) parseWatermark() (*Watermark, error) {
	wt := p.next() // WATERMARK
	p.next()       // FOR
	col, err := p.ident("the time column after WATERMARK FOR")
	if err != nil {
		return nil, err
	}
	if err := p.expect("AS", "after WATERMARK FOR "+shown(col.Name)); err != nil {
		return nil, err
	}
	start := p.i
	end := p.exprEnd(start)
	if end == start {
		return nil, p.errf("expected an expression after WATERMARK FOR %s AS, found %s", shown(col.Name), describe(p.peek()))
	}
	if err := p.scanRegion(start, end, nil, false); err != nil {
		return nil, err
	}
	wm := &Watermark{Column: col, Pos: p.pos(wt)}
	p.setJob(&tidbJob{
		lo: p.toks[start].off, hi: p.toks[end-1].end,
		// TiDB parses SELECT (expr): the parentheses keep an alias or a
		// FROM out of the expression.
		prefix: "SELECT (", suffix: ")",
		fill: func(stmts []ast.StmtNode) error {
			e, err := singleExpr(stmts)
			if err != nil {
				return p.errAt(p.toks[start], "%s", err.Error())
			}
			wm.Expr = e
			return nil
		},
	})
	p.i = end
	return wm, nil
}

// exprEnd returns the index of the first token from start on that ends an
// expression inside a list: a ',' or ')' at depth 0, or the end.
func (p *parser) exprEnd(start int) int {
	return p.scanTo(start, func(j, depth int) bool {
		return depth == 0 && (p.toks[j].isOp(")") || p.toks[j].isOp(","))
	})
}

// singleExpr extracts expr from TiDB's parse of SELECT (expr).
func singleExpr(stmts []ast.StmtNode) (ast.ExprNode, error) {
	if len(stmts) == 1 {
		if sel, ok := stmts[0].(*ast.SelectStmt); ok && sel.Fields != nil && len(sel.Fields.Fields) == 1 && sel.From == nil {
			e := sel.Fields.Fields[0].Expr
			if pe, ok := e.(*ast.ParenthesesExpr); ok {
				return pe.Expr, nil
			}
		}
	}
	return nil, errors.New("expected a single expression")
}

// columnOptions parses a column's WITH (path = '$.a.b'): where a JSON
// message holds the column's value, checked as a MySQL JSON path.
func (p *parser) columnOptions(c *ColumnDef) error {
	if c.Path != "" {
		return p.errf("a column has one WITH")
	}
	opts, err := p.parseOptions()
	if err != nil {
		return err
	}
	for _, o := range opts {
		if o.Key != "path" {
			return p.sc.errAt(p.sc.offset(o.KeyPos), "unknown column option %s (valid: path)", shown(o.Key))
		}
		if _, err := jsonpath.Parse(o.Value); err != nil {
			return p.sc.errAt(p.sc.offset(o.ValuePos), "column %s: %v", shown(c.Name.Name), err)
		}
		c.Path, c.PathPos = o.Value, o.ValuePos
	}
	return nil
}
