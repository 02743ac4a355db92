package verify

import (
	"context"
	dbsql "database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/engine/difftest"
	"github.com/eddysql/eddy/sql"
)

// queryDir holds the Nexmark queries: the package nexmark/queries, which
// embeds them in eddy.
const queryDir = "../queries"

// queries are the queries verified, q0 to q22.
var queries = func() []string {
	var out []string
	for i := 0; i <= 22; i++ {
		out = append(out, fmt.Sprintf("q%d", i))
	}
	return out
}()

// parallelisms are the parallelisms eddy runs each query at: the final
// result must not depend on them.
var parallelisms = []int{1, 3}

// TestNexmarkVerified runs every Nexmark query on eddy over the run's
// events and compares its final result with SQLite's batch evaluation of
// the same query over the dumped events (see the package documentation).
func TestNexmarkVerified(t *testing.T) {
	ctx := context.Background()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-5*time.Second))
		defer cancel()
	}
	dump := t.TempDir()
	if err := dumpEvents(ctx, dump); err != nil {
		t.Fatalf("dumping the events: %v", err)
	}
	data, err := loadEvents(dump, filepath.Join(queryDir, "side_input.csv"))
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, s := range data.Sources {
		counts[s.Name] = len(data.Final(s.Name))
	}
	t.Logf("events: %d persons, %d auctions, %d bids", counts["person"], counts["auction"], counts["bid"])
	if n := int64(counts["person"] + counts["auction"] + counts["bid"]); n != *events {
		t.Fatalf("the dump holds %d events, want %d", n, *events)
	}
	db, err := difftest.OpenSQLite(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range queries {
		t.Run(q, func(t *testing.T) { verify(ctx, t, db, data, q) })
	}
}

// unsupported matches the errors of a query eddy cannot run yet: the
// planner's "not supported yet", or a plan node the runtime does not have.
var unsupported = regexp.MustCompile(`not supported yet|no runtime for`)

// verify checks one query at every parallelism.
func verify(ctx context.Context, t *testing.T, db *dbsql.DB, data *difftest.Data, q string) {
	file := filepath.Join(queryDir, q+".sql")
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	stmts, sink, err := asView(string(src))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	want, err := sqliteResult(ctx, db, q, sink.Query.Text)
	if err != nil {
		t.Fatalf("SQLite: %v", err)
	}
	if len(want.Values) == 0 {
		t.Fatalf("SQLite's result is empty: the check would prove nothing\n%s", want.SQL)
	}
	t.Logf("%d rows in SQLite", len(want.Values))
	if err := checkNoTies(ctx, db, q); err != nil {
		if !defaultRun() {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	for _, p := range parallelisms {
		got, err := runEddy(ctx, t.TempDir(), stmts, sink.Name.Name, p)
		if err != nil {
			if unsupported.MatchString(err.Error()) {
				t.Skipf("eddy cannot run %s yet: %v", q, err)
			}
			t.Fatalf("parallelism %d: eddy: %v", p, err)
		}
		if q == "q12" {
			got, err = proctimeProperty(got)
			if err != nil {
				t.Fatalf("parallelism %d: %v", p, err)
			}
		}
		diff, err := difftest.Compare(got, want)
		if err != nil {
			t.Fatalf("parallelism %d: %v", p, err)
		}
		if !diff.Empty() && q == "q19" {
			if terr := checkTopNTies(ctx, db, data, got, want); terr != nil {
				t.Errorf("parallelism %d: %v", p, terr)
			} else {
				t.Logf("parallelism %d: eddy and SQLite differ only in which bids of equal price fill the last ranks:\n%s", p, diff)
			}
			continue
		}
		if !diff.Empty() {
			t.Errorf("parallelism %d: %d rows in eddy, %d in SQLite\nSQLite ran:\n%s\n%s",
				p, len(got.Rows), len(want.Values), want.SQL, diff)
		}
	}
	if q == "q10" {
		checkPartitions(ctx, t, sink, want)
	}
}

// asView returns the statements of a query file with its sink made a
// materialized view of the same name (the sink's connector dropped), so
// that the final result can be read; and the sink statement itself.
func asView(src string) (stmts []string, sink *sql.CreateSink, err error) {
	parsed, err := sql.Parse(src)
	if err != nil {
		return nil, nil, err
	}
	for _, st := range parsed {
		if cs, ok := st.(*sql.CreateSink); ok && cs.Query != nil {
			if sink != nil {
				return nil, nil, errors.New("more than one sink")
			}
			sink = cs
			stmts = append(stmts, "CREATE MATERIALIZED VIEW "+cs.Name.Name+" AS "+cs.Query.Text+";")
			continue
		}
		stmts = append(stmts, st.Source().Text()+";")
	}
	if sink == nil {
		return nil, nil, errors.New("no CREATE SINK ... AS SELECT")
	}
	return stmts, sink, nil
}

// runEddy runs the statements on a new engine at parallelism p, with a
// FLUSH after each so that a table (q13's side input) is loaded before
// the query that looks rows up in it starts, and reads the view once the
// bounded streams have been read to their end.
func runEddy(ctx context.Context, dir string, stmts []string, view string, p int) (*difftest.Result, error) {
	if err := copySideInput(dir); err != nil {
		return nil, err
	}
	s, err := newSession(ctx, dir, p)
	if err != nil {
		return nil, err
	}
	defer s.close()
	for _, st := range stmts {
		if _, err := s.exec(ctx, st+"\nFLUSH;"); err != nil {
			return nil, err
		}
	}
	res, err := s.exec(ctx, "SELECT * FROM "+view+";")
	if err != nil {
		return nil, err
	}
	return &difftest.Result{View: view, Columns: res.Columns, Rows: res.Rows}, nil
}

// copySideInput copies q13's side input into dir, where the query's
// relative path resolves (as the bench's scratch directory has it).
func copySideInput(dir string) error {
	b, err := os.ReadFile(filepath.Join(queryDir, "side_input.csv"))
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "side_input.csv"), b, 0o644)
}

