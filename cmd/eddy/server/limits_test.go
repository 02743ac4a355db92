package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"reflect"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// otherClient is the network of go-sql-driver DSNs that connect from
// 127.0.0.2, a client address other than the tests' 127.0.0.1 (Linux
// routes all of 127/8 to the loopback interface).
const otherClient = "tcp-from-127.0.0.2"

func init() {
	mysql.RegisterDialContext(otherClient, func(ctx context.Context, addr string) (net.Conn, error) {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}
		return d.DialContext(ctx, "tcp", addr)
	})
}

// TestMaxConnectionsPerClient fills one client address's connections:
// the next is refused with ER_TOO_MANY_USER_CONNECTIONS, while another
// address gets in and a push query on a full address's connection goes
// on; once a connection closes, its address gets in again.
func TestMaxConnectionsPerClient(t *testing.T) {
	srv := startServerWith(t, func(cfg *Config) { cfg.Limits.MaxConnectionsPerClient = 2 })
	db := open(t, srv)
	db.SetMaxIdleConns(0) // a closed *sql.Conn closes its connection
	watcher, second := dbConn(t, db), dbConn(t, db)
	mustExec(t, second, "CREATE STREAM s (a BIGINT)")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := startPush(t, ctx, watcher, "SELECT a FROM s EMIT CHANGES")

	err := openDSN(t, "root@tcp("+srv.Addr()+")/").Ping()
	if me := mysqlError(t, err); me.Number != 1203 || me.Message != "Too many connections from 127.0.0.1: it has 2 open, the most --max-connections-per-client allows" {
		t.Errorf("third connection: %d %q", me.Number, me.Message)
	}
	other := dbConn(t, openDSN(t, "root@"+otherClient+"("+srv.Addr()+")/"))
	mustExec(t, other, "INSERT INTO s VALUES (7)")
	if got := p.next(t); !reflect.DeepEqual(got, []string{"+I", "7"}) {
		t.Errorf("the push query got %v", got)
	}
	if st := srv.Stats(); st.ConnectionsRefused != 1 || st.Open != 3 {
		t.Errorf("stats %+v, want 1 refused and 3 open", st)
	}
	second.Close()
	waitFor(t, "127.0.0.1 to get a connection back", func() bool {
		return openDSN(t, "root@tcp("+srv.Addr()+")/").Ping() == nil
	})
}

// TestMaxConnections fills the server: the next connection, from any
// address, is refused with ER_CON_COUNT_ERROR.
func TestMaxConnections(t *testing.T) {
	srv := startServerWith(t, func(cfg *Config) { cfg.Limits.MaxConnections = 2 })
	db := open(t, srv)
	a, b := dbConn(t, db), dbConn(t, db)
	for _, dsn := range []string{"root@tcp(" + srv.Addr() + ")/", "root@" + otherClient + "(" + srv.Addr() + ")/"} {
		err := openDSN(t, dsn).Ping()
		if me := mysqlError(t, err); me.Number != 1040 || !strings.HasPrefix(me.Message, "Too many connections: the server has 2 open") {
			t.Errorf("%s: %d %q", dsn, me.Number, me.Message)
		}
	}
	mustExec(t, a, "CREATE STREAM s (a BIGINT)")
	mustExec(t, b, "INSERT INTO s VALUES (1)")
	if st := srv.Stats(); st.ConnectionsRefused != 2 || st.ConnectionsAccepted != 2 {
		t.Errorf("stats %+v", st)
	}
}

// TestMaxStatementsPerClient lets one statement run at once per client
// address: while a push query streams, the address's next statement is
// refused with ER_USER_LIMIT_REACHED, KILL still works, another address
// runs statements, and the push query is not disturbed.
func TestMaxStatementsPerClient(t *testing.T) {
	srv := startServerWith(t, func(cfg *Config) { cfg.Limits.MaxStatementsPerClient = 1 })
	db := open(t, srv)
	watcher, c := dbConn(t, db), dbConn(t, db)
	mustExec(t, c, "CREATE STREAM s (a BIGINT)")
	id := connectionID(t, watcher)
	p := startPush(t, context.Background(), watcher, "SELECT a FROM s EMIT CHANGES")

	other := dbConn(t, openDSN(t, "root@"+otherClient+"("+srv.Addr()+")/"))
	mustExec(t, other, "INSERT INTO s VALUES (1)")
	if got := p.next(t); !reflect.DeepEqual(got, []string{"+I", "1"}) {
		t.Errorf("the push query got %v", got)
	}
	_, err := c.ExecContext(context.Background(), "INSERT INTO s VALUES (2)")
	if me := mysqlError(t, err); me.Number != 1226 || !strings.Contains(me.Message, "127.0.0.1 is running 1 statements, the most --max-statements-per-client allows") {
		t.Errorf("second statement: %d %q", me.Number, me.Message)
	}
	mustExec(t, other, "INSERT INTO s VALUES (3)")
	if got := p.next(t); !reflect.DeepEqual(got, []string{"+I", "3"}) {
		t.Errorf("the push query got %v after a refused statement", got)
	}
	mustExec(t, c, fmt.Sprintf("KILL QUERY %d", id))
	p.end(t)
	waitFor(t, "the killed push query's slot", func() bool {
		_, err := c.ExecContext(context.Background(), "INSERT INTO s VALUES (4)")
		return err == nil
	})
	if got := query(t, c, "SELECT COUNT(*) FROM s"); !reflect.DeepEqual(got, [][]string{{"3"}}) {
		t.Errorf("count %v, want 3 (the refused INSERT did not run)", got)
	}
	if st := srv.Stats(); st.StatementsRefused < 1 {
		t.Errorf("stats %+v", st)
	}
}

