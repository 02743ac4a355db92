package difftest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/eddysql/eddy/sql"
)

// Features are what a corpus entry can need beyond what every entry may
// use (filters, projections, scalar functions, CASE, CAST, aggregates,
// GROUP BY/HAVING, DISTINCT, subqueries in FROM, CTEs, views over views,
// tables), each with what it means. An entry runs once all the features it
// needs are supported.
var Features = map[string]string{
	"window":          "TUMBLE, HOP and CUMULATE window table functions",
	"session":         "SESSION window table function",
	"topn":            "Top-N: ROW_NUMBER() OVER (...) filtered by rn <= N",
	"dedup":           "de-duplication: ROW_NUMBER() OVER (...) filtered by rn = 1",
	"union":           "UNION ALL",
	"join":            "inner equi-joins with retractions (views, tables, streams)",
	"outer_join":      "LEFT, RIGHT and FULL OUTER joins",
	"semi_join":       "IN and EXISTS subqueries (semi and anti joins)",
	"lookup_join":     "stream-table lookup joins against the table's current row",
	"interval_join":   "stream-stream joins with a time bound",
	"watermark":       "WATERMARK clauses in CREATE STREAM (the harness then declares them)",
	"emit_on_close":   "EMIT ON WINDOW CLOSE",
	"derived_stream":  "CREATE STREAM ... AS SELECT",
	"insert_select":   "continuous INSERT INTO ... SELECT",
	"setop":           "INTERSECT and EXCEPT, ALL and DISTINCT, mixed with UNION",
	"window_func":     "window functions: ranking, LAG/LEAD, value functions and aggregates with ROWS/RANGE/GROUPS frames",
	"table_dml":       "entries' own UPDATE, DELETE and INSERT statements on tables between rounds (-- dml N:)",
	"subquery_scalar": "scalar subqueries, correlated or not, in the select list, WHERE, HAVING, CASE and function arguments",
	"subquery_expr": "IN, NOT IN, EXISTS, NOT EXISTS and quantified comparisons (= ANY, > ALL, ...) under OR and NOT " +
		"and in the select list",
	// Known bugs: entries that show them wait under a feature named
	// known_bug_<what> until they are fixed (none wait now).
}

// Entry is one corpus entry: materialized views (and the derived streams
// and continuous inserts they read) created before any data arrives; each
// view is compared with SQLite's result for the same query.
type Entry struct {
	Name  string
	File  string
	Line  int
	Needs []string // features, see Features
	Doc   string   // the entry's comment lines
	Stmts []Stmt   // in order
	// DML are the entry's own statements on tables, each run after the
	// round it names (see DML), in order.
	DML []DML
}

// DML is a statement an entry runs on a table between rounds: UPDATE,
// DELETE or INSERT ... VALUES on person or auction. On eddy it runs after
// the round's rows are fed and before the round's FLUSH; SQLite replays
// the tables' rows round by round with the statements in between (see
// RunSQLite).
type DML struct {
	Round int    // the round (from 0) after whose rows it runs
	Text  string // the statement, as eddy runs it
}

// dmlForm matches the statements a `-- dml N:` block may hold.
var dmlForm = regexp.MustCompile(`(?is)^(UPDATE\s+(person|auction)\s+SET\b|DELETE\s+FROM\s+(person|auction)\b|INSERT\s+INTO\s+(person|auction)\s+VALUES\b)`)

// StmtKind is the form of a statement of an entry.
type StmtKind uint8

// The statement forms. Only views are compared; SQLite mirrors the others
// so that views can read them.
const (
	KindView    StmtKind = iota // CREATE MATERIALIZED VIEW name AS query: a SQLite view, compared
	KindDerived                 // CREATE STREAM name AS query: a SQLite view
	KindStream                  // CREATE STREAM name (columns): a SQLite table
	KindInsert                  // INSERT INTO name query: SQLite inserts the query's rows
)

// Stmt is one statement of an entry.
type Stmt struct {
	Kind StmtKind
	Name string // what the statement creates, or the stream it inserts into
	Text string // the statement, as eddy runs it
	// Query is the statement's query; for KindStream, the column list.
	Query string
	// SQLite is the hand-written SQLite query, or "" to translate Query.
	SQLite string
}

// stmtForms recognizes the statements of an entry, and names the feature
// each form needs beyond the corpus' basics.
var stmtForms = []struct {
	kind    StmtKind
	re      *regexp.Regexp
	feature string
}{
	{KindView, regexp.MustCompile(`(?is)^CREATE\s+MATERIALIZED\s+VIEW\s+(\w+)\s+AS\s+(.*?)\s*;?\s*$`), ""},
	{KindDerived, regexp.MustCompile(`(?is)^CREATE\s+STREAM\s+(\w+)\s+AS\s+(.*?)\s*;?\s*$`), "derived_stream"},
	{KindStream, regexp.MustCompile(`(?is)^CREATE\s+STREAM\s+(\w+)\s*\((.*)\)\s*;?\s*$`), ""},
	{KindInsert, regexp.MustCompile(`(?is)^INSERT\s+INTO\s+(\w+)\s+((?:SELECT|WITH)\b.*?)\s*;?\s*$`), "insert_select"},
}

