package server

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"
)

// rawConn is a TCP connection to the server that speaks the protocol by
// hand, to send what no driver would.
type rawConn struct {
	t *testing.T
	net.Conn
}

// dialRaw connects to srv and reads its handshake.
func dialRaw(t *testing.T, srv *Server) *rawConn {
	t.Helper()
	nc, err := net.Dial("tcp", srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	c := &rawConn{t: t, Conn: nc}
	if seq, payload := c.readPacket(); seq != 0 || len(payload) == 0 || payload[0] != 10 {
		t.Fatalf("handshake: sequence %d, payload % x", seq, payload)
	}
	return c
}

// readPacket reads one packet, failing t on an error.
func (c *rawConn) readPacket() (seq byte, payload []byte) {
	c.t.Helper()
	// Past the server's own handshake timeout, which closes a connection
	// still waiting for the rest of a packet.
	c.SetReadDeadline(time.Now().Add(2 * handshakeTimeout))
	var hdr [4]byte
	if _, err := io.ReadFull(c, hdr[:]); err != nil {
		c.t.Fatalf("reading a packet header: %v", err)
	}
	payload = make([]byte, int(hdr[0])|int(hdr[1])<<8|int(hdr[2])<<16)
	if _, err := io.ReadFull(c, payload); err != nil {
		c.t.Fatalf("reading a packet: %v", err)
	}
	return hdr[3], payload
}

// writePacket writes payload as one packet with sequence number seq.
func (c *rawConn) writePacket(seq byte, payload []byte) {
	c.t.Helper()
	n := len(payload)
	if _, err := c.Write(append([]byte{byte(n), byte(n >> 8), byte(n >> 16), seq}, payload...)); err != nil {
		c.t.Fatalf("writing a packet: %v", err)
	}
}

// login sends a HandshakeResponse41 for user root, as
// mysql_native_password, to a server without a password, and reads the
// OK.
func (c *rawConn) login() {
	c.t.Helper()
	const caps = 1 | 0x200 | 0x8000 | 0x80000 // LONG_PASSWORD, PROTOCOL_41, SECURE_CONNECTION, PLUGIN_AUTH
	p := binary.LittleEndian.AppendUint32(nil, caps)
	p = binary.LittleEndian.AppendUint32(p, 1<<24)
	p = append(p, 45) // utf8mb4
	p = append(p, make([]byte, 23)...)
	p = append(p, "root\x00"...)
	p = append(p, 20) // a scramble's length; any will do without a password
	p = append(p, make([]byte, 20)...)
	p = append(p, "mysql_native_password\x00"...)
	c.writePacket(1, p)
	if _, ok := c.readPacket(); len(ok) == 0 || ok[0] != 0 {
		c.t.Fatalf("login answered % x, want OK", ok)
	}
}

// closedByServer reads until the server closes the connection, failing t
// if it has not within 10 seconds; it returns what it read before.
func (c *rawConn) closedByServer() []byte {
	c.t.Helper()
	// Past the server's own handshake timeout, which closes a connection
	// still waiting for the rest of a packet.
	c.SetReadDeadline(time.Now().Add(2 * handshakeTimeout))
	got, err := io.ReadAll(c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		c.t.Fatalf("the server did not close the connection (read % x)", got)
	}
	return got
}

// TestBadInput sends what a broken or hostile client might, each on a
// connection of its own: garbage in place of the handshake response, a
// truncated packet, a packet out of sequence, an unknown command, a huge
// packet before login. Each ends in an error packet or a close of that
// connection alone: a push query on another connection streams on, new
// clients connect, every bad connection is closed and forgotten, and
// nothing is logged above Info.
func TestBadInput(t *testing.T) {
	var logs *logCapture
	srv := startServerWith(t, func(cfg *Config) { logs = captureLogs(cfg) })
	db := open(t, srv)
	watcher, inserter := dbConn(t, db), dbConn(t, db)
	mustExec(t, inserter, "CREATE STREAM s (a BIGINT)")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := startPush(t, ctx, watcher, "SELECT a FROM s EMIT CHANGES")
	before := srv.Stats().Open

	// The same bytes every run: fresh random bytes sometimes mean
	// something — the handshake response's sequence number in front of a
	// long packet's length (the server then waits for the rest, 1 time in
	// 256), or a handshake response it can parse (it then asks for another
	// auth method and waits) — and the server closes only at its
	// handshake timeout.
	garbage := make([]byte, 4096)
	rand.NewChaCha8([32]byte{'e', 'd', 'd', 'y'}).Read(garbage)
	garbage[3] = 0x7f
	cases := []struct {
		name string
		send func(c *rawConn)
		// answer is what the server sends before it closes (nil: nothing).
		answer func(t *testing.T, got []byte)
	}{
		{"an HTTP request", func(c *rawConn) { c.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")) }, nil},
		{"random bytes", func(c *rawConn) { c.Write(garbage) }, nil},
		{"a well-framed packet of random bytes", func(c *rawConn) { c.writePacket(1, garbage[:100]) }, nil},
		{"a truncated handshake", func(c *rawConn) {
			c.Write([]byte{200, 0, 0, 1, 1, 2, 3})
			c.Conn.(*net.TCPConn).CloseWrite()
		}, nil},
		{"a huge packet before login", func(c *rawConn) {
			c.Write([]byte{0xfe, 0xff, 0xff, 1}) // 16 MiB - 2
			c.Write(make([]byte, 200<<10))
		}, nil},
		{"a query out of sequence", func(c *rawConn) {
			c.login()
			c.writePacket(5, append([]byte{3}, "SELECT 1"...))
		}, nil},
		{"a truncated query", func(c *rawConn) {
			c.login()
			c.Write([]byte{100, 0, 0, 0, 3, 'S', 'E', 'L'})
			c.Conn.(*net.TCPConn).CloseWrite()
		}, nil},
		{"an unknown command, then a quit", func(c *rawConn) {
			c.login()
			c.writePacket(0, []byte{0x7f, 1, 2, 3})
			c.writePacket(0, []byte{1}) // COM_QUIT
		}, func(t *testing.T, got []byte) {
			if len(got) < 7 || got[4] != 0xff || binary.LittleEndian.Uint16(got[5:]) != 1047 {
				t.Errorf("an unknown command answered % x, want error 1047", got)
			}
		}},
	}
	for i, tc := range cases {
		c := dialRaw(t, srv)
		tc.send(c)
		got := c.closedByServer()
		if tc.answer != nil {
			tc.answer(t, got)
		} else if len(got) > 0 && !(len(got) > 4 && got[4] == 0xff) {
			t.Errorf("%s: the server answered % x", tc.name, got)
		}
		mustExec(t, inserter, "INSERT INTO s VALUES ("+string(rune('0'+i))+")")
		if row := p.next(t); !reflect.DeepEqual(row, []string{"+I", string(rune('0' + i))}) {
			t.Errorf("after %s the push query got %v", tc.name, row)
		}
	}
	if err := openDSN(t, "root@tcp("+srv.Addr()+")/").Ping(); err != nil {
		t.Errorf("a new client after the bad ones: %v", err)
	}
	waitFor(t, "the bad connections to be forgotten", func() bool { return srv.Stats().Open == before+1 })
	if bad := logs.atLeast(slog.LevelWarn); len(bad) > 0 {
		t.Errorf("logged at Warn or above:\n%s", strings.Join(bad, "\n"))
	}
	if !logs.has(slog.LevelInfo, "invalid sequence") {
		t.Errorf("the packet out of sequence is not logged at Info:\n%s", strings.Join(logs.all(), "\n"))
	}
}

// TestCommandDuringPushQuery sends a COM_PING while a push query with
// nothing to send streams: the server takes it as the client's leaving
// and ends the push query with ER_QUERY_INTERRUPTED, then answers the
// ping, the connection in step. (The check vitess offers, ConnCheck,
// reads a byte from the socket: it took the ping's first byte, and the
// connection failed with "invalid sequence"; under load, a result that
// vitess's flush timer sends before the statement's goroutine returns
// let the same happen to the client's next command.)
func TestCommandDuringPushQuery(t *testing.T) {
	srv := startServer(t)
	mustExec(t, open(t, srv), "CREATE STREAM s (a BIGINT)")
	c := dialRaw(t, srv)
	c.login()
	c.writePacket(0, append([]byte{3}, "SELECT a FROM s EMIT CHANGES"...))
	// The column count, two columns (op, a) and an EOF.
	for i, first := range []byte{2, 3, 3, 0xfe} {
		if _, p := c.readPacket(); len(p) == 0 || p[0] != first {
			t.Fatalf("result packet %d: % x", i, p)
		}
	}
	c.writePacket(0, []byte{14}) // COM_PING
	_, p := c.readPacket()
	if len(p) < 3 || p[0] != 0xff || binary.LittleEndian.Uint16(p[1:]) != 1317 {
		t.Fatalf("the push query ended with % x (%q), want error 1317", p, p)
	}
	if !strings.Contains(string(p), "the client disconnected or sent a command during the statement") {
		t.Errorf("error %q", p[9:])
	}
	if seq, ok := c.readPacket(); seq != 1 || len(ok) == 0 || ok[0] != 0 {
		t.Errorf("the ping answered sequence %d, % x; want 1, OK", seq, ok)
	}
}

// TestHandshakeTimeout connects and sends nothing: the server closes the
// connection once handshakeTimeout has passed, and its slot is free
// again.
func TestHandshakeTimeout(t *testing.T) {
	old := handshakeTimeout
	handshakeTimeout = 200 * time.Millisecond
	t.Cleanup(func() { handshakeTimeout = old })
	srv := startServerWith(t, func(cfg *Config) { cfg.Limits.MaxConnections = 1 })
	c := dialRaw(t, srv)
	start := time.Now()
	c.closedByServer()
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("closed after %v", d)
	}
	waitFor(t, "the slot to be free", func() bool { return srv.Stats().Open == 0 })
	if err := open(t, srv).Ping(); err != nil {
		t.Errorf("the next client: %v", err)
	}
}
