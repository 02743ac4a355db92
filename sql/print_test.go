package sql

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
)

// printer renders statements deterministically for the golden tests: the
// statement kind, then its fields one per line. TiDB subtrees are restored
// as SQL, and every column reference of a TiDB subtree is listed with its
// script position, checked against the source text.
type printer struct {
	b      strings.Builder
	checks []string // position mismatches, reported as test failures
	tidb   bool     // also print the text handed to TiDB
}

func pos(p Pos) string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

func (pr *printer) line(indent int, format string, args ...any) {
	pr.b.WriteString(strings.Repeat("  ", indent))
	fmt.Fprintf(&pr.b, format, args...)
	pr.b.WriteByte('\n')
}

func ident(id Ident) string {
	q := ""
	if id.Quoted {
		q = " (quoted)"
	}
	return fmt.Sprintf("%s%s %s", id.Name, q, pos(id.Pos))
}

// restore renders a TiDB node as SQL.
func restore(n ast.Node) string {
	if n == nil {
		return "<nil>"
	}
	var b strings.Builder
	flags := format.RestoreStringSingleQuotes | format.RestoreKeyWordUppercase |
		format.RestoreNameBackQuotes | format.RestoreSpacesAroundBinaryOperation |
		format.RestoreStringWithoutCharset
	if err := n.Restore(format.NewRestoreCtx(flags, &b)); err != nil {
		return "<restore error: " + err.Error() + ">"
	}
	return b.String()
}

func (pr *printer) stmt(s Stmt, indent int) {
	src := s.Source()
	switch s := s.(type) {
	case *CreateStream:
		pr.line(indent, "CreateStream %s", pos(s.Start))
		pr.line(indent+1, "name: %s", ident(s.Name))
		pr.flag(indent+1, "if-not-exists", s.IfNotExists)
		pr.columns(indent+1, s.Columns)
		pr.watermark(indent+1, src, s.Watermark)
		pr.options(indent+1, s.With)
		pr.query(indent+1, src, s.Query)
	case *CreateTable:
		pr.line(indent, "CreateTable %s", pos(s.Start))
		pr.line(indent+1, "name: %s", ident(s.Name))
		pr.flag(indent+1, "if-not-exists", s.IfNotExists)
		pr.columns(indent+1, s.Columns)
		var pk []string
		for _, id := range s.PrimaryKey {
			pk = append(pk, ident(id))
		}
		pr.line(indent+1, "primary-key: %s", strings.Join(pk, ", "))
		pr.watermark(indent+1, src, s.Watermark)
		pr.options(indent+1, s.With)
	case *CreateView:
		pr.line(indent, "CreateView %s", pos(s.Start))
		pr.line(indent+1, "name: %s", ident(s.Name))
		pr.flag(indent+1, "if-not-exists", s.IfNotExists)
		pr.flag(indent+1, "or-replace", s.OrReplace)
		pr.options(indent+1, s.With)
		pr.query(indent+1, src, s.Query)
	case *CreateSink:
		pr.line(indent, "CreateSink %s", pos(s.Start))
		pr.line(indent+1, "name: %s", ident(s.Name))
		pr.flag(indent+1, "if-not-exists", s.IfNotExists)
		if s.From != nil {
			pr.line(indent+1, "from: %s", ident(*s.From))
		}
		pr.query(indent+1, src, s.Query)
		pr.options(indent+1, s.With)
	case *Insert:
		pr.line(indent, "Insert %s", pos(s.Start))
		pr.line(indent+1, "table: %s", ident(s.Table))
		var cols []string
		for _, c := range s.Columns {
			cols = append(cols, ident(c))
		}
		if cols != nil {
			pr.line(indent+1, "columns: %s", strings.Join(cols, ", "))
		}
		for _, row := range s.Rows {
			var vals []string
			for _, e := range row {
				vals = append(vals, restore(e))
				pr.walk(src, e)
			}
			pr.line(indent+1, "row: (%s)", strings.Join(vals, ", "))
		}
		for _, row := range s.Rows {
			for _, e := range row {
				pr.refs(indent+1, src, e)
			}
		}
		pr.query(indent+1, src, s.Query)
	case *Update:
		pr.line(indent, "Update %s", pos(s.Start))
		pr.line(indent+1, "table: %s", ident(s.Table))
		for _, a := range s.Sets {
			pr.line(indent+1, "set: %s = %s", ident(a.Column), restore(a.Expr))
		}
		pr.query(indent+1, src, s.Query)
	case *Delete:
		pr.line(indent, "Delete %s", pos(s.Start))
		pr.line(indent+1, "table: %s", ident(s.Table))
		pr.query(indent+1, src, s.Query)
	case *Select:
		pr.line(indent, "Select %s", pos(s.Start))
		pr.query(indent+1, src, s.Query)
	case *Explain:
		mode := [...]string{"physical", "logical", "verbose", "analyze"}[s.Mode]
		pr.line(indent, "Explain %s %s", mode, pos(s.Start))
		if s.Target != nil {
			pr.line(indent+1, "target: %s", ident(*s.Target))
		}
		if s.Stmt != nil {
			pr.stmt(s.Stmt, indent+1)
		}
	case *Show:
		what := [...]string{"", "streams", "tables", "materialized views", "sinks", "queries", "checkpoints", "functions", "autoscale", "cluster"}[s.What]
		pr.line(indent, "Show %s %s", what, pos(s.Start))
	case *ShowCreate:
		kind := "any"
		if s.Kind != 0 {
			kind = s.Kind.String()
		}
		pr.line(indent, "ShowCreate %s %s", kind, pos(s.Start))
		pr.line(indent+1, "name: %s", ident(s.Name))
	case *Describe:
		pr.line(indent, "Describe %s", pos(s.Start))
		pr.line(indent+1, "name: %s", ident(s.Name))
	case *Drop:
		pr.line(indent, "Drop %s %s", s.Kind, pos(s.Start))
		pr.line(indent+1, "name: %s", ident(s.Name))
		pr.flag(indent+1, "if-exists", s.IfExists)
		pr.flag(indent+1, "cascade", s.Cascade)
	case *Alter:
		pr.line(indent, "Alter %s %s", s.Kind, pos(s.Start))
		pr.line(indent+1, "name: %s", ident(s.Name))
		for _, o := range s.Set {
			pr.line(indent+1, "set: %s = %q %s %s", o.Key, o.Value, pos(o.KeyPos), pos(o.ValuePos))
		}
	case *Set:
		pr.line(indent, "Set %s", pos(s.Start))
		pr.line(indent+1, "name: %s", ident(s.Name))
		pr.line(indent+1, "value: %q %s", s.Value, pos(s.ValuePos))
	case *Flush:
		pr.line(indent, "Flush %s", pos(s.Start))
	case *Analyze:
		pr.line(indent, "Analyze %s", pos(s.Start))
		pr.line(indent+1, "name: %s", ident(s.Name))
	default:
		pr.line(indent, "unknown statement %T", s)
	}
	if indent == 0 {
		pr.line(1, "text: %q", src.Text())
		if pr.tidb && src.TiDBText() != "" {
			pr.line(1, "tidb: %q", src.TiDBText())
		}
	}
}

