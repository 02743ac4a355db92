package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/engine"
	"github.com/eddysql/eddy/sql"
)

// identityScript is run by TestResultsAreTheEngines on an embedded
// engine and through a server: every column type, NULLs, extreme values,
// OK results with their tags, notices, SHOW, DESCRIBE, EXPLAIN, a push
// query to its LIMIT, and errors at positions inside the script (on a
// later line, after another statement on the same line, on a long line).
const identityScript = `CREATE STREAM s (a BIGINT, i INT, sm SMALLINT, ti TINYINT, b VARCHAR, c DOUBLE, fl FLOAT,
  d DECIMAL(10,2), d0 DECIMAL(38,0), t TIMESTAMP(3), t0 TIMESTAMP, t1 TIMESTAMP(1), day DATE, f BOOLEAN);
INSERT INTO s VALUES
  (1, 10, 3, -4, 'x', 1.5, 2.5, 2.25, 12345678901234567890123456789012345678, '2024-01-01 00:00:01.500',
   '2024-01-01 10:00:00', '1999-12-31 23:59:59.9', '2024-02-29', true),
  (2, -2147483648, -32768, 127, '', -0.0, 1e300, -99999999.99, -1, '0001-01-01 00:00:00',
   '9999-12-31 23:59:59', '1970-01-01 00:00:00.1', '0001-01-01', false),
  (9223372036854775807, NULL, NULL, NULL, 'multi\nline ünïcødé ''q''', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
SELECT * FROM s ORDER BY a;
SELECT a, c / 0 AS q, CAST('Infinity' AS DOUBLE) AS inf, CAST('NaN' AS DOUBLE) AS nan, 1e-7 AS small, -c AS negz,
  CAST(a AS VARCHAR) AS av, d * 2 AS dd, NULL AS n, f AND a > 1 AS g FROM s ORDER BY a;
SELECT a FROM s WHERE a > 100 ORDER BY a;
CREATE TABLE dim (k BIGINT, v VARCHAR, PRIMARY KEY (k));
INSERT INTO dim VALUES (1, 'one');
INSERT INTO dim SELECT a, b FROM s WHERE a > 1;
UPDATE dim SET v = 'uno' WHERE k = 1;
DELETE FROM dim WHERE k > 1;
CREATE MATERIALIZED VIEW v AS SELECT f, COUNT(*) AS n, SUM(d) AS total FROM s GROUP BY f;
FLUSH;
SELECT * FROM v ORDER BY n, f;
CREATE STREAM IF NOT EXISTS s (a BIGINT);
DROP SINK IF EXISTS nope;
SHOW STREAMS; SHOW TABLES;
SHOW MATERIALIZED VIEWS;
DESCRIBE s;
EXPLAIN SELECT b, COUNT(*) FROM s GROUP BY b;
SET parallelism = 1;
EXPLAIN SELECT b, COUNT(*) FROM s GROUP BY b;
EXPLAIN LOGICAL SELECT a FROM s WHERE a > 1;
SELECT a, b FROM s EMIT CHANGES LIMIT 2;
CREATE STREAM src (k BIGINT);
INSERT INTO s (a) SELECT k FROM src;
DROP SINK insert_into_s_1;
DROP MATERIALIZED VIEW v;
SELECT 1 AS one;   SELECT
  nope FROM s;
SELECT a FROM nope;
CREATE STREAM s (x BIGINT);
SELECT a, CAST(b AS BIGINT) AS bad FROM s;
SELECT a, c / 0 AS q, CAST('Infinity' AS DOUBLE) AS inf, CAST('NaN' AS DOUBLE) AS nan, 1e-7 AS small, -c AS negz, a + 1 AS ovf FROM s;
SET nonsense = 1;
SELECT a FROM s LIMIT 1 EMIT CHANGES;
`

// TestResultsAreTheEngines runs the same statements on an embedded
// engine and through a server, and checks that every result and error is
// the same: kinds, tags, column names and types, values, notices,
// preformatted text, and errors' messages, script positions and
// snippets.
func TestResultsAreTheEngines(t *testing.T) {
	local := openEngine(t, "").NewSession(engine.SessionOptions{Interactive: true})
	remote := dial(t, startServer(t))
	var failed, notices int
	for _, st := range parseScript(t, identityScript) {
		text := st.Source().Text()
		want, werr := local.Execute(context.Background(), st)
		got, gerr := remote.Execute(context.Background(), st)
		if (werr == nil) != (gerr == nil) {
			t.Errorf("%s:\nembedded error %v\nremote error   %v", text, werr, gerr)
			continue
		}
		if werr != nil {
			failed++
			if d := diffErrors(werr, gerr); d != "" {
				t.Errorf("%s:\n%s", text, d)
			}
			continue
		}
		notices += len(want.Notices)
		if d := diffResults(want, got); d != "" {
			t.Errorf("%s:\n%s", text, d)
		}
	}
	// Six statements near the end fail, and three notices are for IF
	// [NOT] EXISTS and the continuous INSERT.
	if failed != 6 || notices != 3 {
		t.Errorf("%d statements failed and %d notices came, want 6 and 3: the script does not test what it should", failed, notices)
	}
}

