package engine

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/planner"
	"github.com/eddysql/eddy/sql"
)

// roundTripScript creates an object of every kind and shape SHOW CREATE
// must reproduce: odd names, NOT NULL, compound keys, a watermark, stream
// options (dedup, late rows, idle timeout), a connector that gives the
// columns, quotes in option values, state TTLs, sinks FROM a view and AS a
// query, a continuous INSERT with a column list, a view with a comment and
// EMIT ON WINDOW CLOSE.
const roundTripScript = `
CREATE STREAM late_bids (auction BIGINT NOT NULL, price BIGINT, s VARCHAR, date_time TIMESTAMP(3));
CREATE STREAM bid (auction BIGINT NOT NULL, price BIGINT, ` + "`select`" + ` VARCHAR, date_time TIMESTAMP(3),
  WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND)
  WITH (idle_timeout = '2s', late_rows_to = 'late_bids', dedup_key = 'auction', dedup_window = '1 hour');
CREATE STREAM ` + "`odd name`" + ` (a BIGINT, b VARCHAR) WITH (connector = 'file', path = 'it''s.csv', format = 'csv', header = 'true');
CREATE STREAM nx WITH (connector = 'nexmark', table = 'bid', events = '100');
CREATE TABLE inventory (store VARCHAR, sku VARCHAR, qty INT NOT NULL, note VARCHAR, PRIMARY KEY (store, sku));
CREATE TABLE log (at TIMESTAMP(3) NOT NULL, line VARCHAR);
CREATE MATERIALIZED VIEW per_window WITH (state_ttl = '90m') AS
  SELECT window_start, COUNT(*) AS n -- a comment
  FROM TUMBLE(bid, date_time, INTERVAL '10' SECOND)
  GROUP BY window_start, window_end EMIT ON WINDOW CLOSE;
CREATE MATERIALIZED VIEW ` + "`select`" + ` AS SELECT a AS ` + "`x y`" + `, COUNT(*) AS n FROM ` + "`odd name`" + ` GROUP BY a;
CREATE STREAM big WITH (state_ttl = '1500ms') AS SELECT * FROM bid WHERE price > 10;
CREATE SINK k FROM per_window WITH (connector = 'blackhole');
CREATE SINK k2 AS SELECT auction, price FROM bid WITH (connector = 'file', path = 'out.jsonl', format = 'json', state_ttl = '1h');
CREATE STREAM ins (a BIGINT, b BIGINT);
INSERT INTO ins (b, a) SELECT price, auction FROM bid;
`