func (pr *printer) flag(indent int, name string, v bool) {
	if v {
		pr.line(indent, "%s", name)
	}
}

func (pr *printer) columns(indent int, cols []ColumnDef) {
	for _, c := range cols {
		t := c.Type.Name
		if len(c.Type.Args) > 0 {
			var args []string
			for _, a := range c.Type.Args {
				args = append(args, fmt.Sprint(a))
			}
			t += "(" + strings.Join(args, ",") + ")"
		}
		extra := ""
		if c.NotNull {
			extra += " NOT NULL"
		}
		if c.PrimaryKey {
			extra += " PRIMARY KEY"
		}
		pr.line(indent, "column: %s %s %s%s", ident(c.Name), t, pos(c.Type.Pos), extra)
	}
}

func (pr *printer) watermark(indent int, src *Source, w *Watermark) {
	if w == nil {
		return
	}
	pr.walk(src, w.Expr)
	pr.line(indent, "watermark %s: %s AS %s", pos(w.Pos), ident(w.Column), restore(w.Expr))
	pr.refs(indent+1, src, w.Expr)
}

func (pr *printer) options(indent int, opts []Option) {
	for _, o := range opts {
		pr.line(indent, "with: %s = %q %s %s", o.Key, o.Value, pos(o.KeyPos), pos(o.ValuePos))
	}
}