// Views returns the entry's materialized views, which are compared.
func (e *Entry) Views() []Stmt {
	var out []Stmt
	for _, s := range e.Stmts {
		if s.Kind == KindView {
			out = append(out, s)
		}
	}
	return out
}

// Missing returns the features e needs that are not in supported.
func (e *Entry) Missing(supported []string) []string {
	var out []string
	for _, f := range e.Needs {
		if !slices.Contains(supported, f) {
			out = append(out, f)
		}
	}
	return out
}

// Strict reports whether the entry needs every change to reach every
// operator before the next: a lookup join's result depends on whether a
// table row arrived before the stream rows that look it up.
func (e *Entry) Strict() bool { return slices.Contains(e.Needs, "lookup_join") }

// LoadCorpus reads every *.sql file of dir. A file holds entries:
//
//	-- entry: name
//	-- needs: feature, feature
//	-- Any other comment lines describe the entry.
//	CREATE MATERIALIZED VIEW a AS SELECT ...;
//	CREATE MATERIALIZED VIEW b AS SELECT ... FROM a ...;
//	-- sqlite b:
//	SELECT ...;
//
// "-- sqlite <name>:" starts the hand-written SQLite query of a view,
// derived stream or continuous insert (by its target); it runs to the
// next directive or CREATE or INSERT line. Besides views, an entry may
// create streams, derived streams and continuous inserts for its views to
// read (see stmtForms). Entry names are unique across the corpus.
func LoadCorpus(dir string) ([]*Entry, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.sql"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []*Entry
	seen := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		es, err := parseCorpus(filepath.Base(f), string(b))
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			if prev, ok := seen[e.Name]; ok {
				return nil, fmt.Errorf("%s:%d: entry %s is also in %s", e.File, e.Line, e.Name, prev)
			}
			seen[e.Name] = e.File
		}
		out = append(out, es...)
	}
	return out, nil
}

// directive matches the comment lines that mean something to the corpus
// reader: "-- entry: name", "-- needs: a, b", "-- sqlite view:" and
// "-- dml N:".
var directive = regexp.MustCompile(`^--\s*(entry|needs|sqlite\s+(\w+)|dml\s+(\d+))\s*:\s*(.*)$`)

// createLine matches the line that starts an eddy statement.
var createLine = regexp.MustCompile(`(?i)^(CREATE|INSERT)\s`)

// createOnly matches the line that ends a `-- dml N:` block (which may
// hold INSERTs of its own).
var createOnly = regexp.MustCompile(`(?i)^CREATE\s`)

// entryText is an entry being read.
type entryText struct {
	entry     *Entry
	body      []string                    // its eddy SQL
	overrides map[string]*strings.Builder // SQLite queries by view (lower case)
	reading   *strings.Builder            // the SQLite query being read, if any
	dml       *strings.Builder            // the DML block being read, if any
	dmlRound  int                         // its round
	dmlLine   int                         // its directive's line
}

// parseCorpus parses one corpus file.
func parseCorpus(file, src string) ([]*Entry, error) {
	var out []*Entry
	var cur *entryText
	finish := func() error {
		if cur == nil {
			return nil
		}
		if err := cur.finish(); err != nil {
			return err
		}
		out = append(out, cur.entry)
		return nil
	}
	for i, line := range strings.Split(src, "\n") {
		n := i + 1
		trimmed := strings.TrimSpace(line)
		m := directive.FindStringSubmatch(trimmed)
		if m != nil && cur != nil && cur.dml != nil {
			if err := cur.endDML(); err != nil {
				return nil, err
			}
		}
		switch {
		case m != nil && m[1] == "entry":
			if err := finish(); err != nil {
				return nil, err
			}
			if !regexp.MustCompile(`^\w+$`).MatchString(m[4]) {
				return nil, fmt.Errorf("%s:%d: entry name %q is not a word", file, n, m[4])
			}
			cur = &entryText{entry: &Entry{Name: m[4], File: file, Line: n}, overrides: map[string]*strings.Builder{}}
		case cur == nil:
			if trimmed != "" && !strings.HasPrefix(trimmed, "--") {
				return nil, fmt.Errorf("%s:%d: SQL before the first `-- entry:`", file, n)
			}
		case m != nil && m[1] == "needs":
			for _, f := range strings.Split(m[4], ",") {
				f = strings.TrimSpace(f)
				if _, ok := Features[f]; !ok {
					return nil, fmt.Errorf("%s:%d: unknown feature %q (see difftest.Features)", file, n, f)
				}
				cur.entry.Needs = append(cur.entry.Needs, f)
			}
		case m != nil && m[3] != "":
			r, err := strconv.Atoi(m[3])
			if err != nil || r >= rounds {
				return nil, fmt.Errorf("%s:%d: dml round %s is not one of 0..%d", file, n, m[3], rounds-1)
			}
			cur.reading = nil
			cur.dml, cur.dmlRound, cur.dmlLine = &strings.Builder{}, r, n
		case cur.dml != nil && !createOnly.MatchString(trimmed):
			cur.dml.WriteString(line + "\n")
		case m != nil:
			name := strings.ToLower(m[2])
			if _, dup := cur.overrides[name]; dup {
				return nil, fmt.Errorf("%s:%d: a second SQLite query for %s", file, n, name)
			}
			cur.reading = &strings.Builder{}
			cur.overrides[name] = cur.reading
		case cur.reading != nil && !createLine.MatchString(trimmed):
			cur.reading.WriteString(line + "\n")
		case strings.HasPrefix(trimmed, "--") && len(cur.body) == 0:
			cur.entry.Doc += strings.TrimSpace(strings.TrimPrefix(trimmed, "--")) + "\n"
		default:
			if cur.dml != nil {
				if err := cur.endDML(); err != nil {
					return nil, err
				}
			}
			cur.reading = nil
			cur.body = append(cur.body, line)
		}
	}
	if cur != nil && cur.dml != nil {
		if err := cur.endDML(); err != nil {
			return nil, err
		}
	}
	if err := finish(); err != nil {
		return nil, err
	}
	return out, nil
}

