package server

import (
	"crypto/subtle"
	"fmt"
	"net"
	"sync/atomic"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/sqlerror"
)

// authServer is the server's vitess mysql.AuthServer: it lets in the one
// account of the Config, or anyone when the Config has no password.
//
// With a password two methods are offered. mysql_native_password sends a
// SHA-1 scramble of the password with the handshake's salt, never the
// password. caching_sha2_password (MySQL 8's default) sends a SHA-256
// scramble once the server has "cached" the account, and otherwise
// asks for a full authentication: the password itself, which vitess
// accepts only over TLS (it has no RSA key exchange), so the method is
// offered only on TLS connections (vitess's HandleUser). As in MySQL,
// the cache starts empty: the first caching_sha2_password login after
// the server starts is a full authentication, and later ones take the
// fast path. The handshake announces caching_sha2_password when the
// server has TLS and mysql_native_password otherwise; a client asking
// for the other, or for caching_sha2_password without TLS, is switched
// to the first method offered for it (mysql_native_password).
//
// Every refusal is ER_ACCESS_DENIED_ERROR with MySQL's message, counted
// in Stats.AuthFailures and logged at Warn.
type authServer struct {
	srv      *Server
	user     string
	password []byte
	// requireTLS refuses a connection without TLS before its password is
	// looked at.
	requireTLS bool
	methods    []mysql.AuthMethod
	announce   mysql.AuthMethodDescription
	// sha2Cached is caching_sha2_password's cache: set by the first full
	// authentication of the account.
	sha2Cached atomic.Bool
	// fullAuths and fastAuths count caching_sha2_password's successful
	// logins by path, for tests.
	fullAuths, fastAuths atomic.Int64
}

var (
	_ mysql.AuthServer       = (*authServer)(nil)
	_ mysql.HashStorage      = (*authServer)(nil)
	_ mysql.CachingStorage   = (*authServer)(nil)
	_ mysql.PlainTextStorage = (*authServer)(nil)
	_ mysql.UserValidator    = (*authServer)(nil)
)

// newAuthServer returns the authServer of srv's Config.
func newAuthServer(srv *Server) *authServer {
	cfg := srv.cfg
	a := &authServer{srv: srv, user: cfg.User, password: []byte(cfg.Password), requireTLS: cfg.RequireTLS}
	a.methods = []mysql.AuthMethod{mysql.NewMysqlNativeAuthMethod(a, a)}
	a.announce = mysql.MysqlNativePassword
	if cfg.Password != "" {
		a.methods = append(a.methods, mysql.NewSha2CachingAuthMethod(a, a, a))
		if cfg.TLS != nil {
			a.announce = mysql.CachingSha2Password
		}
	}
	return a
}

// AuthMethods returns the methods offered: mysql_native_password first,
// the one a client that asks for another is switched to.
func (a *authServer) AuthMethods() []mysql.AuthMethod { return a.methods }

// DefaultAuthMethodDescription is the method the handshake announces.
func (a *authServer) DefaultAuthMethodDescription() mysql.AuthMethodDescription { return a.announce }

// HandleUser accepts every user name, so that a wrong one is refused
// with ER_ACCESS_DENIED_ERROR by the checks below rather than with
// vitess's "No authentication methods available".
func (a *authServer) HandleUser(string) bool { return true }

// userData is what a login leaves on vitess's connection.
func userData(user string) mysql.Getter { return &mysql.StaticUserData{Username: user} }

// UserEntryWithHash checks a mysql_native_password scramble.
func (a *authServer) UserEntryWithHash(c *mysql.Conn, salt []byte, user string, reply []byte, addr net.Addr) (mysql.Getter, error) {
	if err := a.checkTransport(c, addr); err != nil {
		return nil, err
	}
	if len(a.password) == 0 {
		return userData(user), nil
	}
	want := mysql.ScrambleMysqlNativePassword(salt, a.password)
	if user != a.user || subtle.ConstantTimeCompare(want, reply) != 1 {
		return nil, a.denied(c, user, addr, len(reply) > 0)
	}
	return userData(user), nil
}

// UserEntryWithCacheHash checks a caching_sha2_password fast-path
// scramble, or asks for a full authentication while the cache is empty.
func (a *authServer) UserEntryWithCacheHash(c *mysql.Conn, salt []byte, user string, reply []byte, addr net.Addr) (mysql.Getter, mysql.CacheState, error) {
	if err := a.checkTransport(c, addr); err != nil {
		return nil, mysql.AuthRejected, err
	}
	if !a.sha2Cached.Load() {
		return nil, mysql.AuthNeedMoreData, nil
	}
	want := mysql.ScrambleCachingSha2Password(salt, a.password)
	if user != a.user || subtle.ConstantTimeCompare(want, reply) != 1 {
		return nil, mysql.AuthRejected, a.denied(c, user, addr, len(reply) > 0)
	}
	a.fastAuths.Add(1)
	return userData(user), mysql.AuthAccepted, nil
}

// UserEntryWithPassword checks the password of a caching_sha2_password
// full authentication (over TLS), and fills the cache when it is right.
func (a *authServer) UserEntryWithPassword(c *mysql.Conn, user string, password string, addr net.Addr) (mysql.Getter, error) {
	if err := a.checkTransport(c, addr); err != nil {
		return nil, err
	}
	if user != a.user || subtle.ConstantTimeCompare([]byte(password), a.password) != 1 {
		return nil, a.denied(c, user, addr, password != "")
	}
	a.sha2Cached.Store(true)
	a.fullAuths.Add(1)
	return userData(user), nil
}

// erSecureTransportRequired is MySQL's ER_SECURE_TRANSPORT_REQUIRED,
// which vitess does not name.
const erSecureTransportRequired = sqlerror.ErrorCode(3159)

// checkTransport refuses a connection without TLS when TLS is required.
func (a *authServer) checkTransport(c *mysql.Conn, addr net.Addr) error {
	if !a.requireTLS || c.TLSEnabled() {
		return nil
	}
	a.srv.stats.refused.Add(1)
	a.srv.log.Warn("refused a connection without TLS", "client", hostOf(addr), "conn", c.ConnectionID)
	return sqlerror.NewSQLError(erSecureTransportRequired, sqlerror.SSUnknownSQLState,
		"Connections using insecure transport are prohibited while --require-tls is set")
}

// denied counts and logs a refused login and returns its error.
func (a *authServer) denied(c *mysql.Conn, user string, addr net.Addr, withPassword bool) error {
	a.srv.stats.authFailures.Add(1)
	host := hostOf(addr)
	a.srv.log.Warn("access denied", "user", user, "client", host, "conn", c.ConnectionID)
	using := "NO"
	if withPassword {
		using = "YES"
	}
	return sqlerror.NewSQLError(sqlerror.ERAccessDeniedError, sqlerror.SSAccessDeniedError,
		fmt.Sprintf("Access denied for user '%s'@'%s' (using password: %s)", user, host, using))
}

// hostOf returns the IP address (or host) of a network address.
func hostOf(addr net.Addr) string {
	if addr == nil {
		return ""
	}
	s := addr.String()
	if host, _, err := net.SplitHostPort(s); err == nil {
		return host
	}
	return s
}