// sqliteResult runs query q in SQLite: hand-written in sqlite/q.sql when
// the translator cannot express it, otherwise eddy's query text
// translated by difftest.Translate.
func sqliteResult(ctx context.Context, db *dbsql.DB, q, eddyText string) (*difftest.SQLiteResult, error) {
	text, err := os.ReadFile(filepath.Join("sqlite", q+".sql"))
	switch {
	case err == nil:
	case errors.Is(err, fs.ErrNotExist):
		tr, err := difftest.Translate(eddyText, func(rel string) ([]string, error) { return difftest.TableColumns(ctx, db, rel) })
		if err != nil {
			return nil, fmt.Errorf("translating: %w", err)
		}
		text = []byte(tr)
	default:
		return nil, err
	}
	res, err := difftest.Query(ctx, db, string(text))
	if err != nil {
		return nil, fmt.Errorf("%w\n%s", err, text)
	}
	res.View, res.SQL = q, string(text)
	return res, nil
}

// proctimeProperty reduces q12's result (bidder, bid_count, window_start,
// window_end in processing time) to what does not depend on when eddy ran:
// each bidder's bids summed over all windows. It checks that every window
// is 10 s long and starts at a multiple of 10 s.
func proctimeProperty(r *difftest.Result) (*difftest.Result, error) {
	const size = 10_000
	names := make([]string, len(r.Columns))
	for i, c := range r.Columns {
		names[i] = c.Name
	}
	if strings.Join(names, ",") != "bidder,bid_count,window_start,window_end" {
		return nil, fmt.Errorf("q12 has columns %s", strings.Join(names, ", "))
	}
	sums := map[int64]int64{}
	var order []int64
	for _, row := range r.Rows {
		start, end := row[2].I, row[3].I
		if row[2].Null || row[3].Null || end-start != size || start%size != 0 {
			return nil, fmt.Errorf("q12 row %s %s: not a 10-second window aligned to 10 s",
				types.Format(row[2], r.Columns[2].Type), types.Format(row[3], r.Columns[3].Type))
		}
		if _, ok := sums[row[0].I]; !ok {
			order = append(order, row[0].I)
		}
		sums[row[0].I] += row[1].I
	}
	out := &difftest.Result{View: r.View, Columns: r.Columns[:2]}
	for _, b := range order {
		out.Rows = append(out.Rows, []types.Datum{types.IntDatum(b), types.IntDatum(sums[b])})
	}
	return out, nil
}