// endDML parses the `-- dml N:` block being read into the entry's DML.
func (t *entryText) endDML() error {
	e := t.entry
	pieces, rest := sql.Split(t.dml.String())
	if strings.TrimSpace(rest) != "" {
		return fmt.Errorf("%s:%d: entry %s: a dml statement lacks its ';': %.40q", e.File, t.dmlLine, e.Name, rest)
	}
	if len(pieces) == 0 {
		return fmt.Errorf("%s:%d: entry %s: an empty dml block", e.File, t.dmlLine, e.Name)
	}
	for _, p := range pieces {
		text := strings.TrimSuffix(strings.TrimSpace(p.Text), ";")
		if !dmlForm.MatchString(text) {
			return fmt.Errorf("%s:%d: entry %s: %.50q is not UPDATE, DELETE or INSERT ... VALUES on person or auction",
				e.File, t.dmlLine, e.Name, text)
		}
		e.DML = append(e.DML, DML{Round: t.dmlRound, Text: text})
	}
	t.dml = nil
	return nil
}

// finish parses the eddy statements of an entry into its views and
// attaches their SQLite queries.
func (t *entryText) finish() error {
	e := t.entry
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s:%d: entry %s: %s", e.File, e.Line, e.Name, fmt.Sprintf(format, args...))
	}
	pieces, rest := sql.Split(strings.Join(t.body, "\n"))
	if strings.TrimSpace(rest) != "" {
		return fail("a statement lacks its ';': %.40q", rest)
	}
	for _, p := range pieces {
		st, feature, ok := parseStmt(p.Text)
		if !ok {
			return fail("statement %.50q is none of the forms an entry may hold", p.Text)
		}
		if feature != "" && !slices.Contains(e.Needs, feature) {
			return fail("%.50q needs the feature %s: add it to the entry's needs", p.Text, feature)
		}
		if b, ok := t.overrides[strings.ToLower(st.Name)]; ok && st.Kind != KindStream {
			st.SQLite = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(b.String()), ";"))
			if st.SQLite == "" {
				return fail("empty SQLite query for %s", st.Name)
			}
			delete(t.overrides, strings.ToLower(st.Name))
		}
		e.Stmts = append(e.Stmts, st)
	}
	for name := range t.overrides {
		return fail("SQLite query for %s, which the entry does not create or insert into", name)
	}
	if len(e.Views()) == 0 {
		return fail("creates no view")
	}
	if len(e.DML) > 0 {
		if !slices.Contains(e.Needs, "table_dml") {
			return fail("dml statements: it needs the feature table_dml: add it to the entry's needs")
		}
		if e.Strict() {
			// SQLite's <table>_versions do not follow the entry's DML.
			return fail("dml statements and lookup joins do not mix")
		}
		sort.SliceStable(e.DML, func(i, j int) bool { return e.DML[i].Round < e.DML[j].Round })
	}
	return nil
}

// parseStmt recognizes a statement of an entry and returns the feature its
// form needs.
func parseStmt(text string) (Stmt, string, bool) {
	for _, f := range stmtForms {
		if m := f.re.FindStringSubmatch(text); m != nil {
			return Stmt{Kind: f.kind, Name: m[1], Text: text, Query: m[2]}, f.feature, true
		}
	}
	return Stmt{}, "", false
}
