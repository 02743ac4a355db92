package web

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/eddysql/eddy/exec/engine"
)

// ErrNotLoopback is the error of Listen (and CheckAddr) for an address
// other machines could reach when no password is configured.
var ErrNotLoopback = errors.New("serving a non-loopback address needs a password (--password)")

// Observer is what the server reads: the engine's observation API.
type Observer interface {
	ObserveCatalog() []engine.ObjectInfo
	ObserveQueries() []engine.QueryInfo
	ObserveQuery(name string) (engine.QueryInfo, bool)
}

var _ Observer = (*engine.Engine)(nil)

// Config configures a Server.
type Config struct {
	// Addr is the host:port to listen on. Port 0 picks a free port (see
	// Addr). A host other than a loopback address or "localhost" needs a
	// Password.
	Addr string
	// Engine is what the server observes (an *engine.Engine).
	Engine Observer
	// Password, when set, is required of every request through HTTP
	// basic authentication, with User as the user name (any user name
	// when User is empty).
	Password string
	User     string
	// Version is eddy's version, shown by the page and as the
	// eddy_build_info metric's label.
	Version string
	// Server, if set, is the MySQL protocol server whose connection
	// figures (logins refused, limits) /metrics publishes as eddy_mysql_*.
	Server Sessions
}

// Server is the HTTP server of one engine.
type Server struct {
	cfg  Config
	ln   net.Listener
	http *http.Server
}

// CheckAddr returns ErrNotLoopback (wrapped with addr) if addr's host is
// neither a loopback address nor "localhost" and password is empty.
func CheckAddr(addr, password string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("bad address %q: %w", addr, err)
	}
	if password != "" || host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%s: %w", addr, ErrNotLoopback)
}

// Listen binds cfg.Addr and returns a server that answers requests once
// Serve runs.
func Listen(cfg Config) (*Server, error) {
	if cfg.Engine == nil {
		return nil, errors.New("web: no engine")
	}
	if err := CheckAddr(cfg.Addr, cfg.Password); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", cfg.Addr, err)
	}
	s := &Server{cfg: cfg, ln: ln}
	s.http = &http.Server{
		Handler: s.Handler(),
		// Slow clients cannot hold connections open for long: requests
		// are small and answers are made at once.
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	return s, nil
}

// Addr returns the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Serve answers requests until Close. It returns nil after Close.
func (s *Server) Serve() error {
	if err := s.http.Serve(s.ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Close stops the server: it stops accepting, lets requests in flight
// finish for up to a few seconds, then closes every connection.
func (s *Server) Close() error {
	// Answers take milliseconds: a request still running after this is
	// stuck on a slow client.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := s.http.Shutdown(ctx); err != nil {
		return s.http.Close()
	}
	return nil
}

// Handler returns the server's routes, behind basic authentication when
// a password is configured.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metricsHandler(s.cfg.Engine, s.cfg.Server, s.cfg.Version))
	mux.HandleFunc("GET /api/catalog", s.catalog)
	mux.HandleFunc("GET /api/queries", s.queries)
	mux.HandleFunc("GET /api/queries/{name}", s.query)
	mux.HandleFunc("GET /api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no such API: "+r.URL.Path)
	})
	mux.Handle("GET /", staticHandler(s.cfg.Version))
	var h http.Handler = mux
	if s.cfg.Password != "" {
		h = basicAuth(s.cfg.User, s.cfg.Password, h)
	}
	return h
}

// basicAuth requires every request to carry user (any user when empty)
// and password through HTTP basic authentication.
func basicAuth(user, password string, next http.Handler) http.Handler {
	// Comparing hashes keeps the comparison's time independent of where
	// the strings differ and of their lengths.
	wantUser, wantPass := sha256.Sum256([]byte(user)), sha256.Sum256([]byte(password))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, p, ok := r.BasicAuth()
		gotUser, gotPass := sha256.Sum256([]byte(u)), sha256.Sum256([]byte(p))
		userOK := user == "" || subtle.ConstantTimeCompare(gotUser[:], wantUser[:]) == 1
		if !ok || !userOK || subtle.ConstantTimeCompare(gotPass[:], wantPass[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Basic realm="eddy", charset="UTF-8"`)
			writeError(w, http.StatusUnauthorized, "unauthorized: this server needs its user name and password")
			return
		}
		next.ServeHTTP(w, r)
	})
}
