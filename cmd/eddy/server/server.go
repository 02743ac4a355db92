package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/vt/vtenv"
)

// mysqlVersion is the MySQL version the handshake announces, before
// eddy's own: clients choose their dialect of the protocol by it, and
// vitess's server speaks MySQL 8.0's.
const mysqlVersion = "8.0.40"

// Server is a MySQL protocol server over one engine.
type Server struct {
	cfg  Config
	ln   *mysql.Listener
	auth *authServer
	gate *gate
	log  *slog.Logger // never nil
	// stats are the counters behind Stats.
	stats counters
	// ctx is the parent of every statement's context; Close cancels it.
	ctx    context.Context
	cancel context.CancelFunc
	served chan struct{} // closed when Serve returns

	mu     sync.Mutex
	conns  map[uint32]*conn // by vitess's connection ID
	closed bool
	wg     sync.WaitGroup // one per registered connection
}

// Listen binds cfg.Addr and returns a server that accepts connections once
// Serve runs. It refuses what Config.Check refuses.
func Listen(cfg Config) (*Server, error) {
	if cfg.Engine == nil {
		return nil, errors.New("server: no engine")
	}
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	cfg.Limits = cfg.Limits.withDefaults()
	env, err := vtenv.New(vtenv.Options{MySQLServerVersion: mysqlVersion})
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, conns: map[uint32]*conn{}, served: make(chan struct{}),
		gate: newGate(cfg.Limits), log: cfg.Log}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.auth = newAuthServer(s)
	nl, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", cfg.Addr, err)
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.ln, err = mysql.NewListenerWithConfig(mysql.ListenerConfig{
		Listener:   &limitListener{Listener: nl, srv: s},
		AuthServer: s.auth,
		Handler:    &handler{srv: s, env: env},
		// Statements are split by eddy's splitter, not vitess's parser.
		MultiQuery: true,
		// connBufferSize, vitess's own default for reads.
		ConnReadBufferSize: 16 * 1024,
	})
	if err != nil {
		s.cancel()
		nl.Close()
		return nil, fmt.Errorf("listening on %s: %w", cfg.Addr, err)
	}
	s.ln.ServerVersion = mysqlVersion + "-eddy-" + cfg.Version
	if cfg.TLS != nil {
		s.ln.TLSConfig.Store(cfg.TLS)
	}
	routeVitessLog(s)
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
	unrouteVitessLog(s)
}

// register records a new connection, before its handshake; on a closed
// server it closes it instead and returns nil. Its session is opened once
// it has logged in (conn.session).
func (s *Server) register(c *mysql.Conn) *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		c.Close()
		return nil
	}
	cn := &conn{srv: s, c: c, id: c.ConnectionID, host: hostOf(c.RemoteAddr())}
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
		s.log.Debug("connection closed", "client", cn.host, "conn", cn.id)
		s.wg.Done()
	}
}

// lookup returns the connection with an ID, or nil.
func (s *Server) lookup(id uint32) *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns[id]
}
