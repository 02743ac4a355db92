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
}

// eddyRunner runs statements on one in-memory engine.
type eddyRunner struct {
	sess *engine.Session
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
// change), then
// feeds every round of data, with a FLUSH after some rounds and at the end,
// and returns what each view holds.
func RunEddy(ctx context.Context, d *Data, e *Entry, opts RunOptions) ([]*Result, error) {
	eng, err := engine.Open(ctx, engine.Config{Parallelism: opts.Parallelism})
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	r := &eddyRunner{sess: eng.NewSession(engine.SessionOptions{})}
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

// feed inserts batches, one INSERT statement each.
func (r *eddyRunner) feed(ctx context.Context, d *Data, batches []Batch) error {
	for _, b := range batches {
		if len(b.Rows) == 0 {
			continue
		}
		if _, err := r.exec(ctx, insertSQL(b)); err != nil {
			return fmt.Errorf("inserting into %s: %w", b.Source, err)
		}
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
