package cluster

import (
	"context"
	"slices"
	"time"
)

// A member that dies leaves every group of a query once its session
// times out. A broker that keeps it in one group (kfake does, for a
// member killed in the middle of a rebalance) keeps that fragment's
// tasks assigned to it, and so stopped, for good. The watchdog looks for
// that: a member in one of the query's stable groups that is in none of
// the others, twice in a row, makes the member's own group client rejoin,
// which starts a rebalance that drops members that do not rejoin.

// watch runs the watchdog until ctx is done.
func (q *Query) watch(ctx context.Context) {
	every := q.m.cfg.SessionTimeout
	tick := time.NewTicker(every)
	defer tick.Stop()
	suspects := map[int][]string{} // by fragment: the members suspected at the last look
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		frags, err := q.Describe(ctx)
		if err != nil {
			continue
		}
		// in[member] counts the stable groups the member is in.
		in, groups := map[string]int{}, 0
		for _, f := range frags {
			if f.State != "Stable" || q.frags[f.Index] == nil {
				continue
			}
			groups++
			for _, m := range f.Members {
				in[m.Member]++
			}
		}
		now := map[int][]string{}
		for _, f := range frags {
			r := q.frags[f.Index]
			if f.State != "Stable" || r == nil {
				continue
			}
			for _, m := range f.Members {
				if in[m.Member] == 1 && groups > 1 {
					now[f.Index] = append(now[f.Index], m.Member)
				}
			}
			if len(now[f.Index]) > 0 && slices.Equal(now[f.Index], suspects[f.Index]) {
				q.m.log.Warn("a fragment's group keeps members the query's other groups lost: rejoining it to drop them",
					"query", q.spec.Name, "fragment", f.Index, "members", now[f.Index])
				r.cl.ForceRebalance()
				delete(now, f.Index)
			}
		}
		suspects = now
	}
}
