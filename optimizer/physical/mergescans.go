package physical

import (
	"slices"

	"github.com/eddysql/eddy/catalog"
)

// Scans of one stream merged. A query that reads a stream in two places
// — q7 reads the bids once for the maximum price of each window and again
// for the bids it joins with it; a self-join; a UNION ALL of two filters of
// one stream — would run its source twice: two generators, two parsers of
// one file, two readers of one log. When the two scans differ only in the
// columns they read, one scan of the union of their columns feeds both
// places, each through an exchange that passes on its columns
// (Exchange.Project): the exchange that already read the scan, or a
// forward one put where the scan was fused with the operators above it.
// The forward exchange moves each chunk to the next stage without a copy
// (the projection retains the columns it keeps), and the operators that
// were fused with the scan run in that stage instead.
//
// Only scans of a stream that carry nothing of their place are merged:
// not a pull query's pruned view, not a stream that sheds load or
// de-duplicates (each scan has operators of its own below the rest of
// the plan), and not a table, whose scan an upsert follows.

// mergeScans merges the scans of one stream under root that differ only in
// their columns (see above), numbering the nodes it adds from after the
// largest ID in the plan. It runs after the shared sub-plans are found, so
// that a scan two exchanges already share is one scan here.
func mergeScans(root Node) {
	type use struct {
		parent Node
		input  int
	}
	uses := map[*Source][]use{}
	var order []*Source
	maxID := 0
	eachNode(root, func(n Node) {
		maxID = max(maxID, n.Hdr().ID)
		for i, in := range n.Hdr().Inputs {
			if s, ok := in.(*Source); ok && mergeableScan(s) {
				if _, seen := uses[s]; !seen {
					order = append(order, s)
				}
				uses[s] = append(uses[s], use{n, i})
			}
		}
	})
	for len(order) > 0 {
		first := order[0]
		group, rest := []*Source{first}, order[:0]
		for _, s := range order[1:] {
			if sameScan(first, s) {
				group = append(group, s)
			} else {
				rest = append(rest, s)
			}
		}
		order = rest
		if len(group) < 2 {
			continue
		}
		wide := widen(group, maxID+1)
		maxID++
		for _, s := range group {
			proj := make([]int, len(s.Ords))
			identity := len(s.Ords) == len(wide.Ords)
			for i, o := range s.Ords {
				proj[i] = slices.Index(wide.Ords, o)
				identity = identity && proj[i] == i
			}
			if identity {
				proj = nil
			}
			for _, u := range uses[s] {
				if ex, ok := u.parent.(*Exchange); ok {
					ex.Inputs[u.input], ex.Project = wide, composeProject(ex.Project, proj)
					continue
				}
				maxID++
				u.parent.Hdr().Inputs[u.input] = &Exchange{
					Header: Header{ID: maxID, Cols: s.Cols, Inputs: []Node{wide}, Parallelism: s.Parallelism,
						Est: Estimate{RowsPerSec: s.Est.RowsPerSec}},
					Dist: Forward, Project: proj,
				}
			}
		}
	}
}

// mergeableScan reports whether scan s may be merged with another of its
// stream (see above).
func mergeableScan(s *Source) bool {
	return s.Object != nil && s.Object.Kind == catalog.Stream && s.Object.Dedup == nil && !s.Keep && s.Prune == nil
}

// sameScan reports whether scans a and b read the same stream the same way,
// whichever columns each reads.
func sameScan(a, b *Source) bool {
	if a.Parallelism != b.Parallelism {
		return false
	}
	ca, cb := *a, *b
	ca.Header, cb.Header = Header{}, Header{}
	ca.Ords, cb.Ords = nil, nil
	ca.TimeOrd, cb.TimeOrd = 0, 0
	return sameNode(&ca, &cb)
}

// widen returns one scan, numbered id, of the union of the columns of the
// scans of group, in the stream's order.
func widen(group []*Source, id int) *Source {
	cols := map[int]Col{}
	timeOrd := -1
	for _, s := range group {
		for i, o := range s.Ords {
			if _, ok := cols[o]; !ok {
				cols[o] = s.Cols[i]
			}
		}
		if s.TimeOrd >= 0 {
			timeOrd = s.Ords[s.TimeOrd]
		}
	}
	wide := *group[0]
	wide.Header = Header{ID: id, Parallelism: group[0].Parallelism, Est: group[0].Est}
	wide.Ords, wide.TimeOrd = nil, -1
	for o := range cols {
		wide.Ords = append(wide.Ords, o)
	}
	slices.Sort(wide.Ords)
	for i, o := range wide.Ords {
		wide.Cols = append(wide.Cols, cols[o])
		if o == timeOrd {
			wide.TimeOrd = i
		}
	}
	return &wide
}

// composeProject returns the columns of a scan's union that an exchange
// passes on, given those it passed on of the scan and where the scan's
// columns are in the union (nil: all of them, in order).
func composeProject(project, proj []int) []int {
	switch {
	case proj == nil:
		return project
	case project == nil:
		return proj
	}
	out := make([]int, len(project))
	for i, k := range project {
		out[i] = proj[k]
	}
	return out
}
