package client

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/engine"
)

// TestPushQueryWatchHereInsertThere runs a push query on one session,
// inserts on another, and checks that the first sees the rows as they
// come; that cancelling its context stops the query on the server (KILL
// QUERY) and returns context.Canceled; and that the session goes on with
// its settings, while the other session's are its own.
func TestPushQueryWatchHereInsertThere(t *testing.T) {
	srv := startServer(t)
	watch, insert := dial(t, srv), dial(t, srv)
	mustRun(t, watch, "CREATE STREAM s (a BIGINT, b VARCHAR); SET parallelism = 3;")

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := watch.Execute(ctx, stmtOf(t, "SELECT a, b FROM s EMIT CHANGES;"))
	if err != nil {
		t.Fatal(err)
	}
	wantCols := []engine.Column{{Name: "op", Type: types.VarcharT}, {Name: "a", Type: types.BigIntT}, {Name: "b", Type: types.VarcharT}}
	if res.Kind != engine.ResultStream || !reflect.DeepEqual(res.Columns, wantCols) {
		t.Fatalf("result %v with columns %v, want a stream of %v", res.Kind, res.Columns, wantCols)
	}
	mustRun(t, insert, "INSERT INTO s VALUES (1, 'x'), (2, NULL);")
	var got []string
	for len(got) < 2 {
		batch, err := res.Stream.Next(ctx)
		if err != nil {
			t.Fatalf("after %q: %v", got, err)
		}
		got = append(got, formatRows(res.Columns, batch)...)
	}
	if want := []string{"+I|1|x", "+I|2|NULL"}; !reflect.DeepEqual(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}

	// Nothing more comes: cancelling stops the wait and the query.
	stopCtx, stop := context.WithCancel(ctx)
	time.AfterFunc(50*time.Millisecond, stop)
	start := time.Now()
	if _, err := res.Stream.Next(stopCtx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Next after cancel: %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("cancelling took %s", d)
	}
	res.Stream.Close()

	// The session goes on, with its SET: the server, which runs one
	// statement of a connection at a time, has ended the push query.
	if r := mustRun(t, watch, "SELECT COUNT(*) AS n FROM s;")[0]; !reflect.DeepEqual(formatRows(r.Columns, r.Rows), []string{"2"}) {
		t.Errorf("count after the push query: %q", formatRows(r.Columns, r.Rows))
	}
	explain := func(s *Session) string {
		r := mustRun(t, s, "EXPLAIN SELECT b, COUNT(*) FROM s GROUP BY b;")[0]
		return strings.Join(formatRows(r.Columns, r.Rows), "\n")
	}
	if plan := explain(watch); !strings.Contains(plan, "HashAggregate") || !strings.Contains(plan, "parallelism=3") {
		t.Errorf("the watching session's SET parallelism = 3 is gone:\n%s", plan)
	}
	if plan := explain(insert); strings.Contains(plan, "parallelism=3") {
		t.Errorf("the other session has the watching session's setting:\n%s", plan)
	}
}

// TestPushQueryEndsAndKeepsItsNotices runs a push query to its LIMIT
// (io.EOF), and checks that a notice the server had for it (a bad row
// a view skipped while the session was idle) comes with the next
// statement, since a result set's end does not report its warnings to
// the client.
func TestPushQueryEndsAndKeepsItsNotices(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "bad.csv"), []byte("x\n1\nbad\n2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startServerAt(t, root)
	watch, other := dial(t, srv), dial(t, srv)
	mustRun(t, watch, "CREATE STREAM s (a BIGINT); INSERT INTO s VALUES (7);")
	mustRun(t, other, `CREATE STREAM f (x BIGINT) WITH (connector = 'file', path = 'bad.csv', format = 'csv', header = 'true');
CREATE MATERIALIZED VIEW fv AS SELECT x FROM f; FLUSH;`)

	res, err := watch.Execute(context.Background(), stmtOf(t, "SELECT a FROM s EMIT CHANGES LIMIT 1;"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for {
		batch, err := res.Stream.Next(context.Background())
		rows = append(rows, formatRows(res.Columns, batch)...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	res.Stream.Close()
	if !reflect.DeepEqual(rows, []string{"+I|7"}) {
		t.Errorf("rows %q", rows)
	}
	next := mustRun(t, watch, "SHOW STREAMS;")[0]
	want := []string{`materialized view fv: bad.csv:3: column x: cannot parse "bad" as BIGINT`}
	if !reflect.DeepEqual(next.Notices, want) {
		t.Errorf("notices after the push query %q, want %q", next.Notices, want)
	}
	if again := mustRun(t, watch, "SHOW STREAMS;")[0]; len(again.Notices) != 0 {
		t.Errorf("notices shown twice: %q", again.Notices)
	}
}

// TestLostConnection checks that a session whose server went away says
// so, for this statement and every later one.
func TestLostConnection(t *testing.T) {
	srv := startServer(t)
	s := dial(t, srv)
	mustRun(t, s, "SHOW STREAMS;")
	srv.Close()
	for i := range 2 {
		_, err := s.Execute(context.Background(), stmtOf(t, "SHOW STREAMS;"))
		if err == nil || !strings.Contains(err.Error(), "lost the connection to eddy at "+srv.Addr()) {
			t.Errorf("statement %d after the server closed: %v", i+1, err)
		}
	}
}

// TestDialErrors checks the errors of connecting: nothing listening, and
// addresses that are none.
func TestDialErrors(t *testing.T) {
	for _, tc := range []struct{ addr, want string }{
		{"127.0.0.1:1", "connecting to eddy at 127.0.0.1:1: dial tcp 127.0.0.1:1: connect: connection refused (is eddy serve running there?)"},
		{"localhost", `bad address "localhost" (want HOST:PORT)`},
		{"127.0.0.1:http", `bad address "127.0.0.1:http": the port must be a number from 1 to 65535`},
	} {
		_, err := Dial(context.Background(), Config{Addr: tc.addr, User: "root"})
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.addr, err, tc.want)
		}
	}
}

// TestCancelPullQuery cancels a long pull query (a count over a billion
// generated events) and checks that Execute returns context.Canceled soon
// after, having stopped it on the server, and that the session goes on.
func TestCancelPullQuery(t *testing.T) {
	s := dial(t, startServer(t))
	mustRun(t, s, `CREATE STREAM bid (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
  date_time TIMESTAMP(3), extra VARCHAR) WITH (connector = 'nexmark', table = 'bid', events = '1000000000');`)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	res, err := s.Execute(ctx, stmtOf(t, "SELECT COUNT(*) AS n FROM bid;"))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Execute: %v, %v; want context.Canceled", res, err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("cancelling took %s", d)
	}
	if r := mustRun(t, s, "SELECT 1 AS one;")[0]; !reflect.DeepEqual(formatRows(r.Columns, r.Rows), []string{"1"}) {
		t.Errorf("after the cancel: %q", formatRows(r.Columns, r.Rows))
	}
}