// TestMaxStatementBytes refuses a statement longer than the limit with
// ER_NET_PACKET_TOO_LARGE, the connection staying usable, and
// disconnects a client that sends far more, without disturbing another
// connection's push query.
func TestMaxStatementBytes(t *testing.T) {
	srv := startServerWith(t, func(cfg *Config) { cfg.Limits.MaxStatementBytes = 1024 })
	db := open(t, srv)
	watcher, c := dbConn(t, db), dbConn(t, db)
	mustExec(t, c, "CREATE STREAM s (a BIGINT)")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := startPush(t, ctx, watcher, "SELECT a FROM s EMIT CHANGES")

	long := "INSERT INTO s VALUES (1)" + strings.Repeat(", (1)", 400) // 2024 bytes
	_, err := c.ExecContext(context.Background(), long)
	if me := mysqlError(t, err); me.Number != 1153 || !strings.Contains(me.Message, "a statement of 2024 bytes, longer than the 1024 bytes --max-statement-bytes allows") {
		t.Errorf("long statement: %d %q", me.Number, me.Message)
	}
	mustExec(t, c, "INSERT INTO s VALUES (2)")
	if got := p.next(t); !reflect.DeepEqual(got, []string{"+I", "2"}) {
		t.Errorf("the push query got %v", got)
	}
	if got := query(t, c, "SELECT @@max_allowed_packet"); !reflect.DeepEqual(got, [][]string{{"1025"}}) {
		t.Errorf("@@max_allowed_packet %v", got)
	}

	// More than twice the limit (and the slack) is not even read.
	huge := dbConn(t, db)
	_, err = huge.ExecContext(context.Background(), "INSERT INTO s VALUES (1)"+strings.Repeat(", (1)", 40000))
	if err == nil {
		t.Fatal("a 200 KB statement ran")
	}
	mustExec(t, c, "INSERT INTO s VALUES (3)")
	if got := p.next(t); !reflect.DeepEqual(got, []string{"+I", "3"}) {
		t.Errorf("the push query got %v after the huge statement", got)
	}
	waitFor(t, "the huge statement's connection to close", func() bool { return srv.Stats().Open == 2 })
	if st := srv.Stats(); st.StatementsRefused != 2 {
		t.Errorf("stats %+v, want 2 statements refused", st)
	}
}

// flakyListener fails its first Accept with an error other than its
// closing (as "too many open files" does), then returns one end of a
// pipe, then reports itself closed.
type flakyListener struct {
	net.Listener // nil: only Accept is called
	calls        int
	conn         net.Conn
}

func (l *flakyListener) Accept() (net.Conn, error) {
	l.calls++
	switch l.calls {
	case 1:
		return nil, errors.New("accept4: too many open files")
	case 2:
		return l.conn, nil
	}
	return nil, net.ErrClosed
}

// TestAcceptRetries checks that an accept error other than the
// listener's closing is retried, where vitess's accept loop would stop
// serving, and that closing still ends it.
func TestAcceptRetries(t *testing.T) {
	var cfg Config
	logs := captureLogs(&cfg)
	srv := &Server{gate: newGate(DefaultLimits()), log: cfg.Log}
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	l := &limitListener{Listener: &flakyListener{conn: a}, srv: srv}
	c, err := l.Accept()
	if err != nil {
		t.Fatalf("Accept: %v", err)
	}
	if cc, ok := c.(*clientConn); !ok || cc.Conn != a {
		t.Errorf("Accept returned %T", c)
	}
	if !logs.has(slog.LevelWarn, "too many open files") {
		t.Errorf("the failure is not logged at Warn:\n%s", strings.Join(logs.all(), "\n"))
	}
	if _, err := l.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Accept after closing: %v", err)
	}
	c.Close()
	if st := srv.Stats(); st.ConnectionsAccepted != 1 || st.Open != 0 {
		t.Errorf("stats %+v", st)
	}
}
