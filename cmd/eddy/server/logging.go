package server

import (
	"context"
	"log/slog"
	"strings"
	"sync"

	vtlog "vitess.io/vitess/go/vt/log"
)

// vitess logs through one logger per process (vitess.io/vitess/go/vt/log),
// to stderr in colour unless replaced, and at Error for what is routine
// for a server: a client that disconnects in the middle of a result is
// "Error writing result to client 3". The first Listen replaces that
// logger with vitessHandler, which gives each message the level it has
// for eddy (classifyVitess) and passes it to the Log of every open
// server (there is one in eddy serve; tests may run several).
var vitessLog struct {
	once    sync.Once
	mu      sync.Mutex
	servers map[*Server]struct{}
}

// routeVitessLog sends vitess's messages to s's Log until
// unrouteVitessLog.
func routeVitessLog(s *Server) {
	vitessLog.once.Do(func() {
		vitessLog.servers = map[*Server]struct{}{}
		vtlog.SwapLogger(slog.New(vitessHandler{}))
	})
	vitessLog.mu.Lock()
	vitessLog.servers[s] = struct{}{}
	vitessLog.mu.Unlock()
}

// unrouteVitessLog stops sending vitess's messages to s's Log.
func unrouteVitessLog(s *Server) {
	vitessLog.mu.Lock()
	delete(vitessLog.servers, s)
	vitessLog.mu.Unlock()
}

// vitessHandler is the slog.Handler vitess logs through.
type vitessHandler struct{}

// Enabled lets every record through: the level is decided by
// classifyVitess and each server's Log.
func (vitessHandler) Enabled(context.Context, slog.Level) bool { return true }

// Handle passes r, at eddy's level for it, to every open server's Log.
func (vitessHandler) Handle(ctx context.Context, r slog.Record) error {
	level := classifyVitess(r)
	vitessLog.mu.Lock()
	defer vitessLog.mu.Unlock()
	for s := range vitessLog.servers {
		h := s.log.Handler()
		if !h.Enabled(ctx, level) {
			continue
		}
		out := slog.NewRecord(r.Time, level, r.Message, r.PC)
		out.AddAttrs(slog.String("from", "vitess"))
		r.Attrs(func(a slog.Attr) bool {
			out.AddAttrs(a)
			return true
		})
		h.Handle(ctx, out)
	}
	return nil
}

// WithAttrs and WithGroup are not used by vitess, which logs through
// its package functions only.
func (h vitessHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h vitessHandler) WithGroup(string) slog.Handler      { return h }

// clientGone are the marks of a message about a client that went away:
// reads that end, writes that fail, a connection vitess or eddy closed.
var clientGone = []string{
	"EOF", "broken pipe", "connection reset by peer", "use of closed network connection",
	"i/o timeout", "Error writing result", "Error writing error", "flush() failed",
	"Error authenticating user", // eddy logs the refusal itself, with the client's address
	errTooMuchInput.Error(),     // eddy logs it itself when it closes the connection
}

// badClient are the marks of a message about a client that broke the
// protocol: garbage instead of a handshake, a packet out of sequence, an
// unknown command.
var badClient = []string{
	"invalid sequence", "Cannot parse client handshake", "Cannot parse post-SSL",
	"may not be a valid MySQL client", "Got unhandled packet", "received invalid response packet",
	"Commands were executed in an improper order", "tls:",
}

// classifyVitess returns eddy's level of a vitess message: Debug for a
// client that went away, Info for a client that broke the protocol
// (neither is the server's failure, and either can be repeated at will
// by anyone who can connect), Error for a panic vitess caught, and
// vitess's own level for anything else.
func classifyVitess(r slog.Record) slog.Level {
	text := r.Message
	r.Attrs(func(a slog.Attr) bool {
		text += " " + a.Value.String()
		return true
	})
	switch {
	case strings.Contains(text, "caught panic"):
		return slog.LevelError
	case containsAny(text, clientGone):
		return slog.LevelDebug
	case containsAny(text, badClient):
		return slog.LevelInfo
	}
	return r.Level
}

// containsAny reports whether s contains any of subs.
func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
