package rowset

import (
	"math"

	"github.com/eddysql/eddy/exec/internal/probe"
)

// Compaction drops dead rows a segment at a time, so that no Apply pays
// for more than the segments its own deletions emptied: once half the
// rows of a sealed segment are dead, its live rows are appended to the
// open segment and it is left empty (sparse). The copy of at most half a
// segment is paid for by the half a segment of deletions that made it
// sparse, so a row costs O(1) amortized however often its key changes,
// and the set holds at most about as many dead rows as live ones.
//
// An emptied segment keeps its place, so no other row moves: the index
// renumbers only the moved rows, a snapshot deletes only the emptied
// segment's entries and writes the moved rows as it writes appended ones,
// and scans skip it. Positions are not reused; when three quarters of the
// 2^31 positions are taken (after about 1.6 billion appends), the set is
// renumbered as a whole (compact), which is the one compaction that copies
// every row.

// sparseDead is the dead rows that make a sealed segment sparse.
const sparseDead = segRows / 2

// maxSegments is how many segments the 2^31 positions hold.
const maxSegments = math.MaxInt32 >> segShift

// renumberAt is how many segments make the set renumber itself, if it
// holds fewer live rows than half their room: three quarters of
// maxSegments, so that the Apply that passes it still has positions for
// every row it can append. Tests lower it.
var renumberAt = maxSegments / 4 * 3

// queueSparse lists segment k for compaction if it is sealed, half dead
// and not listed yet.
func (s *Set) queueSparse(k int) {
	g := s.segs[k]
	if g.sealed && !g.queued && g.n > 0 && g.dead >= sparseDead {
		g.queued = true
		s.sparse = append(s.sparse, int32(k))
	}
}

// maybeCompact compacts segments that became sparse, after an Apply of
// rows rows: as many as move at most that many rows (at least one
// segment), so that an Apply takes at most about twice its own time when
// many segments become sparse at once (uniform updates bring them there
// together); the others wait for the next Apply. It renumbers the whole
// set instead when its positions run short.
func (s *Set) maybeCompact(rows int) {
	if len(s.segs) > renumberAt && s.live < len(s.segs)*segRows/2 {
		s.compact()
		return
	}
	moved, done := 0, 0
	for _, k := range s.sparse {
		if moved >= rows && done > 0 {
			break
		}
		moved += s.compactSegment(int(k))
		done++
	}
	s.sparse = append(s.sparse[:0], s.sparse[done:]...)
}

// compactSegment appends the live rows of segment k to the open segment
// and leaves k empty, if it is still sparse (inserts may have made rows
// of it live again since it was listed), and returns the rows it moved.
func (s *Set) compactSegment(k int) int {
	g := s.segs[k]
	g.queued = false
	if g.dead < sparseDead || g.n == 0 {
		return 0
	}
	s.segs[k] = emptySegment(s.types)
	for r := range g.n {
		if s.indexed && r%peekRows == 0 {
			s.peekIndex(g, r, min(r+peekRows, g.n))
		}
		n := g.count(r)
		if n == 0 {
			continue
		}
		to := s.next()
		dst, _ := s.open() // fewer positions than maxSegments (maybeCompact)
		for j := range dst.cols {
			dst.cols[j].appendFrom(&g.cols[j], r)
		}
		if s.indexed {
			dst.hashes = append(dst.hashes, g.hashes[r])
			s.index.Renumber(g.hashes[r], int32(k)<<segShift|int32(r), to)
		}
		dst.appended(1)
		dst.setCount(dst.n-1, n)
	}
	s.dead -= g.dead
	s.ck.emptied(int32(k))
	return g.n - g.dead
}

// peekRows is how many rows' index slots compactSegment touches ahead of
// renumbering them: enough to overlap many cache misses, few enough that
// the lines stay in cache until their rows move.
const peekRows = 256

// peekIndex touches the index slots of the live rows from..to-1 of g (see
// probe.Index.Peek).
func (s *Set) peekIndex(g *segment, from, to int) {
	var sum int32
	for r := from; r < to; r++ {
		if g.count(r) != 0 {
			sum += s.index.Peek(g.hashes[r])
		}
	}
	s.peeked += sum
}

// compact copies the live rows into new segments, in order, and indexes
// them again if the set is indexed. Positions change: the next snapshot
// writes every row again (checkpoint.full).
func (s *Set) compact() {
	old := s.segs
	s.segs, s.sparse = nil, s.sparse[:0]
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
