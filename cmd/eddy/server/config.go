package server

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"

	"github.com/eddysql/eddy/exec/engine"
)

// Config configures a Server.
type Config struct {
	// Addr is the host:port to listen on. An address other machines can
	// reach (anything but a loopback address or "localhost") needs a
	// Password. Port 0 picks a free port (see Addr).
	Addr string
	// Engine is the engine the connections' sessions run on. The server
	// does not close it.
	Engine *engine.Engine
	// Version is eddy's version, announced in the handshake and in
	// @@version_comment.
	Version string
	// User and Password are the one account clients log in with. Without
	// a Password every user is let in without one (User is then unused),
	// which only a loopback Addr allows.
	User, Password string
	// TLS, when set, lets clients encrypt their connections; it is what
	// caching_sha2_password needs to send a password (see auth.go).
	TLS *tls.Config
	// RequireTLS refuses clients that do not use TLS, with
	// ER_SECURE_TRANSPORT_REQUIRED (3159). It needs TLS.
	RequireTLS bool
	// Limits bound what each client and all of them may hold at once; a
	// zero field takes its default (DefaultLimits).
	Limits Limits
	// Log receives the server's events and vitess's messages, at levels
	// where a client that goes away is Debug and one that is refused or
	// denied is Warn; nil discards them.
	Log *slog.Logger
}

// Limits bound the server's resources per client address and in total.
// A client address is the client's IP address: every connection from one
// machine (or one NAT) counts against the same per-client limits.
type Limits struct {
	// MaxConnections is the most connections open at once, whoever
	// opened them; one more is refused with ER_CON_COUNT_ERROR (1040).
	MaxConnections int
	// MaxConnectionsPerClient is the most connections one client address
	// may have open at once; one more is refused with
	// ER_TOO_MANY_USER_CONNECTIONS (1203).
	MaxConnectionsPerClient int
	// MaxStatementsPerClient is the most statements the connections of
	// one client address may run at once, a push query counting for as
	// long as it streams; one more is refused with ER_USER_LIMIT_REACHED
	// (1226). KILL and the queries clients send by themselves
	// (mysqlisms.go) are answered regardless.
	MaxStatementsPerClient int
	// MaxStatementBytes is the longest statement text (one COM_QUERY,
	// all its statements together) accepted; a longer one is refused
	// with ER_NET_PACKET_TOO_LARGE (1153) and the connection stays
	// usable. A client that sends more than twice as much without
	// waiting for an answer is disconnected without the rest being read,
	// so that no client can make the server buffer more (see listener.go).
	MaxStatementBytes int
}

// DefaultLimits are the limits of a Config that sets none.
//
// Each connection holds a goroutine and a session, a running push query
// also a job of the engine, so the total is bounded; 256 leaves room for
// many clients at once without letting a runaway pool exhaust the
// process's file descriptors (1024 by default). One client address may
// hold half of it, so a second client still gets in while another runs
// a large pool. 64 statements at once per address keep one client from
// occupying every core with push queries while letting a pool of dozens
// of connections insert concurrently. 16 MiB of statement text holds an
// INSERT of a hundred thousand rows, while what one connection makes the
// server buffer (twice that, see listener.go) stays small beside the
// engine's memory.
func DefaultLimits() Limits {
	return Limits{
		MaxConnections:          256,
		MaxConnectionsPerClient: 128,
		MaxStatementsPerClient:  64,
		MaxStatementBytes:       16 << 20,
	}
}

// withDefaults returns l with its zero fields set to DefaultLimits'.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxConnections == 0 {
		l.MaxConnections = d.MaxConnections
	}
	if l.MaxConnectionsPerClient == 0 {
		l.MaxConnectionsPerClient = d.MaxConnectionsPerClient
	}
	if l.MaxStatementsPerClient == 0 {
		l.MaxStatementsPerClient = d.MaxStatementsPerClient
	}
	if l.MaxStatementBytes == 0 {
		l.MaxStatementBytes = d.MaxStatementBytes
	}
	return l
}

// check returns an error naming the first negative limit.
func (l Limits) check() error {
	for _, f := range []struct {
		name string
		v    int
	}{
		{"MaxConnections", l.MaxConnections},
		{"MaxConnectionsPerClient", l.MaxConnectionsPerClient},
		{"MaxStatementsPerClient", l.MaxStatementsPerClient},
		{"MaxStatementBytes", l.MaxStatementBytes},
	} {
		if f.v < 0 {
			return fmt.Errorf("server: %s must not be negative, got %d", f.name, f.v)
		}
	}
	return nil
}

// ErrNotLoopback is CheckAddr's error for an address other machines than
// this one can reach.
var ErrNotLoopback = errors.New("not a loopback address")

// ErrPasswordRequired is the error of Config.Check and Listen for an
// address other machines can reach (ErrNotLoopback) without a Password:
// anyone there could connect.
var ErrPasswordRequired = errors.New("serving an address other machines can reach needs a password")

// ErrTLSRequired is the error of Config.Check and Listen for RequireTLS
// without TLS.
var ErrTLSRequired = errors.New("requiring TLS needs a TLS certificate and key")

// CheckAddr returns ErrNotLoopback (wrapped with addr) unless addr's host
// is a loopback address or "localhost". An empty host (":3307", every
// interface) and any other host name are not loopback.
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

// Check returns the first thing wrong with cfg that Listen would refuse,
// without binding anything: a bad address, a non-loopback address
// without a password (ErrPasswordRequired), RequireTLS without TLS
// (ErrTLSRequired), a negative limit.
func (cfg Config) Check() error {
	if err := CheckAddr(cfg.Addr); err != nil {
		if !errors.Is(err, ErrNotLoopback) {
			return err
		}
		if cfg.Password == "" {
			return fmt.Errorf("%s: %w", cfg.Addr, ErrPasswordRequired)
		}
	}
	if cfg.RequireTLS && cfg.TLS == nil {
		return ErrTLSRequired
	}
	return cfg.Limits.check()
}

// LoadTLS returns the TLS configuration of a server presenting the
// certificate (chain) in certFile with the private key in keyFile, both
// PEM-encoded, refusing TLS versions before 1.2.
func LoadTLS(certFile, keyFile string) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("loading the TLS certificate %s and key %s: %w", certFile, keyFile, err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}
