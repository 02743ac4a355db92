package cluster

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// A member that dies leaves every group once its session times out. A
// broker that keeps it in some groups (kfake does, for a member killed
// between its JoinGroup and the broker's answer: the member never gets a
// session timer) keeps those fragments' tasks assigned to it, and so
// stopped, for good. Every member joins every fragment's group of every
// query, so a live member is, once the groups settle, in all of the
// stable ones; a dead one the broker keeps is in only some. The
// watchdog looks for that: a member in fewer than all the stable groups
// of the member's queries, twice in a row a session timeout apart, makes
// this member's own client of each group that holds it rejoin, which
// starts a rebalance that drops members that do not rejoin.
//
// Members are told apart by incarnation, not only by name: a member
// restarted under its name is a new client ID, so the dead incarnation a
// broker keeps is not mistaken for the live one.

// clientID names the member's group clients: its name and its
// incarnation, a random number of the process's.
func (m *Member) clientID() string { return m.cfg.Member + "/" + m.incarnation }

// memberName is the member's name in a group client's ID.
func memberName(clientID string) string {
	if i := strings.LastIndexByte(clientID, '/'); i >= 0 {
		return clientID[:i]
	}
	return clientID
}

// newIncarnation returns a random incarnation.
func newIncarnation() string { return fmt.Sprintf("%08x", rand.Uint32()) }

// register adds q to the queries the watchdog looks at.
func (m *Member) register(q *Query) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.queries[q] = struct{}{}
}

// unregister removes q from the queries the watchdog looks at.
func (m *Member) unregister(q *Query) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.queries, q)
}

// watchedGroup is one fragment's group the watchdog looks at.
type watchedGroup struct {
	q  *Query
	fi int
}

// watch runs the watchdog until ctx is done.
func (m *Member) watch(ctx context.Context) {
	tick := time.NewTicker(m.cfg.SessionTimeout)
	defer tick.Stop()
	var suspects map[string][]string // by group: the members suspected at the last look
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		suspects = m.look(ctx, suspects)
	}
}

// look describes the groups of the member's queries once and makes the
// member's clients rejoin the groups that hold a member suspected now
// and at the last look (before). It returns the suspects of this look.
func (m *Member) look(ctx context.Context, before map[string][]string) map[string][]string {
	m.mu.Lock()
	qs := slices.Collect(maps.Keys(m.queries))
	m.mu.Unlock()
	byName := map[string]watchedGroup{}
	for _, q := range qs {
		for fi, r := range q.frags {
			if r != nil {
				byName[q.group(fi)] = watchedGroup{q, fi}
			}
		}
	}
	if len(byName) < 2 {
		return nil
	}
	described, err := m.adm.DescribeGroups(ctx, slices.Collect(maps.Keys(byName))...)
	if err != nil {
		return before // the next look tries again
	}
	// in[client] counts the stable groups the client is in.
	in, stable := map[string]int{}, 0
	for name := range byName {
		g, ok := described[name]
		if !ok || g.Err != nil || g.State != "Stable" {
			continue
		}
		stable++
		for _, gm := range g.Members {
			in[gm.ClientID]++
		}
	}
	now := map[string][]string{}
	for name, w := range byName {
		g, ok := described[name]
		if !ok || g.Err != nil || g.State != "Stable" {
			continue
		}
		var lost []string
		for _, gm := range g.Members {
			if in[gm.ClientID] < stable {
				lost = append(lost, gm.ClientID)
			}
		}
		if len(lost) == 0 {
			continue
		}
		slices.Sort(lost)
		if !slices.Equal(lost, before[name]) {
			now[name] = lost
			continue
		}
		if w.q.ctx.Err() != nil {
			continue // stopped since
		}
		m.log.Warn("a fragment's group keeps members the member's other groups lost: rejoining it to drop them",
			"query", w.q.spec.Name, "fragment", w.fi, "members", lost)
		w.q.frags[w.fi].cl.ForceRebalance()
	}
	return now
}
