package difftest

import (
	"context"
	"flag"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// supported lists the features (see Features) that eddy runs today. Add a
// feature here when it lands: its entries then run, and must pass.
var supported = []string{
	"watermark", "window", "session", "emit_on_close", "topn", "dedup", "union",
	"derived_stream", "insert_select", "join", "outer_join", "lookup_join", "interval_join", "semi_join",
	"setop", "window_func", "table_dml", "subquery_scalar", "subquery_expr",
}

// Flags to look for bugs beyond the default run.
var (
	all   = flag.Bool("oracle.all", false, "also run the oracle entries that wait for unsupported features")
	seed  = flag.Uint64("oracle.seed", 20240301, "the seed of the oracle's generated data")
	scale = flag.Int("oracle.scale", 1, "multiply the oracle's generated data by this factor")
)

// corpusDir holds the corpus, at the repository's testdata/oracle.
const corpusDir = "../../../testdata/oracle"

// minEntries keeps the corpus from shrinking by accident.
const minEntries = 40

// parallelismsOf returns the parallelisms the i-th entry runs at: results
// must not depend on them. Every entry runs at 1 and, in turn, at 2 or 4
// (each of those on half the corpus: what a parallelism breaks shows in
// many entries), so the corpus costs two runs an entry, not three; under
// the race detector, whose point is the parallel runs, only the second.
func parallelismsOf(i int) []int {
	p := 2 + 2*(i%2)
	if raceEnabled {
		return []int{p}
	}
	return []int{1, p}
}

// TestOracle runs every corpus entry on eddy at each parallelism and
// compares each view with SQLite's batch result for the same query.
func TestOracle(t *testing.T) {
	entries, err := LoadCorpus(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < minEntries {
		t.Fatalf("the corpus has %d entries, want at least %d", len(entries), minEntries)
	}
	data := Generate(*seed, *scale)
	for i, e := range entries {
		t.Run(e.Name, func(t *testing.T) {
			if missing := e.Missing(supported); len(missing) > 0 && !*all {
				t.Skipf("waiting for %s", strings.Join(missing, ", "))
			}
			t.Parallel()
			runEntryWith(t, data, e, parallelismsOf(i), false)
		})
	}
}

// readsTable matches the statements that read a table of the generated
// data (not a column called auction).
var readsTable = regexp.MustCompile(`(?i)\b(FROM|JOIN)\s+(person|auction)\b`)

// TestOracleTableDML runs the entries that read a table with the tables
// fed by UPDATE and DELETE statements (RunOptions.TableDML) at parallelism
// 2: the views must end as SQLite's results all the same.
func TestOracleTableDML(t *testing.T) {
	entries, err := LoadCorpus(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	data := Generate(*seed, *scale)
	ran := 0
	for _, e := range entries {
		if !slices.ContainsFunc(e.Stmts, func(st Stmt) bool { return readsTable.MatchString(st.Text) }) {
			continue
		}
		if missing := e.Missing(supported); len(missing) > 0 && !*all {
			continue
		}
		ran++
		t.Run(e.Name, func(t *testing.T) {
			t.Parallel()
			runEntryWith(t, data, e, []int{2}, true)
		})
	}
	if ran < 10 {
		t.Errorf("only %d entries read a table: the test checks little", ran)
	}
}

// runEntryWith runs one entry on SQLite once and on eddy at each of ps,
// with the tables fed by UPDATE and DELETE when dml is set.
func runEntryWith(t *testing.T, data *Data, e *Entry, ps []int, dml bool) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db, err := OpenSQLite(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	want, err := RunSQLite(ctx, db, data, e)
	if err != nil {
		t.Fatalf("%s:%d: SQLite: %v", e.File, e.Line, err)
	}
	for _, w := range want {
		t.Logf("view %s: %d rows in SQLite", w.View, len(w.Values))
	}
	// seen is the first difference reported per view, and at which
	// parallelism, so that the same difference is not printed again.
	type report struct {
		p    int
		diff string
	}
	seen := map[string]report{}
	for _, p := range ps {
		t.Run(fmt.Sprintf("p%d", p), func(t *testing.T) {
			got, err := RunEddy(ctx, data, e, RunOptions{Parallelism: p, Supported: supported, TableDML: dml})
			if err != nil {
				t.Fatalf("%s:%d: eddy: %v", e.File, e.Line, err)
			}
			for i, v := range e.Views() {
				diff, err := Compare(got[i], want[i])
				if err != nil {
					t.Fatalf("%s:%d: %v", e.File, e.Line, err)
				}
				switch {
				case diff.Empty():
				case seen[v.Name].diff == diff.String():
					t.Errorf("%s:%d: view %s differs as at parallelism %d", e.File, e.Line, v.Name, seen[v.Name].p)
				default:
					seen[v.Name] = report{p, diff.String()}
					t.Errorf("%s:%d: view %s differs (%d rows in eddy, %d in SQLite)\neddy:\n%s\nSQLite:\n%s\n%s",
						e.File, e.Line, v.Name, len(got[i].Rows), len(want[i].Values),
						indent(v.Text), indent(want[i].SQL), diff)
				}
			}
		})
	}
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n    ")
}

// TestOracleSQLite runs the SQLite side of every entry, including those
// that wait for eddy features, so that a translation that SQLite rejects
// is found before the feature lands.
func TestOracleSQLite(t *testing.T) {
	entries, err := LoadCorpus(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	data := Generate(*seed, 1)
	db, err := OpenSQLite(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, e := range entries {
		// A bounded wait per entry: a query that hangs fails naming its
		// entry, not the whole package at the test binary's timeout.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if len(e.DML) > 0 {
			// Its DML changes the tables: it gets a database of its own.
			own, err := OpenSQLite(ctx, data)
			if err != nil {
				t.Fatal(err)
			}
			res, err := RunSQLite(ctx, own, data, e)
			own.Close()
			checkSQLite(t, e, res, err)
			continue
		}
		for _, st := range e.Stmts {
			drop := "DROP VIEW IF EXISTS "
			if st.Kind == KindStream {
				drop = "DROP TABLE IF EXISTS "
			}
			if _, err := db.ExecContext(ctx, drop+st.Name); err != nil {
				t.Fatal(err)
			}
		}
		res, err := RunSQLite(ctx, db, data, e)
		checkSQLite(t, e, res, err)
	}
}

// checkSQLite reports an entry's SQLite error or empty views (see
// TestOracleSQLite).
func checkSQLite(t *testing.T, e *Entry, res []*SQLiteResult, err error) {
	t.Helper()
	if err != nil {
		t.Errorf("%s:%d: entry %s: %v", e.File, e.Line, e.Name, err)
		return
	}
	for _, r := range res {
		if len(r.Values) == 0 && !slices.Contains(emptyViews, e.Name+"."+r.View) {
			t.Errorf("%s:%d: entry %s: view %s is empty in SQLite: it checks nothing", e.File, e.Line, e.Name, r.View)
		}
	}
}

// emptyViews are the views (entry.view) whose empty result is the point
// of the check.
var emptyViews = []string{"not_in_with_nulls.not_in", "having_without_group_by.dropped",
	"global_over_empty_view.never", "global_over_empty_view.briefly"}
