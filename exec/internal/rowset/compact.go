package rowset

import "github.com/eddysql/eddy/exec/internal/probe"

// minCompact is the fewest dead rows a compaction drops: below it, dead
// rows cost less than copying the live ones.
const minCompact = segRows

// maybeCompact compacts the set once its dead rows are at least
// minCompact and outnumber its live ones: the copy of the live rows is
// paid for by the deletions that made the dead ones, so a row costs O(1)
// amortized however often its key changes.
func (s *Set) maybeCompact() {
	if s.dead < minCompact || s.dead < s.live {
		return
	}
	s.compact()
}

// compact copies the live rows into new segments, in order, and indexes
// them again if the set is indexed. Positions change: the next snapshot
// writes every row again (checkpoint.full).
func (s *Set) compact() {
	old := s.segs
	s.segs = nil
	s.index = probe.Index{}
	var g *segment
	for _, o := range old {
		for r := range o.n {
			n := o.count(r)
			if n == 0 {
				continue
			}
			if g == nil || g.room() == 0 {
				g, _ = s.open() // fewer rows than before: within bounds
			}
			for j := range g.cols {
				g.cols[j].appendFrom(&o.cols[j], r)
			}
			if s.indexed {
				g.hashes = append(g.hashes, o.hashes[r])
			}
			g.appended(1)
			g.setCount(g.n-1, n)
		}
	}
	s.dead = 0
	if s.indexed {
		s.index.Reserve(s.live)
		for k, g := range s.segs {
			for r := range g.n {
				s.index.Insert(g.hashes[r], int32(k)<<segShift|int32(r))
			}
		}
	}
	s.ck.renumbered()
}
