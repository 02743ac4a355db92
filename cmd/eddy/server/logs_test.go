package server

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// logCapture is a slog.Handler that keeps every record, for tests of what
// the server logs and at which level.
type logCapture struct {
	mu   sync.Mutex
	recs []string // "LEVEL message key=value ..."
	lvls []slog.Level
}

// captureLogs makes cfg log into a new logCapture and returns it.
func captureLogs(cfg *Config) *logCapture {
	c := &logCapture{}
	cfg.Log = slog.New(c)
	return c
}

func (c *logCapture) Enabled(context.Context, slog.Level) bool { return true }

func (c *logCapture) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", r.Level, r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	c.recs = append(c.recs, b.String())
	c.lvls = append(c.lvls, r.Level)
	return nil
}

func (c *logCapture) WithAttrs([]slog.Attr) slog.Handler { return c }
func (c *logCapture) WithGroup(string) slog.Handler      { return c }

// atLeast returns the records at level or above.
func (c *logCapture) atLeast(level slog.Level) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for i, r := range c.recs {
		if c.lvls[i] >= level {
			out = append(out, r)
		}
	}
	return out
}

// all returns every record.
func (c *logCapture) all() []string { return c.atLeast(slog.LevelDebug - 100) }

// has reports whether a record at exactly level contains text.
func (c *logCapture) has(level slog.Level, text string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, r := range c.recs {
		if c.lvls[i] == level && strings.Contains(r, text) {
			return true
		}
	}
	return false
}

// TestClassifyVitess checks the levels vitess's messages get: a client
// that went away is Debug, one that broke the protocol Info, a caught
// panic Error, anything else vitess's own level.
func TestClassifyVitess(t *testing.T) {
	for _, tc := range []struct {
		level slog.Level
		msg   string
		want  slog.Level
	}{
		{slog.LevelError, "Error writing result to client 3 (127.0.0.1:5000): write tcp: broken pipe", slog.LevelDebug},
		{slog.LevelError, "conn 2: flush() failed: write tcp 127.0.0.1:1->127.0.0.1:2: use of closed network connection", slog.LevelDebug},
		{slog.LevelError, "Error reading packet from client 4 (x): io.ReadFull(packet body of length 100) failed: unexpected EOF", slog.LevelDebug},
		{slog.LevelWarn, "Error authenticating user bob using: mysql_native_password", slog.LevelDebug},
		{slog.LevelError, "Error reading packet from client 4 (x): invalid sequence, expected 0 got 3", slog.LevelInfo},
		{slog.LevelError, "Cannot parse client handshake response from client 5 (x): parseClientHandshakePacket: can't read capability flags", slog.LevelInfo},
		{slog.LevelError, "mysql_server caught panic:\nboom", slog.LevelError},
		{slog.LevelWarn, "Slow connection from client 6 (x): 12345", slog.LevelWarn},
	} {
		r := slog.NewRecord(time.Time{}, tc.level, tc.msg, 0)
		if got := classifyVitess(r); got != tc.want {
			t.Errorf("%q at %s: %s, want %s", tc.msg, tc.level, got, tc.want)
		}
	}
}
