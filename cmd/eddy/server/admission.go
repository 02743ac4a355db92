package server

import (
	"fmt"
	"sync"

	"vitess.io/vitess/go/mysql/sqlerror"
)

// gate counts what each client address holds, connections and running
// statements, against the Limits. A refusal touches nothing but the
// refused connection or statement.
type gate struct {
	limits Limits

	mu      sync.Mutex
	open    int                   // connections admitted and not yet closed
	clients map[string]*clientUse // by client address; dropped when it holds nothing
}

// clientUse is what one client address holds.
type clientUse struct{ conns, stmts int }

// newGate returns a gate enforcing limits (with their defaults).
func newGate(limits Limits) *gate {
	return &gate{limits: limits, clients: map[string]*clientUse{}}
}

// The SQLSTATEs of the refusals vitess does not name.
const (
	ssConCount     = "08004" // ER_CON_COUNT_ERROR
	ssPacketTooBig = "08S01" // ER_NET_PACKET_TOO_LARGE
)

// admit takes a connection for host, or returns the MySQL error that
// refuses it.
func (g *gate) admit(host string) *sqlerror.SQLError {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.open >= g.limits.MaxConnections {
		return sqlerror.NewSQLError(sqlerror.ERConCount, ssConCount,
			fmt.Sprintf("Too many connections: the server has %d open, the most --max-connections allows", g.open))
	}
	u := g.clients[host]
	if u == nil {
		u = &clientUse{}
		g.clients[host] = u
	}
	if u.conns >= g.limits.MaxConnectionsPerClient {
		return sqlerror.NewSQLError(sqlerror.ERTooManyUserConnections, sqlerror.SSClientError,
			fmt.Sprintf("Too many connections from %s: it has %d open, the most --max-connections-per-client allows", host, u.conns))
	}
	u.conns++
	g.open++
	return nil
}

// leave gives back a connection admit took for host.
func (g *gate) leave(host string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.open--
	if u := g.clients[host]; u != nil {
		u.conns--
		g.forgetIdle(host, u)
	}
}

// startStatement takes a statement slot for host, or returns the MySQL
// error that refuses the statement. The caller calls endStatement once
// the statement (a push query: its stream) is over.
func (g *gate) startStatement(host string) *sqlerror.SQLError {
	g.mu.Lock()
	defer g.mu.Unlock()
	u := g.clients[host]
	if u == nil {
		u = &clientUse{}
		g.clients[host] = u
	}
	if u.stmts >= g.limits.MaxStatementsPerClient {
		return sqlerror.NewSQLError(sqlerror.ERUserLimitReached, sqlerror.SSClientError,
			fmt.Sprintf("%s is running %d statements, the most --max-statements-per-client allows; try again when one has ended", host, u.stmts))
	}
	u.stmts++
	return nil
}

// endStatement gives back a slot startStatement took for host.
func (g *gate) endStatement(host string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if u := g.clients[host]; u != nil {
		u.stmts--
		g.forgetIdle(host, u)
	}
}

// forgetIdle drops the entry of a client that holds nothing, so that the
// map stays as small as the clients connected. g.mu is held.
func (g *gate) forgetIdle(host string, u *clientUse) {
	if u.conns <= 0 && u.stmts <= 0 {
		delete(g.clients, host)
	}
}

// checkStatementSize refuses statement text longer than the limit.
func (g *gate) checkStatementSize(n int) *sqlerror.SQLError {
	if n <= g.limits.MaxStatementBytes {
		return nil
	}
	return sqlerror.NewSQLError(sqlerror.ERNetPacketTooLarge, ssPacketTooBig,
		fmt.Sprintf("Got a packet bigger than 'max_allowed_packet' bytes: a statement of %d bytes, longer than the %d bytes --max-statement-bytes allows", n, g.limits.MaxStatementBytes))
}
