package difftest

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/engine"
	"github.com/eddysql/eddy/sql"
)

// Result is what one view of eddy holds at the end of a run.
type Result struct {
	View    string
	Columns []engine.Column // SQLite's values are read as these types
	Rows    [][]types.Datum
}

// RunOptions configure a run of an entry on eddy.
type RunOptions struct {
	Parallelism int
	Supported   []string // supported features; "watermark" declares the sources' watermarks
	// TableDML feeds the rows of a table whose key it already holds with
	// UPDATE and DELETE statements rather than INSERT upserts (see
	// feedTable): the tables end each round as they would, so the views'
	// results do not change, but they reach them as the changes of UPDATE
	// and DELETE.
	TableDML bool
}

// eddyRunner runs statements on one in-memory engine.
type eddyRunner struct {
	sess *engine.Session
	dml  bool            // RunOptions.TableDML
	held map[string]bool // with dml: the keys the tables hold, by table and keyOf
	n    int             // with dml: the rows fed to tables so far
	// changed is set once the entry's own DML ran: a key in held may
	// have been deleted since, so feedTable replaces rows by DELETE and
	// INSERT rather than UPDATE.
	changed bool
}

// exec parses and runs a script, returning the last statement's result.
// Notices (skipped rows, failed queries) are errors: the harness's input
// is all valid and every query must keep running.
func (r *eddyRunner) exec(ctx context.Context, script string) (*engine.Result, error) {
	return r.execNoting(ctx, script, nil)
}

// informational matches the notices that only inform: a continuous
// insert says which sink appends its rows.
var informational = regexp.MustCompile(`^the rows of the query are appended to \w+ continuously by sink`)

// execNoting is exec that lets the notices allowed matches through.
func (r *eddyRunner) execNoting(ctx context.Context, script string, allowed *regexp.Regexp) (*engine.Result, error) {
	stmts, err := sql.Parse(script)
	if err != nil {
		return nil, err
	}
	var res *engine.Result
	for _, st := range stmts {
		if res, err = r.sess.Execute(ctx, st); err != nil {
			return nil, err
		}
		for _, n := range res.Notices {
			if allowed == nil || !allowed.MatchString(n) {
				return nil, fmt.Errorf("notices: %s", strings.Join(res.Notices, "; "))
			}
		}
	}
	return res, nil
}

// RunEddy runs an entry on a new in-memory engine: it creates the sources,
// then runs the entry's statements (so that its views see every row as a
// change), then feeds every round of data followed by the entry's DML for
// the round, with a FLUSH after some rounds and at the end, and returns
// what each view holds.
func RunEddy(ctx context.Context, d *Data, e *Entry, opts RunOptions) ([]*Result, error) {
	eng, err := engine.Open(ctx, engine.Config{Parallelism: opts.Parallelism})
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	r := &eddyRunner{sess: eng.NewSession(engine.SessionOptions{}), dml: opts.TableDML, held: map[string]bool{}}
	watermarks := slices.Contains(opts.Supported, "watermark")
	for _, s := range d.Sources {
		if _, err := r.exec(ctx, s.DDL(watermarks)); err != nil {
			return nil, fmt.Errorf("creating %s: %w", s.Name, err)
		}
	}
	for _, st := range e.Stmts {
		var allowed *regexp.Regexp
		if st.Kind == KindInsert {
			allowed = informational
		}
		if _, err := r.execNoting(ctx, st.Text, allowed); err != nil {
			return nil, fmt.Errorf("%.40s...: %w", strings.Join(strings.Fields(st.Text), " "), err)
		}
	}
	strict := e.Strict()
	for i, rd := range d.Rounds {
		if err := r.feed(ctx, d, rd.Tables); err != nil {
			return nil, fmt.Errorf("round %d: %w", i, err)
		}
		if strict {
			if _, err := r.exec(ctx, "FLUSH;"); err != nil {
				return nil, fmt.Errorf("round %d: %w", i, err)
			}
		}
		if err := r.feed(ctx, d, rd.Streams); err != nil {
			return nil, fmt.Errorf("round %d: %w", i, err)
		}
		for _, m := range e.DML {
			if m.Round != i {
				continue
			}
			if _, err := r.exec(ctx, m.Text+";"); err != nil {
				return nil, fmt.Errorf("round %d: %s: %w", i, m.Text, err)
			}
			r.changed = true
		}
		if rd.Flush || strict || i == len(d.Rounds)-1 {
			if _, err := r.exec(ctx, "FLUSH;"); err != nil {
				return nil, fmt.Errorf("round %d: %w", i, err)
			}
		}
	}
	var out []*Result
	for _, v := range e.Views() {
		res, err := r.exec(ctx, "SELECT * FROM "+v.Name+";")
		if err != nil {
			return nil, fmt.Errorf("reading view %s: %w", v.Name, err)
		}
		out = append(out, &Result{View: v.Name, Columns: res.Columns, Rows: res.Rows})
	}
	return out, nil
}

