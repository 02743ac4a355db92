package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/vt/vttls"

	"github.com/eddysql/eddy/exec/engine"
	"github.com/eddysql/eddy/sql"
)

// Config says where the server is and how to log in.
type Config struct {
	// Addr is the server's host:port.
	Addr string
	// User and Password log in; the server checks them when it has
	// users.
	User     string
	Password string
	// TLS requires an encrypted connection and verifies the server's
	// certificate and name, against CAFile when set (else the system's
	// roots). CAFile implies TLS.
	TLS    bool
	CAFile string
	// ConnectTimeout bounds connecting and logging in (0: dialTimeout).
	ConnectTimeout time.Duration
}

// dialTimeout is how long connecting and logging in may take by default:
// a server that accepts but never answers is reported instead of hanging.
const dialTimeout = 10 * time.Second

// Session is one connection to an eddy server, running one statement at a
// time. It is not safe for concurrent use, except that Next and Close of
// a push query's stream may be called from the goroutine that runs them.
type Session struct {
	cfg    Config
	params *mysql.ConnParams
	conn   *mysql.Conn
	id     int64 // the connection's id on the server, which KILL names
	// lost is set once the connection is gone; every later statement
	// fails with it.
	lost error
	// pending are notices fetched after a push query, shown with the next
	// statement's result.
	pending []string
	// stream is the push query whose rows are being read, if any.
	stream *stream
	// watch follows the running statement's progress (ProgressLine).
	watch watcher
}

// Dial connects to the server and logs in.
func Dial(ctx context.Context, cfg Config) (*Session, error) {
	params, err := connParams(cfg)
	if err != nil {
		return nil, err
	}
	s := &Session{cfg: cfg, params: params}
	s.conn, err = s.dial(ctx)
	if err != nil {
		return nil, err
	}
	s.id = s.conn.ID()
	return s, nil
}

