package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/vt/vtenv"

	"github.com/eddysql/eddy/exec/engine"
)

// ErrNotLoopback is the error of Listen (and CheckAddr) for an address
// other clients than this machine's could reach: serving one needs a
// password, which is not supported yet.
var ErrNotLoopback = errors.New("not supported yet: serving a non-loopback address (needs --password, a later release)")

// mysqlVersion is the MySQL version the handshake announces, before
// eddy's own: clients choose their dialect of the protocol by it, and
// vitess's server speaks MySQL 8.0's.
const mysqlVersion = "8.0.40"

// Config configures a Server.
type Config struct {
	// Addr is the host:port to listen on; the host must be a loopback
	// address or "localhost". Port 0 picks a free port (see Addr).
	Addr string
	// Engine is the engine the connections' sessions run on. The server
	// does not close it.
	Engine *engine.Engine
	// Version is eddy's version, announced in the handshake and in
	// @@version_comment.
	Version string
}

// Server is a MySQL protocol server over one engine.
type Server struct {
	cfg Config
	ln  *mysql.Listener
	// ctx is the parent of every statement's context; Close cancels it.
	ctx    context.Context
	cancel context.CancelFunc
	served chan struct{} // closed when Serve returns

	mu     sync.Mutex
	conns  map[uint32]*conn // by vitess's connection ID
	closed bool
	wg     sync.WaitGroup // one per registered connection
}

// CheckAddr returns ErrNotLoopback (wrapped with addr) unless addr's host
// is a loopback address or "localhost".
func CheckAddr(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("bad address %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%s: %w", addr, ErrNotLoopback)
}

// Listen binds cfg.Addr and returns a server that accepts connections once
// Serve runs.
func Listen(cfg Config) (*Server, error) {
	if cfg.Engine == nil {
		return nil, errors.New("server: no engine")
	}
	if err := CheckAddr(cfg.Addr); err != nil {
		return nil, err
	}
	env, err := vtenv.New(vtenv.Options{MySQLServerVersion: mysqlVersion})
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, conns: map[uint32]*conn{}, served: make(chan struct{})}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.ln, err = mysql.NewListenerWithConfig(mysql.ListenerConfig{
		Protocol:   "tcp",
		Address:    cfg.Addr,
		AuthServer: mysql.NewAuthServerNone(),
		Handler:    &handler{srv: s, env: env},
		// Statements are split by eddy's splitter, not vitess's parser.
		MultiQuery: true,
		// connBufferSize, vitess's own default for reads.
		ConnReadBufferSize: 16 * 1024,
	})
	if err != nil {
		s.cancel()
		return nil, fmt.Errorf("listening on %s: %w", cfg.Addr, err)
	}
	s.ln.ServerVersion = mysqlVersion + "-eddy-" + cfg.Version
	return s, nil
}

// Addr returns the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Serve accepts connections until Close, each served on its own goroutine.
func (s *Server) Serve() {
	defer close(s.served)
	s.ln.Accept()
}

// Close stops accepting connections, stops every running statement and
// closes every connection, and returns once their handlers have returned,
// so that the engine can be closed after it. It is idempotent.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.ln.Shutdown()
	s.cancel()
	for _, c := range s.conns {
		c.c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// register records a new connection; on a closed server it closes it
// instead and returns nil.
func (s *Server) register(c *mysql.Conn) *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		c.Close()
		return nil
	}
	cn := &conn{srv: s, c: c, id: c.ConnectionID,
		sess: s.cfg.Engine.NewSession(engine.SessionOptions{Interactive: true})}
	s.conns[cn.id] = cn
	s.wg.Add(1)
	return cn
}

// unregister forgets a closed connection and stops its statement.
func (s *Server) unregister(c *mysql.Conn) {
	s.mu.Lock()
	cn, ok := s.conns[c.ConnectionID]
	if ok && cn.c == c {
		delete(s.conns, c.ConnectionID)
	}
	s.mu.Unlock()
	if ok && cn.c == c {
		cn.interrupt(errClientGone)
		s.wg.Done()
	}
}

// lookup returns the connection with an ID, or nil.
func (s *Server) lookup(id uint32) *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns[id]
}
