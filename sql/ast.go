package sql

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Pos is a position in the original text of a script: a 0-based byte offset
// and a 1-based line and column (columns count bytes).
type Pos struct {
	Offset int
	Line   int
	Col    int
}

// Stmt is one parsed statement.
type Stmt interface {
	// Source is the statement's text and the map from offsets in the text
	// TiDB parsed back to positions in the original script.
	Source() *Source
	stmtNode()
}

// Base holds what every statement has: its source and its start.
type Base struct {
	Src   *Source
	Start Pos
}

// Source returns the statement's source.
func (b *Base) Source() *Source { return b.Src }

// MaxIdentLen is the most characters an identifier may have: the name of
// a stream, table, view or sink, a column, an alias or an option. MySQL
// allows 64; eddy allows more for generated names, and a bound keeps
// names (and the storage keys and messages made of them) small.
const MaxIdentLen = 256

// Ident is a name as written, with its position. Quoted is set for
// `backquoted` names. Names match case-insensitively.
type Ident struct {
	Name   string
	Pos    Pos
	Quoted bool
}

// TypeName is a SQL type as written: an upper-case name (multi-word names
// such as DOUBLE PRECISION are joined by one space) and numeric arguments,
// e.g. DECIMAL(10,2) → {"DECIMAL", [10 2]}.
type TypeName struct {
	Name string
	Args []int
	Pos  Pos
}

// ColumnDef is a column of CREATE STREAM or CREATE TABLE.
type ColumnDef struct {
	Name       Ident
	Type       TypeName
	NotNull    bool
	PrimaryKey bool // declared inline: `id BIGINT PRIMARY KEY`
	// Path, from `WITH (path = '$.geo.country')`, is where a JSON
	// message holds the column's value (a MySQL JSON path), when it is
	// not the top-level field of the column's name; PathPos is the
	// value's position.
	Path    string
	PathPos Pos
}

// Watermark is `WATERMARK FOR col AS expr`.
type Watermark struct {
	Column Ident
	Expr   ast.ExprNode // e.g. date_time - INTERVAL '4' SECOND
	Pos    Pos
}

// Option is one `key = 'value'` of a WITH clause. Keys are lower-cased and may
// be dotted (nexmark.table) or quoted ('format'); values are the literal's
// text without quotes (numbers and identifiers are accepted as their text).
type Option struct {
	Key      string
	Value    string
	KeyPos   Pos
	ValuePos Pos
}

// Interval is a day-time interval literal, `INTERVAL '10' SECOND` or
// `INTERVAL 10 SECOND`, resolved to milliseconds.
type Interval struct {
	Ms   int64
	Text string // as written
	Pos  Pos
}

// WindowKind is the kind of a window table function.
type WindowKind uint8

// The window table functions of SQL.md.
const (
	Tumble WindowKind = iota + 1
	Hop
	Cumulate
	Session
)

// String returns the function name.
func (k WindowKind) String() string {
	return [...]string{"", "TUMBLE", "HOP", "CUMULATE", "SESSION"}[k]
}

// WindowTVF is a window table function in FROM. In the TiDB AST handed to
// the planner its call is replaced by a table named Placeholder (keeping any
// alias), so the planner finds the function by that name.
type WindowTVF struct {
	Kind        WindowKind
	Placeholder string
	Table       Ident      // the input: `bid` or `TABLE bid`
	TimeCol     Ident      // `date_time` or `DESCRIPTOR(date_time)`
	Args        []Interval // TUMBLE: size; HOP: slide, size; CUMULATE: step, max size; SESSION: gap
	Pos         Pos
}

// DerivedColumns names the columns of a derived table: `AS Alias(Names...)`.
type DerivedColumns struct {
	Alias string
	Names []Ident
}

// Query is a SELECT (or UNION) with eddy's streaming additions.
type Query struct {
	// Select is *ast.SelectStmt or *ast.SetOprStmt.
	Select            ast.ResultSetNode
	TVFs              []*WindowTVF
	EmitChanges       bool // push query: EMIT CHANGES
	EmitOnWindowClose bool // EMIT ON WINDOW CLOSE
	Text              string
	Pos               Pos
	// DerivedColumns are the column lists of derived tables, `(SELECT ...)
	// AS t(a, b)`, which TiDB does not parse: the front end puts each on
	// its TableSource's ColumnNames after parsing; they are kept here too.
	DerivedColumns []DerivedColumns
	// FullJoins are the joins written FULL [OUTER] JOIN. TiDB's AST has no
	// full join, so they appear as LEFT joins (ast.LeftJoin); see IsFullJoin.
	FullJoins []*ast.Join
}

// IsFullJoin reports whether j was written FULL [OUTER] JOIN.
func (q *Query) IsFullJoin(j *ast.Join) bool {
	for _, f := range q.FullJoins {
		if f == j {
			return true
		}
	}
	return false
}

// TVF returns the window function whose placeholder is name, or nil.
func (q *Query) TVF(name string) *WindowTVF {
	for _, t := range q.TVFs {
		if equalFold(t.Placeholder, name) {
			return t
		}
	}
	return nil
}

// CreateStream is CREATE STREAM: a source stream (Columns, optional WITH) or
// a derived stream (Query).
type CreateStream struct {
	Base
	Name        Ident
	IfNotExists bool
	Columns     []ColumnDef
	Watermark   *Watermark
	With        []Option
	Query       *Query
}

