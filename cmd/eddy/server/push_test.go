package server

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"testing"
	"time"
)

// pushReader reads a push query's rows on a goroutine of its own.
type pushReader struct {
	rows chan []string
	err  chan error // the rows' error once they end (nil: they ended cleanly)
}

// startPush runs q on c and reads its rows as they come.
func startPush(t *testing.T, ctx context.Context, c *sql.Conn, q string) *pushReader {
	t.Helper()
	rows, err := c.QueryContext(ctx, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	cols, _ := rows.Columns()
	if len(cols) == 0 || cols[0] != "op" {
		t.Errorf("push query columns %v: want op first", cols)
	}
	p := &pushReader{rows: make(chan []string, 100), err: make(chan error, 1)}
	go func() {
		defer close(p.rows)
		for rows.Next() {
			row, err := scanRow(rows, len(cols))
			if err != nil {
				p.err <- err
				return
			}
			p.rows <- row
		}
		p.err <- rows.Err()
		rows.Close()
	}()
	return p
}

// next returns the next row, failing t after 10 seconds.
func (p *pushReader) next(t *testing.T) []string {
	t.Helper()
	select {
	case r, ok := <-p.rows:
		if !ok {
			t.Fatal("the push query ended")
		}
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("no row from the push query within 10s")
	}
	return nil
}

// end returns the error the push query's rows ended with.
func (p *pushReader) end(t *testing.T) error {
	t.Helper()
	for {
		select {
		case _, ok := <-p.rows:
			if !ok {
				return <-p.err
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the push query did not end within 10s")
		}
	}
}

// connectionID returns the server's ID of c.
func connectionID(t *testing.T, c *sql.Conn) int64 {
	t.Helper()
	var id int64
	if err := c.QueryRowContext(context.Background(), "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestPushQueryKillQuery streams the changes another connection's INSERTs
// cause, as they come, until a third connection's KILL QUERY stops it
// with ER_QUERY_INTERRUPTED; the connection then runs statements again.
func TestPushQueryKillQuery(t *testing.T) {
	db := open(t, startServer(t))
	watcher, inserter := dbConn(t, db), dbConn(t, db)
	mustExec(t, inserter, "CREATE STREAM s (a BIGINT, b VARCHAR)",
		"CREATE MATERIALIZED VIEW per_b AS SELECT b, COUNT(*) AS n FROM s GROUP BY b")
	id := connectionID(t, watcher)
	p := startPush(t, context.Background(), watcher, "SELECT b, n FROM per_b EMIT CHANGES")
	mustExec(t, inserter, "INSERT INTO s VALUES (1, 'x')")
	if got := p.next(t); !reflect.DeepEqual(got, []string{"+I", "x", "1"}) {
		t.Errorf("first change %v", got)
	}
	mustExec(t, inserter, "INSERT INTO s VALUES (2, 'x')")
	got := [][]string{p.next(t), p.next(t)}
	if want := [][]string{{"-U", "x", "1"}, {"+U", "x", "2"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("update: %v, want %v", got, want)
	}
	mustExec(t, db, fmt.Sprintf("KILL QUERY %d", id))
	if me := mysqlError(t, p.end(t)); me.Number != 1317 {
		t.Errorf("killed push query ended with %d %q, want 1317", me.Number, me.Message)
	}
	if got := query(t, watcher, "SELECT n FROM per_b"); !reflect.DeepEqual(got, [][]string{{"2"}}) {
		t.Errorf("after KILL QUERY the connection reads %v", got)
	}
}

// TestPushQueryLimit checks that a push query with LIMIT ends by itself
// once it has sent that many changes.
func TestPushQueryLimit(t *testing.T) {
	db := open(t, startServer(t))
	mustExec(t, db, "CREATE STREAM s (a BIGINT)", "INSERT INTO s VALUES (1), (2), (3)")
	got := query(t, db, "SELECT a FROM s EMIT CHANGES LIMIT 2")
	if len(got) != 2 || got[0][0] != "+I" {
		t.Errorf("push query with LIMIT 2: %v", got)
	}
}

// TestPushQueryClientGone checks that a push query stops when its client
// goes away: the driver closes the socket when the query's context is
// cancelled, and the server, which has nothing to send, notices on its
// own. KILL CONNECTION ends another connection's push query the same way.
func TestPushQueryClientGone(t *testing.T) {
	srv := startServer(t)
	db := open(t, srv)
	mustExec(t, db, "CREATE STREAM s (a BIGINT)", "INSERT INTO s VALUES (1)")
	open := func() int {
		srv.mu.Lock()
		defer srv.mu.Unlock()
		return len(srv.conns)
	}

	ctx, cancel := context.WithCancel(context.Background())
	c := dbConn(t, db)
	p := startPush(t, ctx, c, "SELECT a FROM s EMIT CHANGES")
	if got := p.next(t); !reflect.DeepEqual(got, []string{"+I", "1"}) {
		t.Errorf("first change %v", got)
	}
	before := open()
	cancel()
	p.end(t)
	// The connection's handler returns only once its push query has.
	waitFor(t, "the server to close the client's connection", func() bool { return open() == before-1 })

	victim := dbConn(t, db)
	id := connectionID(t, victim)
	p = startPush(t, context.Background(), victim, "SELECT a FROM s EMIT CHANGES")
	p.next(t)
	mustExec(t, db, fmt.Sprintf("KILL %d", id))
	if err := p.end(t); err == nil {
		t.Error("the push query of a killed connection ended without an error")
	}
	waitFor(t, "the killed connection to close", func() bool { return srv.lookup(uint32(id)) == nil })
	if got := query(t, db, "SELECT COUNT(*) FROM s"); !reflect.DeepEqual(got, [][]string{{"1"}}) {
		t.Errorf("other connections read %v", got)
	}
}
