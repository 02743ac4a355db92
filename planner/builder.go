package planner

import (
	"strings"
	"time"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
	"github.com/eddysql/eddy/sql"
)

// Catalog is what the planner needs of the catalog.
type Catalog interface {
	Lookup(name string) (*catalog.Object, error)
}

// Mode says how a query reads its inputs.
type Mode uint8

// The query modes.
const (
	// Continuous queries (views, push queries) read their inputs from the
	// beginning and follow them.
	Continuous Mode = iota
	// Snapshot queries (pull queries) read what their inputs hold now.
	Snapshot
)

// Query is a bound query: its logical plan and how to present its result.
type Query struct {
	Root  plan.Node
	Md    *plan.Metadata
	Cols  plan.ColList // the result columns, in order
	Names []string     // their names
	// Deps are the catalog objects the query reads, in first-use order.
	Deps []string
	// Limit is a push query's LIMIT (-1: none).
	Limit             int64
	EmitChanges       bool
	EmitOnWindowClose bool
}

// Types returns the result column types.
func (q *Query) Types() []types.T {
	ts := make([]types.T, len(q.Cols))
	for i, c := range q.Cols {
		ts[i] = q.Md.Column(c).Type
	}
	return ts
}

// Builder binds one statement.
type Builder struct {
	cat   Catalog
	md    *plan.Metadata
	src   *sql.Source
	start sql.Pos
	mode  Mode
	deps  []string
	ctes  map[string]*ast.CommonTableExpression
	tvfs  *sql.Query
	// windows are the window table functions bound so far, by the IDs of
	// their window_start and window_end columns.
	windows map[plan.ColumnID]*windowInfo
	push    bool // binding a push query (EMIT CHANGES)
	// outer are the scopes of the queries enclosing the subquery being
	// bound, innermost last; correlated collects the outer columns it
	// refers to.
	outer []*scope
	// outerAgg holds, for each of outer, its aggregation when the subquery
	// sits above it (in HAVING or an aggregating select list): the
	// subquery may refer to its grouped expressions and aggregates.
	outerAgg   []*aggCtx
	correlated plan.ColSet
	// Fold evaluates constant expressions (LIMIT counts, INSERT values); the
	// engine supplies the runtime's evaluator.
	Fold func(plan.Expr) (types.Datum, error)
	// Now is the statement's start: the value of NOW() in a one-shot
	// statement (a pull query, INSERT ... VALUES). Zero: the time NOW() is
	// first bound.
	Now time.Time
}

// NewBuilder returns a builder for one statement of src starting at start.
func NewBuilder(cat Catalog, src *sql.Source, start sql.Pos) *Builder {
	return &Builder{cat: cat, md: plan.NewMetadata(), src: src, start: start}
}

// Metadata returns the builder's column metadata.
func (b *Builder) Metadata() *plan.Metadata { return b.md }

// BuildQuery binds a query for the given mode.
func (b *Builder) BuildQuery(q *sql.Query, mode Mode) (*Query, error) {
	b.mode = mode
	b.tvfs = q
	b.push = q.EmitChanges
	root, _, err := b.buildResultSet(q.Select, nil)
	if err != nil {
		return nil, err
	}
	if mode == Continuous {
		if err := b.checkVolatile(root.node); err != nil {
			return nil, err
		}
	}
	out := &Query{Root: root.node, Md: b.md, Cols: root.node.Output(), Names: root.names, Deps: b.deps,
		Limit: -1, EmitChanges: q.EmitChanges, EmitOnWindowClose: q.EmitOnWindowClose}
	if root.limit != nil {
		switch {
		case q.EmitChanges:
			out.Limit = root.limit.Count
			if root.limit.Offset > 0 {
				return nil, &NotSupportedError{Feature: "OFFSET in a push query"}
			}
		case mode == Snapshot:
			out.Root = root.limit
		default:
			return nil, b.unsupported(nil, "LIMIT in a continuous query (Top-N)")
		}
	}
	if q.EmitOnWindowClose {
		if err := b.EmitOnWindowClose(out.Root); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// built is a bound relational expression with its output names.
type built struct {
	node   plan.Node
	names  []string
	limit  *plan.Limit // a LIMIT to apply on top (kept apart for push queries)
	sorted bool
	topN   bool // ORDER BY ... LIMIT became a Top-N (continuous queries)
}

// useDep records that the query reads obj.
func (b *Builder) useDep(obj *catalog.Object) {
	for _, d := range b.deps {
		if strings.EqualFold(d, obj.Name) {
			return
		}
	}
	b.deps = append(b.deps, obj.Name)
}

// restore renders a TiDB node as SQL text (for matching GROUP BY
// expressions and naming columns).
func restore(n ast.Node) string {
	var sb strings.Builder
	if err := n.Restore(format.NewRestoreCtx(format.DefaultRestoreFlags, &sb)); err != nil {
		return ""
	}
	return sb.String()
}

// buildResultSet binds a SELECT (or set operation) as a relation; outer is
// the enclosing scope for correlated references (unsupported so far).
func (b *Builder) buildResultSet(rs ast.ResultSetNode, outer *scope) (*built, *scope, error) {
	switch rs := rs.(type) {
	case *ast.SelectStmt:
		return b.buildSelect(rs)
	case *ast.SetOprStmt:
		return b.buildSetOpr(rs)
	}
	return nil, nil, b.unsupported(nil, "this kind of query")
}

// EmitOnWindowClose makes every windowed aggregation of a plan emit each
// window once, when it closes (EMIT ON WINDOW CLOSE; derived streams and
// append-only sinks ask for it too). It fails when the plan has none.
func (b *Builder) EmitOnWindowClose(root plan.Node) error {
	found := false
	plan.WalkNodes(root, func(x plan.Node) {
		switch x := x.(type) {
		case *plan.Aggregate:
			if x.WindowClose != 0 {
				x.EmitOnClose, found = true, true
			}
		case *plan.SessionAggregate:
			x.EmitOnClose, found = true, true
		}
	})
	if !found {
		return b.errAtPos(b.start, "EMIT ON WINDOW CLOSE needs a windowed aggregation (GROUP BY the window_start or window_end of TUMBLE, HOP, CUMULATE or SESSION)")
	}
	plan.WalkNodes(root, func(x plan.Node) { plan.ResetProps(x) })
	return nil
}