func (pr *printer) query(indent int, src *Source, q *Query) {
	if q == nil {
		return
	}
	pr.walk(src, q.Select)
	pr.line(indent, "query %s: %s", pos(q.Pos), restore(q.Select))
	if q.EmitChanges {
		pr.line(indent+1, "emit changes")
	}
	if q.EmitOnWindowClose {
		pr.line(indent+1, "emit on window close")
	}
	for _, t := range q.TVFs {
		var args []string
		for _, a := range t.Args {
			args = append(args, fmt.Sprintf("%s=%dms %s", a.Text, a.Ms, pos(a.Pos)))
		}
		pr.line(indent+1, "tvf %s %s %s: table %s, time %s, %s", t.Placeholder, t.Kind, pos(t.Pos),
			ident(t.Table), ident(t.TimeCol), strings.Join(args, ", "))
		if q.TVF(strings.ToUpper(t.Placeholder)) != t {
			pr.checks = append(pr.checks, "Query.TVF does not find "+t.Placeholder)
		}
	}
	if sel, ok := q.Select.(*ast.SelectStmt); ok && pr.tidb && sel.Fields != nil {
		var texts []string
		for _, f := range sel.Fields.Fields {
			texts = append(texts, fmt.Sprintf("%q", f.Text()))
		}
		pr.line(indent+1, "field texts: %s", strings.Join(texts, ", "))
	}
	pr.tables(indent+1, src, q)
	pr.refs(indent+1, src, q.Select)
}

// tables lists the query's table names with their positions.
func (pr *printer) tables(indent int, src *Source, q *Query) {
	var names []string
	inspect(q.Select, func(n ast.Node) {
		if t, ok := n.(*ast.TableName); ok {
			names = append(names, t.Name.O+" "+pos(src.Pos(t.OriginTextPosition())))
		}
	})
	if len(names) > 0 {
		pr.line(indent, "tables: %s", strings.Join(names, ", "))
	}
	for _, j := range q.FullJoins {
		pr.line(indent, "full join: right side %s", restore(j.Right))
	}
}

// refs lists the column references of a TiDB subtree with their positions.
func (pr *printer) refs(indent int, src *Source, n ast.Node) {
	var refs []string
	inspect(n, func(n ast.Node) {
		if c, ok := n.(*ast.ColumnNameExpr); ok {
			refs = append(refs, restore(c.Name)+" "+pos(src.Pos(c.OriginTextPosition())))
		}
	})
	if len(refs) > 0 {
		pr.line(indent, "refs: %s", strings.Join(refs, ", "))
	}
}

// walk checks that every column reference maps to script text that starts
// with the reference's first name part, and that every expression offset
// lies inside the statement.
func (pr *printer) walk(src *Source, n ast.Node) {
	inspect(n, func(n ast.Node) {
		if t, ok := n.(*ast.TableName); ok {
			p := src.Pos(t.OriginTextPosition())
			want := t.Name.O
			if t.Schema.O != "" {
				want = t.Schema.O
			}
			k := p.Offset - src.sc.base.Offset
			text := src.sc.text[k:]
			if strings.HasPrefix(want, TVFPrefix) {
				want = strings.ToUpper(text[:min(len(text), 3)])
				if want != "TUM" && want != "HOP" && want != "CUM" && want != "SES" && want != "TAB" {
					want = TVFPrefix
				}
			}
			if !startsWithName(src.sc.text, k, want) {
				pr.checks = append(pr.checks, fmt.Sprintf("table %s at %s points at %.20q", want, pos(p), text))
			}
			return
		}
		e, ok := n.(ast.ExprNode)
		if !ok {
			return
		}
		p := src.Pos(e.OriginTextPosition())
		k := p.Offset - src.sc.base.Offset
		if k < src.lo || k > src.hi {
			pr.checks = append(pr.checks, fmt.Sprintf("%T at %s outside the statement", e, pos(p)))
			return
		}
		c, ok := n.(*ast.ColumnNameExpr)
		if !ok {
			return
		}
		first := c.Name.Name.O
		if c.Name.Table.O != "" {
			first = c.Name.Table.O
		}
		if c.Name.Schema.O != "" {
			first = c.Name.Schema.O
		}
		if !startsWithName(src.sc.text, k, first) {
			pr.checks = append(pr.checks, fmt.Sprintf("column %s at %s points at %.20q", first, pos(p), src.sc.text[k:]))
		}
	})
	sort.Strings(pr.checks)
}

// startsWithName reports whether text[k:] starts with name, backquoted or
// not (case-insensitively). TiDB replaces invalid UTF-8 in names, so such
// names always pass.
func startsWithName(text string, k int, name string) bool {
	if !utf8.ValidString(name) || strings.Contains(name, "?") || strings.HasPrefix(text[k:], "``") {
		return true // `` is an empty qualifier TiDB drops: ``.a is column a
	}
	if strings.HasPrefix(text[k:], "`") {
		tok := lex(text, k, len(text)).toks[0]
		return strings.HasPrefix(strings.ToLower(tok.val), strings.ToLower(name))
	}
	return len(text)-k >= len(name) && strings.EqualFold(text[k:k+len(name)], name)
}
