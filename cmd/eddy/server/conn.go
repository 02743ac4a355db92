package server

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/sqltypes"

	"github.com/eddysql/eddy/exec/engine"
	"github.com/eddysql/eddy/sql"
)

// conn is the state of one client connection: its engine session and
// the statement it runs. Its statements run on vitess's goroutine for the
// connection, one at a time; KILL and Close reach it from others.
type conn struct {
	srv  *Server
	c    *mysql.Conn
	id   uint32
	host string // the client's address, as the gate counts it
	// sess is the connection's session, opened by session once the
	// client has logged in; nil before.
	sess *engine.Session
	// db is the database USE chose ("" until then), for DATABASE().
	db string
	// notices are the last statement's notices, its MySQL warnings.
	notices []string

	mu sync.Mutex
	// cancel stops the running statement with a cause (errKilled,
	// errClientGone); nil between statements.
	cancel context.CancelCauseFunc
	// sessShared is sess, for other connections' SHOW PROCESSLIST; user
	// is the user logged in; stmt is the running statement's text ("" if
	// none) and since when it began, or the connection went idle.
	sessShared *engine.Session
	user, stmt string
	since      time.Time
}

// The causes of a statement's cancellation.
var (
	errKilled     = errors.New("killed")
	errClientGone = errors.New("the client disconnected or sent a command during the statement")
)

// clientCheckEvery is how often a running statement checks that its client
// is still connected: a client that disconnects during a push query that
// sends nothing is noticed within this long (a write would notice at once).
const clientCheckEvery = 100 * time.Millisecond

// session returns the connection's session, opening it on first use (the
// handshake's end, or a database named in the handshake, which vitess
// runs as USE before it).
func (cn *conn) session() *engine.Session {
	if cn.sess == nil {
		cn.sess = cn.srv.cfg.Engine.NewSession(engine.SessionOptions{Interactive: true})
		cn.mu.Lock()
		cn.sessShared, cn.user, cn.since = cn.sess, cn.c.User, time.Now()
		cn.mu.Unlock()
	}
	return cn.sess
}

// emitFunc sends one part of a statement's result: its first call starts
// it (an OK packet when res has no fields, else the result set's fields),
// later calls add rows.
type emitFunc func(res *sqltypes.Result, first bool) error

// run runs one statement of a COM_QUERY: a MySQL-ism answered here, or an
// eddy statement.
func (cn *conn) run(p sql.Piece, emit emitFunc) error {
	cn.session() // logged in: SHOW PROCESSLIST lists it from now on
	cn.setStatement(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(p.Text), ";")))
	defer cn.setStatement("")
	if res, handled, err := cn.mysqlism(p.Text); handled {
		if err != nil {
			return err
		}
		return emit(res, true)
	}
	cn.notices = nil
	stmt, err := sql.ParseOne(p.Text, p.Start)
	if err != nil {
		return err
	}
	if refusal := cn.srv.gate.startStatement(cn.host); refusal != nil {
		cn.srv.stats.stmtsRefused.Add(1)
		cn.srv.log.Info("refused a statement", "client", cn.host, "conn", cn.id, "error", refusal.Message)
		return refusal
	}
	// The statement's slot, and its row in SHOW PROCESSLIST, are given
	// back before its last packet is written: a client that has its
	// answer may send its next statement at once (and vitess may flush
	// the answer before run returns).
	var ended sync.Once
	end := func() {
		ended.Do(func() {
			cn.srv.gate.endStatement(cn.host)
			cn.setStatement("")
		})
	}
	defer end()
	ctx, cancel := context.WithCancelCause(cn.srv.ctx)
	defer cancel(nil)
	cn.mu.Lock()
	cn.cancel = cancel
	cn.mu.Unlock()
	defer func() {
		cn.mu.Lock()
		cn.cancel = nil
		cn.mu.Unlock()
	}()
	stopWatch := cn.watchClient(ctx, cancel)
	defer stopWatch()
	res, err := cn.session().Execute(ctx, stmt)
	if err != nil {
		return cancelled(ctx, err)
	}
	cn.notices = res.Notices
	switch res.Kind {
	case engine.ResultRows:
		out := &sqltypes.Result{Fields: fields(res.Columns)}
		out.Rows = rows(res.Rows, res.Columns)
		end()
		return emit(out, true)
	case engine.ResultStream:
		// vitess writes the result set's end after run returns.
		return cancelled(ctx, cn.stream(ctx, res, emit))
	}
	end()
	return emit(&sqltypes.Result{RowsAffected: rowsAffected(res.Tag)}, true)
}

// stream sends a push query's changes as the rows of one result set,
// flushing each batch, until the query ends or ctx is cancelled.
func (cn *conn) stream(ctx context.Context, res *engine.Result, emit emitFunc) error {
	defer res.Stream.Close()
	if err := emit(&sqltypes.Result{Fields: fields(res.Columns)}, true); err != nil {
		return err
	}
	if err := cn.c.FlushWriteBuffer(); err != nil {
		return &writeError{err}
	}
	for {
		batch, err := res.Stream.Next(ctx)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		out := &sqltypes.Result{Rows: rows(batch, res.Columns)}
		if err := emit(out, false); err != nil {
			return err
		}
		if err := cn.c.FlushWriteBuffer(); err != nil {
			return &writeError{err}
		}
	}
}

// cancelled returns err, or the cause of ctx's end when err is that end
// because of a KILL (errKilled) or the client (errClientGone), which the
// client sees as ER_QUERY_INTERRUPTED.
func cancelled(ctx context.Context, err error) error {
	if err == nil || ctx.Err() == nil {
		return err
	}
	if cause := context.Cause(ctx); errors.Is(cause, errKilled) || errors.Is(cause, errClientGone) {
		return cause
	}
	return err
}

// interrupt stops the running statement, if any, with cause.
func (cn *conn) interrupt(cause error) {
	cn.mu.Lock()
	defer cn.mu.Unlock()
	if cn.cancel != nil {
		cn.cancel(cause)
	}
}

// watchClient checks every clientCheckEvery, until the returned function
// is called, that the client is still connected, and cancels the
// statement with errClientGone when it is not. The check peeks at the
// socket (clientConn.clientGone), so it never takes bytes vitess is to
// read. The returned function waits for the check to stop.
func (cn *conn) watchClient(ctx context.Context, cancel context.CancelCauseFunc) func() {
	cc := clientConnOf(cn.c)
	if cc == nil {
		return func() {}
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(clientCheckEvery)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				// Any byte from the client during a statement is a
				// disconnect too: a COM_QUIT, or a protocol violation
				// (which vitess reads once the statement has ended).
				if err := cc.clientGone(); err != nil {
					cancel(errClientGone)
					return
				}
			}
		}
	}()
	return func() {
		close(stop)
		<-done
	}
}

// rowsAffected reads the count from a tag such as "INSERT 3" (0 for
// other tags).
func rowsAffected(tag string) uint64 {
	verb, n, ok := strings.Cut(tag, " ")
	if !ok {
		return 0
	}
	switch verb {
	case "INSERT", "UPDATE", "DELETE":
		v, err := strconv.ParseUint(n, 10, 64)
		if err == nil {
			return v
		}
	}
	return 0
}
