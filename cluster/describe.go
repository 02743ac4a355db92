package cluster

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/eddysql/eddy/exec/dataflow"
)

// FragmentInfo describes a fragment of a cluster query and, as its
// consumer group says, which member runs which of its tasks.
type FragmentInfo struct {
	Index  int
	Reads  string // the fragment's input: a stream or the fragments whose edges it reads
	Writes string // the fragment's output: an edge to another fragment, or the view's changes
	Tasks  int
	// Members are the group's members and the tasks (partitions) each
	// runs, by member name; a fragment whose group has no member yet has
	// none.
	Members []MemberTasks
	// State is the group's state (Stable, PreparingRebalance, ...).
	State string
	// Failing are this member's tasks of the fragment that failed and
	// wait to start again from their last checkpoint, with why.
	Failing []string
}

// MemberTasks is one member's tasks of a fragment.
type MemberTasks struct {
	Member string
	Tasks  []int32
}

// Describe returns the query's fragments and, from the brokers, which
// member runs which task of each.
func (q *Query) Describe(ctx context.Context) ([]FragmentInfo, error) {
	sp := q.split
	groups := make([]string, len(sp.Fragments))
	for fi := range sp.Fragments {
		groups[fi] = q.group(fi)
	}
	described, err := q.m.adm.DescribeGroups(ctx, groups...)
	if err != nil {
		return nil, fmt.Errorf("cluster: describing the groups of %s: %w", q.spec.Name, err)
	}
	out := make([]FragmentInfo, len(sp.Fragments))
	for fi, f := range sp.Fragments {
		info := FragmentInfo{Index: fi, Tasks: f.Tasks, Reads: q.reads(fi), Writes: q.writes(fi)}
		if r := q.frags[fi]; r != nil {
			info.Failing = r.failing()
		}
		if f.Replica {
			info.Tasks, info.Writes, info.State = 0, "the view on every member", "Replica"
			out[fi] = info
			continue
		}
		if g, ok := described[groups[fi]]; ok && g.Err == nil {
			info.State = g.State
			for _, m := range g.Members {
				mt := MemberTasks{Member: memberName(m.ClientID)}
				if c, ok := m.Assigned.AsConsumer(); ok {
					for _, t := range c.Topics {
						mt.Tasks = append(mt.Tasks, t.Partitions...)
					}
				}
				slices.Sort(mt.Tasks)
				info.Members = append(info.Members, mt)
			}
			slices.SortFunc(info.Members, func(a, b MemberTasks) int { return strings.Compare(a.Member, b.Member) })
		}
		out[fi] = info
	}
	return out, nil
}

// group names fragment fi's consumer group.
func (q *Query) group(fi int) string { return fmt.Sprintf("%s-f%d", q.prefix, fi) }

// reads says what fragment fi reads.
func (q *Query) reads(fi int) string {
	f := q.split.Fragments[fi]
	if f.Source >= 0 {
		return f.Stages[f.Source].SourceName
	}
	var ins []string
	for _, ei := range f.Readers {
		e := q.split.Edges[ei]
		ins = append(ins, fmt.Sprintf("fragment %d (%s)", e.From, distName(e)))
	}
	return strings.Join(ins, ", ")
}

// writes says what fragment fi writes.
func (q *Query) writes(fi int) string {
	f := q.split.Fragments[fi]
	if f.Out < 0 {
		return "the sink"
	}
	e := q.split.Edges[f.Out]
	if e.To < 0 || q.split.Fragments[e.To].Replica {
		return "the view's changes (" + e.Topic + ")"
	}
	return fmt.Sprintf("fragment %d (%s, %s)", e.To, distName(e), e.Topic)
}

// distName describes an edge's distribution.
func distName(e Edge) string {
	switch e.Dist {
	case dataflow.DistHash:
		return "by key group"
	case dataflow.DistBroadcast:
		return "broadcast"
	case dataflow.DistSingle:
		return "gathered"
	}
	return "spread"
}