// connParams turns cfg into vitess's connection parameters.
func connParams(cfg Config) (*mysql.ConnParams, error) {
	host, portText, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("bad address %q (want HOST:PORT): %w", cfg.Addr, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 1 || port > 65535 {
		return nil, fmt.Errorf("bad address %q: the port must be a number from 1 to 65535", cfg.Addr)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	timeout := cfg.ConnectTimeout
	if timeout <= 0 {
		timeout = dialTimeout
	}
	p := &mysql.ConnParams{
		Host:             host,
		Port:             port,
		Uname:            cfg.User,
		Pass:             cfg.Password,
		SslMode:          vttls.Disabled,
		ConnectTimeoutMs: uint64(timeout.Milliseconds()),
	}
	if cfg.TLS || cfg.CAFile != "" {
		// vitess names an IP address "IP:addr" to Go's TLS, which then
		// matches no certificate: the host itself checks DNS names and
		// IP addresses alike.
		p.SslMode, p.SslCa, p.ServerName = vttls.VerifyIdentity, cfg.CAFile, host
	}
	return p, nil
}

// dial opens a connection with the session's parameters.
func (s *Session) dial(ctx context.Context) (*mysql.Conn, error) {
	c, err := mysql.Connect(ctx, s.params)
	if err != nil {
		return nil, fmt.Errorf("connecting to eddy at %s: %w", s.cfg.Addr, connectError(err))
	}
	return c, nil
}

// ID returns the connection's id on the server (what KILL QUERY names).
func (s *Session) ID() int64 { return s.id }

// Close stops a push query still running and closes the connection.
func (s *Session) Close() error {
	if s.stream != nil {
		s.stream.close()
	}
	s.watch.close()
	s.conn.Close()
	return nil
}

// Execute runs stmt on the server: its text goes as written, and what the
// server returns comes back as the engine returns it (see the package
// documentation). Cancelling ctx stops the statement on the server (KILL
// QUERY) and returns ctx.Err(); the session goes on.
func (s *Session) Execute(ctx context.Context, stmt sql.Stmt) (*engine.Result, error) {
	if s.stream != nil {
		s.stream.close() // a caller that did not close the last push query
	}
	if s.lost != nil {
		return nil, s.lost
	}
	st := newStatement(stmt)
	if sel, ok := stmt.(*sql.Select); ok && sel.Query.EmitChanges {
		return s.push(ctx, st)
	}
	var res *engine.Result
	var warnings uint16
	err := s.cancellable(ctx, func() error {
		qr, n, err := s.conn.ExecuteFetchWithWarningCount(st.text, mysql.FETCH_ALL_ROWS, true)
		if err != nil {
			return err
		}
		warnings = n
		res, err = st.result(qr)
		return err
	})
	if err != nil {
		return nil, s.failed(ctx, st, err)
	}
	if warnings > 0 {
		if res.Notices, err = s.warnings(); err != nil {
			return nil, s.failed(ctx, st, err)
		}
	}
	res.Notices = s.takePending(res.Notices)
	return res, nil
}

// takePending returns notices after the notices left by a push query.
func (s *Session) takePending(notices []string) []string {
	if len(s.pending) == 0 {
		return notices
	}
	out := append(s.pending, notices...)
	s.pending = nil
	return out
}

// warnings returns the messages of the last statement's warnings, which
// are its notices.
func (s *Session) warnings() ([]string, error) {
	qr, err := s.conn.ExecuteFetch("SHOW WARNINGS", mysql.FETCH_ALL_ROWS, true)
	if err != nil {
		return nil, fmt.Errorf("reading the statement's notices: %w", err)
	}
	msg := len(qr.Fields) - 1 // Level, Code, Message
	out := make([]string, 0, len(qr.Rows))
	for _, r := range qr.Rows {
		if msg >= 0 && msg < len(r) {
			out = append(out, r[msg].ToString())
		}
	}
	return out, nil
}

// cancellable runs call, which reads the answer to a statement on the
// session's connection, and stops the statement on the server when ctx is
// cancelled first: with KILL QUERY from a second connection, or, when
// that fails, by closing this one. It returns once call has returned and
// any kill has been answered, so that a kill never reaches a later
// statement; call's error is ctx's when the statement was stopped.
func (s *Session) cancellable(ctx context.Context, call func() error) error {
	if ctx.Done() == nil {
		return call()
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	var killed bool
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-ctx.Done():
			killed = true
			s.kill()
		case <-done:
		}
	}()
	err := call()
	close(done)
	wg.Wait()
	if killed && err != nil && (isInterrupted(err) || s.conn.IsClosed()) {
		return ctx.Err()
	}
	return err
}

// killTimeout bounds KILL QUERY: a server that does not answer it in this
// long is not going to, and closing the connection stops the statement.
const killTimeout = 5 * time.Second

// kill stops the session's running statement: KILL QUERY on a new
// connection, or closing the session's connection when that fails (the
// session is lost then).
func (s *Session) kill() {
	ctx, cancel := context.WithTimeout(context.Background(), killTimeout)
	defer cancel()
	err := func() error {
		c, err := s.dial(ctx)
		if err != nil {
			return err
		}
		defer c.Close()
		_, err = c.ExecuteFetch("KILL QUERY "+strconv.FormatInt(s.id, 10), 0, false)
		return err
	}()
	if err != nil {
		s.lost = fmt.Errorf("the statement could not be stopped (%v), so the connection to eddy at %s was closed", err, s.cfg.Addr)
		s.conn.Close()
	}
}

// failed returns the error of a statement: ctx's when it was cancelled,
// the server's error as eddy reports it, or, when the connection is gone,
// an error that says so (and every later statement returns).
func (s *Session) failed(ctx context.Context, st *statement, err error) error {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return err
	}
	if s.lost != nil {
		return s.lost
	}
	if isConnectionError(err) || s.conn.IsClosed() {
		s.lost = fmt.Errorf("lost the connection to eddy at %s: %w", s.cfg.Addr, connectError(err))
		s.conn.Close()
		return s.lost
	}
	return st.remoteError(err)
}