// feed inserts batches, one INSERT statement each (but see feedTable).
func (r *eddyRunner) feed(ctx context.Context, d *Data, batches []Batch) error {
	for _, b := range batches {
		if len(b.Rows) == 0 {
			continue
		}
		if src := d.Source(b.Source); r.dml && src.Table {
			if err := r.feedTable(ctx, src, b); err != nil {
				return err
			}
			continue
		}
		if _, err := r.exec(ctx, insertSQL(b)); err != nil {
			return fmt.Errorf("inserting into %s: %w", b.Source, err)
		}
	}
	return nil
}

// feedTable feeds a table's batch in order: rows of new keys by INSERT,
// and each row of a key the table holds by UPDATE t SET (every column but
// the key) WHERE key, or, every third one, by DELETE FROM t WHERE key then
// an INSERT of the row, so that the views see deletions, updates that
// change nothing (the generator repeats rows) and keys coming back.
func (r *eddyRunner) feedTable(ctx context.Context, src *Source, b Batch) error {
	var pending []Row
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		_, err := r.exec(ctx, insertSQL(Batch{Source: b.Source, Rows: pending}))
		pending = nil
		return err
	}
	for _, row := range b.Rows {
		k := b.Source + "\x00" + src.keyOf(row)
		if !r.held[k] {
			r.held[k] = true
			pending = append(pending, row)
			continue
		}
		if err := flush(); err != nil {
			return fmt.Errorf("inserting into %s: %w", b.Source, err)
		}
		var where, set []string
		for i, c := range src.Columns {
			eq := c.Name + " = " + row[i].Literal()
			if slices.Contains(src.Key, c.Name) {
				where = append(where, eq)
			} else {
				set = append(set, eq)
			}
		}
		cond := " WHERE " + strings.Join(where, " AND ") + ";"
		r.n++
		stmt := "UPDATE " + b.Source + " SET " + strings.Join(set, ", ") + cond
		if r.n%3 == 0 || r.changed {
			stmt = "DELETE FROM " + b.Source + cond + " " + insertSQL(Batch{Source: b.Source, Rows: []Row{row}})
		}
		if _, err := r.exec(ctx, stmt); err != nil {
			return fmt.Errorf("changing %s: %s: %w", b.Source, stmt, err)
		}
	}
	if err := flush(); err != nil {
		return fmt.Errorf("inserting into %s: %w", b.Source, err)
	}
	return nil
}

// insertSQL renders a batch as one INSERT statement.
func insertSQL(b Batch) string {
	var sb strings.Builder
	sb.WriteString("INSERT INTO " + b.Source + " VALUES ")
	for i, row := range b.Rows {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteByte('(')
		for j, v := range row {
			if j > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(v.Literal())
		}
		sb.WriteByte(')')
	}
	sb.WriteByte(';')
	return sb.String()
}