// diffErrors says how a remote error differs from the embedded one.
func diffErrors(want, got error) string {
	var b strings.Builder
	if want.Error() != got.Error() {
		fmt.Fprintf(&b, "message %q, want %q\n", got.Error(), want.Error())
	}
	var wp, gp sql.PosError
	wok, gok := errors.As(want, &wp), errors.As(got, &gp)
	switch {
	case wok != gok:
		fmt.Fprintf(&b, "positioned: %v, want %v\n", gok, wok)
	case wok:
		if w, g := wp.Position(), gp.Position(); w.Line != g.Line || w.Col != g.Col {
			fmt.Fprintf(&b, "position %d:%d, want %d:%d\n", g.Line, g.Col, w.Line, w.Col)
		}
		if wp.Snippet() != gp.Snippet() {
			fmt.Fprintf(&b, "snippet\n%s\nwant\n%s\n", gp.Snippet(), wp.Snippet())
		}
	}
	return b.String()
}

// diffResults says how a remote result differs from the embedded one.
// The server sends eddy's FLOAT as DOUBLE (both are 64-bit and print
// alike), so the two count as one type.
func diffResults(want, got *engine.Result) string {
	var b strings.Builder
	if want.Kind != got.Kind {
		fmt.Fprintf(&b, "kind %v, want %v\n", got.Kind, want.Kind)
	}
	if want.Kind == engine.ResultOK && want.Tag != got.Tag {
		fmt.Fprintf(&b, "tag %q, want %q\n", got.Tag, want.Tag)
	}
	if want.Preformatted != got.Preformatted {
		fmt.Fprintf(&b, "preformatted %v, want %v\n", got.Preformatted, want.Preformatted)
	}
	if !reflect.DeepEqual(want.Notices, got.Notices) {
		fmt.Fprintf(&b, "notices %q, want %q\n", got.Notices, want.Notices)
	}
	norm := func(cols []engine.Column) []engine.Column {
		out := append([]engine.Column(nil), cols...)
		for i := range out {
			if out[i].Type.Kind == types.Float {
				out[i].Type = types.DoubleT
			}
		}
		return out
	}
	if w, g := norm(want.Columns), norm(got.Columns); !reflect.DeepEqual(w, g) {
		fmt.Fprintf(&b, "columns %v, want %v\n", g, w)
	}
	wrows, grows := want.Rows, got.Rows
	if want.Kind == engine.ResultStream && got.Kind == engine.ResultStream {
		wrows, grows = readStream(want.Stream), readStream(got.Stream)
	}
	if w, g := formatRows(want.Columns, wrows), formatRows(got.Columns, grows); !reflect.DeepEqual(w, g) {
		fmt.Fprintf(&b, "rows\n%s\nwant\n%s\n", strings.Join(g, "\n"), strings.Join(w, "\n"))
	}
	return b.String()
}

// readStream reads a push query to its end (its LIMIT).
func readStream(s *engine.Stream) [][]types.Datum {
	defer s.Close()
	var out [][]types.Datum
	for {
		batch, err := s.Next(context.Background())
		out = append(out, batch...)
		if err != nil {
			if err != io.EOF {
				out = append(out, []types.Datum{types.StringDatum("error: " + err.Error())})
			}
			return out
		}
	}
}

// TestTags checks the tags of the statements that answer OK, which the
// server does not send: TestResultsAreTheEngines compares them with the
// engine's, and this covers every statement kind okTag knows.
func TestTags(t *testing.T) {
	for _, tc := range []struct {
		stmt     string
		affected uint64
		want     string
	}{
		{"CREATE STREAM s (a BIGINT)", 0, "CREATE STREAM"},
		{"CREATE TABLE t (a BIGINT, PRIMARY KEY (a))", 0, "CREATE TABLE"},
		{"CREATE MATERIALIZED VIEW v AS SELECT a FROM s", 0, "CREATE MATERIALIZED VIEW"},
		{"CREATE SINK k AS SELECT a FROM s WITH (connector = 'blackhole')", 0, "CREATE SINK"},
		{"INSERT INTO s VALUES (1), (2)", 2, "INSERT 2"},
		{"INSERT INTO s SELECT a FROM s", 0, "INSERT"},
		{"INSERT INTO t SELECT a FROM s", 3, "INSERT 3"},
		{"UPDATE t SET a = 1 WHERE a = 2", 1, "UPDATE 1"},
		{"DELETE FROM t", 0, "DELETE 0"},
		{"DROP MATERIALIZED VIEW IF EXISTS v", 0, "DROP MATERIALIZED VIEW"},
		{"DROP SINK k", 0, "DROP SINK"},
		{"SET parallelism = 2", 0, "SET"},
		{"FLUSH", 0, "FLUSH"},
	} {
		if got := okTag(stmtOf(t, tc.stmt), tc.affected); got != tc.want {
			t.Errorf("%s: tag %q, want %q", tc.stmt, got, tc.want)
		}
	}
}
