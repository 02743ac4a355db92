package server

import (
	"context"
	"log/slog"
	"reflect"
	"strings"
	"testing"
)

// TestDisconnectMidResult disconnects clients in the middle of a large
// pull result and of a push query: the server frees their connections,
// another connection's push query streams on, and nothing is logged
// above Debug, where vitess's messages about the failed writes go.
func TestDisconnectMidResult(t *testing.T) {
	var logs *logCapture
	srv := startServerWith(t, func(cfg *Config) { logs = captureLogs(cfg) })
	db := open(t, srv)
	db.SetMaxIdleConns(0) // a closed *sql.Conn closes its connection
	watcher, c := dbConn(t, db), dbConn(t, db)
	mustExec(t, c, "CREATE STREAM bid WITH (connector = 'nexmark', table = 'bid', events = '100000')",
		"CREATE STREAM s (a BIGINT)")
	wctx, wcancel := context.WithCancel(context.Background())
	defer wcancel()
	p := startPush(t, wctx, watcher, "SELECT a FROM s EMIT CHANGES")
	before := srv.Stats().Open

	// A pull query of ~90,000 rows (some 10 MB): the client reads one
	// and goes away.
	big := dbConn(t, db)
	ctx, cancel := context.WithCancel(context.Background())
	rows, err := big.QueryContext(ctx, "SELECT * FROM bid")
	if err != nil {
		t.Fatal(err)
	}
	if !rows.Next() {
		t.Fatalf("no row: %v", rows.Err())
	}
	cancel() // the driver closes the socket
	rows.Close()
	big.Close()

	// A push query that has sent a change: its client goes away.
	pushed := dbConn(t, db)
	ctx2, cancel2 := context.WithCancel(context.Background())
	p2 := startPush(t, ctx2, pushed, "SELECT a FROM s EMIT CHANGES")
	mustExec(t, c, "INSERT INTO s VALUES (1)")
	for _, r := range []*pushReader{p, p2} {
		if got := r.next(t); !reflect.DeepEqual(got, []string{"+I", "1"}) {
			t.Errorf("push query got %v", got)
		}
	}
	cancel2()
	p2.end(t)
	pushed.Close()

	waitFor(t, "the server to free the connections", func() bool { return srv.Stats().Open == before })
	mustExec(t, c, "INSERT INTO s VALUES (2)")
	if got := p.next(t); !reflect.DeepEqual(got, []string{"+I", "2"}) {
		t.Errorf("the other push query got %v", got)
	}
	if !logs.has(slog.LevelDebug, "from=vitess") {
		t.Errorf("vitess's messages about the failed write are not at Debug:\n%s", strings.Join(logs.all(), "\n"))
	}
	if noisy := logs.atLeast(slog.LevelInfo); len(noisy) > 0 {
		t.Errorf("client disconnects logged above Debug:\n%s", strings.Join(noisy, "\n"))
	}
}