// TestShowCreateRecreatesEveryObject runs SHOW CREATE on every object of
// an engine, runs the statements in creation order on an empty engine, and
// checks that every object there equals the original (but for its ID and
// the white space of its query) and that SHOW CREATE prints the same
// statement for it.
func TestShowCreateRecreatesEveryObject(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "it's.csv"), []byte("a,b\n1,x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := newSession(t, Config{FileRoot: dir, Parallelism: 1})
	run(t, src, roundTripScript)
	objs := src.eng.cat.List(0)
	slices.SortFunc(objs, func(a, b *catalog.Object) int { return int(a.ID) - int(b.ID) })
	stmts := map[string]string{}
	dst := newSession(t, Config{FileRoot: dir, Parallelism: 1})
	for _, o := range objs {
		res := run(t, src, "SHOW CREATE "+sql.QuoteIdent(o.Name)+";")
		if len(res.Rows) != 1 || res.Rows[0][0].S != o.Name {
			t.Fatalf("SHOW CREATE %s: %s", o.Name, text(res))
		}
		stmt := res.Rows[0][1].S
		stmts[o.Name] = stmt
		if _, err := execOne(t, dst, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	for _, o := range objs {
		got, ok := dst.eng.cat.Get(o.Name)
		if !ok {
			t.Errorf("%s: not recreated by %s", o.Name, stmts[o.Name])
			continue
		}
		want := *o
		have := *got
		want.ID, have.ID = 0, 0
		want.Query, have.Query = sql.NormalizeSpace(want.Query), sql.NormalizeSpace(have.Query)
		if !reflect.DeepEqual(want, have) {
			t.Errorf("%s: recreated by\n  %s\nas\n  %+v\nwant\n  %+v", o.Name, stmts[o.Name], have, want)
		}
		again := run(t, dst, "SHOW CREATE "+sql.QuoteIdent(o.Name)+";").Rows[0][1].S
		if again != stmts[o.Name] {
			t.Errorf("%s: SHOW CREATE of the copy is\n  %s\nnot\n  %s", o.Name, again, stmts[o.Name])
		}
	}
	for name, want := range map[string]string{
		"bid": "CREATE STREAM bid (auction BIGINT NOT NULL, price BIGINT, `select` VARCHAR, date_time TIMESTAMP(3), " +
			"WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND) WITH (dedup_key = 'auction', dedup_window = '1 hour', " +
			"idle_timeout = '2s', late_rows_to = 'late_bids')",
		"per_window": "CREATE MATERIALIZED VIEW per_window WITH (state_ttl = '90m') AS SELECT window_start, COUNT(*) AS n " +
			"FROM TUMBLE(bid, date_time, INTERVAL '10' SECOND) GROUP BY window_start, window_end EMIT ON WINDOW CLOSE",
		"k":                 "CREATE SINK k FROM per_window WITH (connector = 'blackhole')",
		"insert_into_ins_1": "INSERT INTO ins (b, a) SELECT price, auction FROM bid",
	} {
		if stmts[name] != want {
			t.Errorf("SHOW CREATE %s:\n  %s\nwant\n  %s", name, stmts[name], want)
		}
	}
}

// TestShowCreateErrors checks the errors of SHOW CREATE: an unknown name,
// and a name of another kind than the one asked for, both at the name.
func TestShowCreateErrors(t *testing.T) {
	s := newSession(t, Config{})
	run(t, s, "CREATE STREAM bid (a BIGINT);")
	for stmt, want := range map[string]string{
		"SHOW CREATE nope":                  "unknown stream, table, materialized view or sink 'nope' at 1:13",
		"SHOW CREATE SINK nope":             "unknown sink 'nope' at 1:18",
		"SHOW CREATE TABLE bid":             "'bid' is a stream, not a table at 1:19 (use SHOW CREATE STREAM bid)",
		"SHOW CREATE MATERIALIZED VIEW bid": "'bid' is a stream, not a materialized view at 1:31 (use SHOW CREATE STREAM bid)",
	} {
		_, err := execOne(t, s, stmt)
		var be *planner.BindError
		if err == nil || !errors.As(err, &be) || err.Error() != want {
			t.Errorf("%s: %v, want %s", stmt, err, want)
		}
	}
	_, err := execOne(t, s, "SHOW CREATE nope")
	if !catalog.IsCode(err, catalog.ErrNotFound) {
		t.Errorf("an unknown name's error has no ErrNotFound code: %v", err)
	}
}

// TestDescribeShowsWatermarkAndOptions checks the rows DESCRIBE adds after
// the columns.
func TestDescribeShowsWatermarkAndOptions(t *testing.T) {
	s := newSession(t, Config{})
	run(t, s, `CREATE STREAM bid (a BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '4' SECOND) WITH (idle_timeout = '2s');
CREATE STREAM nx WITH (connector = 'nexmark', table = 'person', events = '10');
CREATE STREAM ins (a BIGINT);
INSERT INTO ins SELECT a FROM bid;`)
	for name, want := range map[string]string{
		"bid":               "a | BIGINT | YES | \nts | TIMESTAMP(3) | YES | \nwatermark | ts - INTERVAL '4' SECOND | NULL | NULL\noption idle_timeout | 2s | NULL | NULL\n",
		"ins":               "a | BIGINT | YES | \n",
		"insert_into_ins_1": "a | BIGINT | YES | \ninserts into | ins | NULL | NULL\n",
	} {
		if got := text(run(t, s, "DESCRIBE "+name+";")); got != want {
			t.Errorf("DESCRIBE %s:\n%s\nwant\n%s", name, got, want)
		}
	}
	got := text(run(t, s, "DESCRIBE nx;"))
	if !strings.HasSuffix(got, "connector | nexmark | NULL | NULL\noption events | 10 | NULL | NULL\noption table | person | NULL | NULL\n") {
		t.Errorf("DESCRIBE nx:\n%s", got)
	}
}
