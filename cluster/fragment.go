package cluster

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/exec/dataflow"
)

// A query's dataflow (a dataflow.GraphSpec planned at a parallelism above
// one, so that every exchange the results depend on is in it) is cut at
// its exchanges that are not forward: each becomes an Edge, a topic that
// the stages before it write and the stages after it read, and each piece
// between them a Fragment. A fragment runs as tasks, one per partition of
// what it reads — its Kafka source's partitions, or the partitions of the
// edges into it, which all have as many — and every stage of a task runs
// as one instance. The consumer-group protocol spreads a fragment's tasks
// over the members (tasks.go).

// Edge is an exchange of the query's dataflow, cut: a topic.
type Edge struct {
	From, To int // the fragments that write and read it
	Dist     dataflow.Distribution
	Keys     []int // hash keys (input ordinals), for DistHash
	Schema   *arrow.Schema
	// Partitions is the topic's partition count: the reading fragment's
	// tasks (one for a single exchange).
	Partitions int
	Topic      string
}

// Fragment is a connected piece of a query's dataflow.
type Fragment struct {
	// Stages are the fragment's stages, in topological order: first one
	// reader stage (Source nil, filled per task) per edge into the
	// fragment, then the query's stages, their inputs renumbered.
	Stages []dataflow.StageSpec
	// Readers maps the reader stages (the first len(Readers) of Stages)
	// to the edges they read.
	Readers []int
	// Source is the index in Stages of the query's source stage the
	// fragment reads (-1: none; it reads edges).
	Source int
	// Out is the edge the fragment writes (-1: it ends in the query's
	// sink), and OutStage the stage whose chain writes it.
	Out, OutStage int
	// Tasks is the number of the fragment's tasks (Query.bind sets it).
	Tasks int
	// Replica marks a view's last fragment when it only gathers the
	// rows of the fragment before it into the view's sink: it runs no
	// tasks, and every member's replica reads its edge (Query.bind).
	Replica bool
}

// Split is a query's dataflow cut into fragments.
type Split struct {
	Fragments []Fragment
	Edges     []Edge
	// Sink is the fragment whose last stage ends in the query's sink.
	Sink int
}

// SplitGraph cuts g at its exchanges that are not forward. schemaOf
// returns the schema of the rows through an exchange node (its
// InputSpec.NodeID). It refuses a dataflow whose stage sends to more
// than one exchange, and a fragment with more than one source or with a
// source and an edge into it: each fragment's tasks follow one set of
// partitions.
func SplitGraph(g dataflow.GraphSpec, schemaOf func(nodeID int) (*arrow.Schema, error)) (*Split, error) {
	n := len(g.Stages)
	comp := make([]int, n) // union-find over forward exchanges
	for i := range comp {
		comp[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		if comp[i] != i {
			comp[i] = find(comp[i])
		}
		return comp[i]
	}
	outs := make([]int, n) // exchanges out of each stage
	for si, s := range g.Stages {
		for _, in := range s.Inputs {
			outs[in.From]++
			if in.Dist == dataflow.DistForward {
				comp[find(si)] = find(in.From)
			}
		}
	}
	for si, k := range outs {
		if k > 1 {
			return nil, notSupported("stage %d of the dataflow feeds %d exchanges", si, k)
		}
	}
	// Number the fragments in the order of their first stage.
	frag := make([]int, n)
	index := map[int]int{}
	for si := range g.Stages {
		r := find(si)
		if _, ok := index[r]; !ok {
			index[r] = len(index)
		}
		frag[si] = index[r]
	}
	sp := &Split{Fragments: make([]Fragment, len(index)), Sink: frag[n-1]}
	local := make([]int, n) // a stage's index within its fragment
	for fi := range sp.Fragments {
		f := &sp.Fragments[fi]
		f.Source, f.Out, f.OutStage = -1, -1, -1
		// The reader stages first: one per cut exchange into the fragment.
		for si, s := range g.Stages {
			if frag[si] != fi {
				continue
			}
			for _, in := range s.Inputs {
				if in.Dist == dataflow.DistForward {
					continue
				}
				schema, err := schemaOf(in.NodeID)
				if err != nil {
					return nil, err
				}
				e := Edge{From: frag[in.From], To: fi, Dist: in.Dist, Keys: in.Keys, Schema: schema}
				sp.Edges = append(sp.Edges, e)
				f.Readers = append(f.Readers, len(sp.Edges)-1)
				f.Stages = append(f.Stages, dataflow.StageSpec{Parallelism: 1, SourceName: "Shuffle from fragment " + fmt.Sprint(e.From)})
			}
		}
		for si, s := range g.Stages {
			if frag[si] != fi {
				continue
			}
			local[si] = len(f.Stages)
			s.Parallelism = 1
			if s.Source != nil {
				if f.Source >= 0 || len(f.Readers) > 0 {
					return nil, notSupported("a part of the dataflow that reads %s and another input without an exchange between them", s.SourceName)
				}
				f.Source = local[si]
			}
			f.Stages = append(f.Stages, s)
		}
	}
	// Renumber the inputs: a forward one to its stage's place in the
	// fragment, a cut one to its reader stage.
	next := make([]int, len(sp.Fragments)) // the next reader stage of each fragment
	for si, s := range g.Stages {
		fi := frag[si]
		f := &sp.Fragments[fi]
		st := &f.Stages[local[si]]
		st.Inputs = append([]dataflow.InputSpec(nil), s.Inputs...)
		for k, in := range st.Inputs {
			if in.Dist == dataflow.DistForward {
				st.Inputs[k].From = local[in.From]
				continue
			}
			ei := f.Readers[next[fi]]
			st.Inputs[k].From, st.Inputs[k].Dist, st.Inputs[k].Keys = next[fi], dataflow.DistForward, nil
			next[fi]++
			from := &sp.Fragments[frag[in.From]]
			from.Out, from.OutStage = ei, local[in.From]
		}
	}
	return sp, nil
}
