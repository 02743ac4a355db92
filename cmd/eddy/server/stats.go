package server

import "sync/atomic"

// Stats are a server's counters since it started, and its open
// connections now.
type Stats struct {
	// ConnectionsAccepted counts the connections let in by the
	// connection limits (before authentication).
	ConnectionsAccepted int64
	// ConnectionsRefused counts the connections refused before a
	// session: by MaxConnections or MaxConnectionsPerClient, or without
	// TLS under RequireTLS.
	ConnectionsRefused int64
	// AuthFailures counts the logins refused for a wrong user or
	// password (ER_ACCESS_DENIED_ERROR).
	AuthFailures int64
	// Open is the number of connections open now: accepted and not yet
	// closed, authenticated or not.
	Open int64
	// StatementsRefused counts the statements refused by
	// MaxStatementsPerClient or MaxStatementBytes, and the logged-in
	// connections closed for sending more than twice MaxStatementBytes
	// at once.
	StatementsRefused int64
}

// counters are the atomics behind Stats.
type counters struct {
	accepted, refused, authFailures, open, stmtsRefused atomic.Int64
}

// Stats returns the server's counters. It is safe to call at any time,
// from any goroutine, also after Close.
func (s *Server) Stats() Stats {
	return Stats{
		ConnectionsAccepted: s.stats.accepted.Load(),
		ConnectionsRefused:  s.stats.refused.Load(),
		AuthFailures:        s.stats.authFailures.Load(),
		Open:                s.stats.open.Load(),
		StatementsRefused:   s.stats.stmtsRefused.Load(),
	}
}
