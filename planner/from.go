package planner

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/planner/plan"
	"github.com/eddysql/eddy/sql"
)

// buildFrom binds a FROM clause.
func (b *Builder) buildFrom(j *ast.Join) (plan.Node, *scope, error) {
	if j.Right != nil {
		return b.buildJoin(j)
	}
	return b.buildTableRef(j.Left)
}

func (b *Builder) buildTableRef(rs ast.ResultSetNode) (plan.Node, *scope, error) {
	switch rs := rs.(type) {
	case *ast.Join:
		return b.buildFrom(rs)
	case *ast.TableSource:
		return b.buildTableSource(rs)
	}
	return nil, nil, b.unsupported(nil, "this kind of FROM item")
}

func (b *Builder) buildTableSource(ts *ast.TableSource) (plan.Node, *scope, error) {
	alias := ts.AsName.O
	switch src := ts.Source.(type) {
	case *ast.TableName:
		if alias == "" {
			alias = src.Name.O
		}
		if src.Schema.O != "" {
			return nil, nil, b.errAt(src, "eddy has no schemas: write '%s' without '%s.'", src.Name.O, src.Schema.O)
		}
		if cte, ok := b.ctes[strings.ToLower(src.Name.O)]; ok {
			return b.buildDerived(cte.Query.Query, alias, cte.ColNameList)
		}
		if b.tvfs != nil {
			if tvf := b.tvfs.TVF(src.Name.O); tvf != nil {
				return b.buildTVF(tvf, ts.AsName.O)
			}
		}
		return b.buildScan(src, alias)
	case *ast.SelectStmt, *ast.SetOprStmt:
		return b.buildDerived(src, alias, ts.ColumnNames)
	}
	return nil, nil, b.unsupported(nil, "this kind of FROM item")
}

// namePos finds a name in the statement text (TiDB records no position for
// table names).
func (b *Builder) namePos(name string) sql.Pos {
	if b.src == nil {
		return b.start
	}
	if p, ok := b.src.IdentPos(name, b.start); ok {
		return p
	}
	return b.start
}

func (b *Builder) buildScan(tn *ast.TableName, alias string) (plan.Node, *scope, error) {
	n, sc, err := b.buildScanNamed(tn.Name.O, b.posOf(tn))
	if err != nil {
		return nil, nil, err
	}
	if alias != tn.Name.O {
		n.(*plan.Scan).Alias = alias
		for i := range sc.cols {
			sc.cols[i].table = alias
			b.md.Column(sc.cols[i].id).Table = alias
		}
	}
	return n, sc, nil
}

// buildScanNamed binds a scan of the object called name, written at p.
func (b *Builder) buildScanNamed(name string, p sql.Pos) (plan.Node, *scope, error) {
	alias := name
	obj, err := b.cat.Lookup(name)
	if err != nil {
		e := b.errAtPos(p, "unknown stream, table or view '%s'", name)
		e.Cause = err
		return nil, nil, e
	}
	if obj.Kind == catalog.Sink {
		return nil, nil, b.errAtPos(p, "'%s' is a sink: sinks write to connectors and cannot be read", obj.Name)
	}
	b.useDep(obj)
	s := &plan.Scan{Object: obj, Alias: alias}
	if b.mode == Snapshot {
		s.Mode = plan.ScanSnapshot
	}
	s.Bounded = obj.Traits.Bounded
	sc := &scope{}
	for i, c := range obj.Columns {
		id := b.md.AddColumn(c.Name, alias, c.Type, c.Nullable)
		b.md.Column(id).Object, b.md.Column(id).Ord = obj, i
		s.Cols = append(s.Cols, id)
		s.Ords = append(s.Ords, i)
		sc.cols = append(sc.cols, scopeCol{table: alias, name: c.Name, id: id})
	}
	return s, sc, nil
}

// buildDerived binds a subquery in FROM; its columns are visible under
// alias, renamed by colNames when given.
func (b *Builder) buildDerived(q ast.ResultSetNode, alias string, colNames []ast.CIStr) (plan.Node, *scope, error) {
	sub, _, err := b.buildResultSet(q, nil)
	if err != nil {
		return nil, nil, err
	}
	node := sub.node
	if sub.limit != nil {
		if b.mode != Snapshot {
			return nil, nil, &NotSupportedError{Feature: "LIMIT in a continuous query (Top-N)", Pos: b.start}
		}
		node = sub.limit
	}
	out := node.Output()
	if len(colNames) > 0 && len(colNames) != len(out) {
		return nil, nil, b.errAtPos(b.namePos(alias), "derived table '%s' has %d columns but %d names", alias, len(out), len(colNames))
	}
	sc := &scope{}
	for i, id := range out {
		name := sub.names[i]
		if len(colNames) > 0 {
			name = colNames[i].O
		}
		sc.cols = append(sc.cols, scopeCol{table: alias, name: name, id: id})
		if alias != "" {
			b.md.Column(id).Table = alias // references from outside display alias.name
		}
	}
	return node, sc, nil
}