// CreateTable is CREATE TABLE with a PRIMARY KEY.
type CreateTable struct {
	Base
	Name        Ident
	IfNotExists bool
	Columns     []ColumnDef
	PrimaryKey  []Ident // from a PRIMARY KEY (..) clause or an inline PRIMARY KEY
	Watermark   *Watermark
	With        []Option
}

// CreateView is CREATE MATERIALIZED VIEW, with its query's options (WITH
// before AS: state_ttl).
type CreateView struct {
	Base
	Name        Ident
	IfNotExists bool
	// OrReplace replaces a view of the name, when nothing depends on it
	// (CREATE OR REPLACE MATERIALIZED VIEW).
	OrReplace bool
	With      []Option
	Query     *Query
}

// CreateSink is CREATE SINK k FROM v WITH (...) or CREATE SINK k AS SELECT ... WITH (...).
type CreateSink struct {
	Base
	Name        Ident
	IfNotExists bool
	From        *Ident
	Query       *Query
	With        []Option
}

// Insert is INSERT INTO t [(cols)] VALUES (...), ... or INSERT INTO t [(cols)] SELECT ....
type Insert struct {
	Base
	Table   Ident
	Columns []Ident
	Rows    [][]ast.ExprNode
	Query   *Query
}

// Select is a query statement: a pull query, or a push query with EMIT CHANGES.
type Select struct {
	Base
	Query *Query
}

// ExplainMode says which EXPLAIN was asked for.
type ExplainMode uint8

// The EXPLAIN forms.
const (
	ExplainPhysical ExplainMode = iota // EXPLAIN
	ExplainLogical                     // EXPLAIN LOGICAL
	ExplainVerbose                     // EXPLAIN VERBOSE
	ExplainAnalyze                     // EXPLAIN ANALYZE name
)

// Explain is EXPLAIN [LOGICAL|VERBOSE] stmt, or EXPLAIN ANALYZE name.
type Explain struct {
	Base
	Mode   ExplainMode
	Stmt   Stmt   // a *Select, *CreateView, *CreateStream (AS), *CreateSink (AS) or *Insert (SELECT)
	Target *Ident // for ExplainAnalyze
}

// ShowKind says what SHOW lists.
type ShowKind uint8

// The SHOW forms.
const (
	ShowStreams ShowKind = iota + 1
	ShowTables
	ShowViews // SHOW MATERIALIZED VIEWS
	ShowSinks
	ShowQueries
	ShowCheckpoints
	ShowFunctions
	ShowAutoscale
	ShowCluster
)

// Show is SHOW STREAMS | TABLES | MATERIALIZED VIEWS | SINKS | QUERIES |
// CHECKPOINTS | FUNCTIONS | AUTOSCALE | CLUSTER.
type Show struct {
	Base
	What ShowKind
}

// ShowCreate is SHOW CREATE [STREAM | TABLE | MATERIALIZED VIEW | SINK]
// name: the statement that recreates the object. Kind is 0 when the
// statement names no kind.
type ShowCreate struct {
	Base
	Kind ObjectKind
	Name Ident
}

// Describe is DESCRIBE name (or DESC name).
type Describe struct {
	Base
	Name Ident
}

// ObjectKind is the kind of a catalog object named in DROP.
type ObjectKind uint8

// The droppable object kinds.
const (
	ObjStream ObjectKind = iota + 1
	ObjTable
	ObjView
	ObjSink
)

// String returns the kind as SQL spells it.
func (k ObjectKind) String() string {
	return [...]string{"", "STREAM", "TABLE", "MATERIALIZED VIEW", "SINK"}[k]
}

// Drop is DROP STREAM | TABLE | MATERIALIZED VIEW | SINK [IF EXISTS] name
// [CASCADE | RESTRICT].
type Drop struct {
	Base
	Kind     ObjectKind
	Name     Ident
	IfExists bool
	// Cascade drops the objects that depend on the object first (DROP ...
	// CASCADE); without it (or with RESTRICT) they make DROP fail.
	Cascade bool
}

// Alter is ALTER MATERIALIZED VIEW | SINK | STREAM name SET (key = value,
// ...): it changes the running query of a view, a sink or a derived
// stream (SET (parallelism = 4) rescales it). Kind is ObjView, ObjSink or
// ObjStream; the options' keys are lower-cased, as WITH's are.
type Alter struct {
	Base
	Kind ObjectKind
	Name Ident
	Set  []Option
}

// Set is SET name = value. Value is the literal's text without quotes.
type Set struct {
	Base
	Name     Ident
	Value    string
	ValuePos Pos
}

// Flush is FLUSH.
type Flush struct {
	Base
}

// Analyze is ANALYZE name: collect statistics of a bounded source.
type Analyze struct {
	Base
	Name Ident
}

func (*CreateStream) stmtNode() {}
func (*CreateTable) stmtNode()  {}
func (*CreateView) stmtNode()   {}
func (*CreateSink) stmtNode()   {}
func (*Insert) stmtNode()       {}
func (*Select) stmtNode()       {}
func (*Explain) stmtNode()      {}
func (*Show) stmtNode()         {}
func (*ShowCreate) stmtNode()   {}
func (*Describe) stmtNode()     {}
func (*Drop) stmtNode()         {}
func (*Alter) stmtNode()        {}
func (*Set) stmtNode()          {}
func (*Flush) stmtNode()        {}
func (*Analyze) stmtNode()      {}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
