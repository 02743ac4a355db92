package server

import (
	"context"
	"encoding/binary"
	"errors"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/sqlerror"
)

// handshakeTimeout is how long a connection may take to log in, as
// MySQL's connect_timeout (10 s): a client that connects and sends
// nothing would otherwise hold its connection slot for ever. vitess sets
// no deadline of its own. (A variable for tests.)
var handshakeTimeout = 10 * time.Second

// The bounds on what a client may send before the server answers.
const (
	// preAuthInput is the most a client may send before it has logged in
	// without the server answering: a handshake response is a few
	// hundred bytes (its connection attributes included), the TLS
	// handshake's messages a few kilobytes.
	preAuthInput = 64 << 10
	// requestSlack is what a request may hold beyond twice
	// MaxStatementBytes: packet headers and TLS records around the text,
	// and room for any other command however small the limit.
	requestSlack = 64 << 10
)

// refuseTimeout bounds the write of a refused connection's error packet.
const refuseTimeout = time.Second

// acceptRetryMax is the longest wait before accepting again after an
// accept error that is not the listener's closing (too many open files,
// say): vitess's accept loop would return on any error and serve no more.
const acceptRetryMax = time.Second

// limitListener admits connections through the server's gate before
// vitess sees them: a refused connection gets the refusal's error packet
// in place of the server's handshake, as MySQL sends "Too many
// connections", and is closed. Vitess never sees it, so it costs no
// goroutine, session or log line of vitess's.
type limitListener struct {
	net.Listener
	srv *Server
}

// Accept returns the next admitted connection, wrapped in a clientConn.
func (l *limitListener) Accept() (net.Conn, error) {
	var delay time.Duration
	for {
		nc, err := l.Listener.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil, err
			}
			delay = min(max(2*delay, 5*time.Millisecond), acceptRetryMax)
			l.srv.log.Warn("accepting a connection failed; retrying", "error", err, "in", delay)
			time.Sleep(delay)
			continue
		}
		delay = 0
		host := hostOf(nc.RemoteAddr())
		if refusal := l.srv.gate.admit(host); refusal != nil {
			l.srv.stats.refused.Add(1)
			l.srv.log.Warn("refused a connection", "client", host, "error", refusal.Message)
			go refuse(nc, refusal)
			continue
		}
		l.srv.stats.accepted.Add(1)
		l.srv.stats.open.Add(1)
		return newClientConn(nc, l.srv, host), nil
	}
}

// refuse writes err to a connection as its first packet (sequence 0, the
// handshake's place) and closes it.
func refuse(nc net.Conn, err *sqlerror.SQLError) {
	defer nc.Close()
	msg := err.Message
	payload := make([]byte, 0, 9+len(msg))
	payload = append(payload, mysql.ErrPacket)
	payload = binary.LittleEndian.AppendUint16(payload, uint16(err.Num))
	payload = append(payload, '#')
	payload = append(payload, err.State...)
	payload = append(payload, msg...)
	n := len(payload)
	pkt := append([]byte{byte(n), byte(n >> 8), byte(n >> 16), 0}, payload...)
	nc.SetWriteDeadline(time.Now().Add(refuseTimeout))
	nc.Write(pkt)
}

// errTooMuchInput is the read error of a client that sent more than it
// may without waiting for an answer; vitess then closes the connection.
var errTooMuchInput = errors.New("the client sent more than the server reads without answering")

// clientConn is an admitted connection as vitess reads and writes it. It
// gives its slot back to the gate when closed, bounds the time to log in,
// and bounds what the client may send before the server answers (a
// request: the bytes read since the last write). vitess reads a packet
// whole, of any size, before the handler sees it; this bound is what
// keeps a client from making the server buffer more than twice
// MaxStatementBytes (and preAuthInput before it has logged in).
type clientConn struct {
	net.Conn
	srv  *Server
	host string
	// inputCap is the most a request may hold; unanswered what the
	// current one holds so far.
	inputCap, unanswered atomic.Int64
	authenticated        atomic.Bool
	closeOnce            sync.Once
}

// newClientConn wraps an admitted connection.
func newClientConn(nc net.Conn, srv *Server, host string) *clientConn {
	c := &clientConn{Conn: nc, srv: srv, host: host}
	c.inputCap.Store(preAuthInput)
	nc.SetDeadline(time.Now().Add(handshakeTimeout))
	return c
}

// Read reads from the client, failing once the request passes its bound.
func (c *clientConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if limit := c.inputCap.Load(); c.unanswered.Add(int64(n)) > limit {
		// Before login it is garbage (Info, as vitess's malformed
		// packets); after, a client's statement the operator may want
		// to allow (Warn).
		level := slog.LevelInfo
		if c.authenticated.Load() {
			level = slog.LevelWarn
			c.srv.stats.stmtsRefused.Add(1)
		}
		c.srv.log.Log(context.Background(), level, "closed a connection that sent too much at once",
			"client", c.host, "limit", limit)
		return 0, errTooMuchInput
	}
	return n, err
}

// Write writes to the client; an answer starts a new request.
func (c *clientConn) Write(p []byte) (int, error) {
	c.unanswered.Store(0)
	return c.Conn.Write(p)
}

// loggedIn lifts the login bounds once the client has authenticated.
func (c *clientConn) loggedIn(maxStatementBytes int) {
	c.inputCap.Store(2*int64(maxStatementBytes) + requestSlack)
	c.authenticated.Store(true)
	c.Conn.SetDeadline(time.Time{})
}

// Close closes the connection and gives its slot back, once.
func (c *clientConn) Close() error {
	err := c.Conn.Close()
	c.closeOnce.Do(func() {
		c.srv.gate.leave(c.host)
		c.srv.stats.open.Add(-1)
	})
	return err
}

// SyscallConn exposes the socket, which vitess's ConnCheck reads without
// blocking to notice a client that went away during a statement.
func (c *clientConn) SyscallConn() (syscall.RawConn, error) {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return nil, errors.ErrUnsupported
	}
	return sc.SyscallConn()
}

// clientConnOf returns the clientConn beneath a vitess connection (under
// its TLS layer, if any), or nil.
func clientConnOf(c *mysql.Conn) *clientConn {
	nc := c.GetRawConn()
	if tc, ok := nc.(interface{ NetConn() net.Conn }); ok {
		nc = tc.NetConn()
	}
	cc, _ := nc.(*clientConn)
	return cc
}
