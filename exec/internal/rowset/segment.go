package rowset

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/catalog/types"
)

// segShift sets the rows of a segment: 1<<segShift, two source batches.
// A row's position is its segment's number shifted by segShift plus its
// row in the segment.
const (
	segShift = 13
	segRows  = 1 << segShift
	segMask  = segRows - 1
	// segBytes seals a segment early when one of its VARCHAR columns holds
	// this many bytes, so that its 32-bit offsets cannot overflow.
	segBytes = 1 << 30
)

// segment holds up to segRows rows, column by column, with their counts.
// Rows are only appended; a row whose count falls to zero stays in place,
// dead, until the set is compacted.
type segment struct {
	cols []column
	n    int
	// counts are the rows' counts, nil while every row is held once: an
	// append-only view never makes them.
	counts []int64
	dead   int      // rows whose count is zero
	hashes []uint64 // the rows' key hashes, kept while the set is indexed
	sealed bool     // full: no row will be appended
	queued bool     // listed for compaction (Set.sparse)
	// arrays caches the sealed segment's columns as Arrow arrays.
	arrays []arrow.Array
	// zones cache the sealed segment's columns' bounds, where zoned
	// (zone.go).
	zones []zone
	zoned []bool
}

func newSegment(ts []types.T) *segment {
	s := &segment{cols: make([]column, len(ts))}
	for i, t := range ts {
		s.cols[i] = newColumn(t)
	}
	return s
}

// emptySegment returns a sealed segment of no rows: the place of one a
// compaction emptied, or of one a snapshot holds nothing of.
func emptySegment(ts []types.T) *segment {
	s := newSegment(ts)
	s.sealed = true
	return s
}

// count returns row i's count.
func (g *segment) count(i int) int64 {
	if g.counts == nil {
		return 1
	}
	return g.counts[i]
}

// setCount sets row i's count, making the counts when they are needed.
func (g *segment) setCount(i int, n int64) {
	if g.counts == nil {
		if n == 1 {
			return
		}
		g.counts = make([]int64, g.n, segRows)
		for k := range g.counts {
			g.counts[k] = 1
		}
	}
	g.counts[i] = n
}

// appended records that rows were appended, with count 1 each (counts
// grows with them once made).
func (g *segment) appended(rows int) {
	for g.counts != nil && len(g.counts) < g.n+rows {
		g.counts = append(g.counts, 1)
	}
	g.n += rows
	if g.n == segRows || g.stringBytes() >= segBytes {
		g.sealed = true
	}
}

// stringBytes returns the bytes of the segment's largest VARCHAR column.
func (g *segment) stringBytes() int {
	n := 0
	for i := range g.cols {
		n = max(n, len(g.cols[i].data))
	}
	return n
}

// room returns how many rows may still be appended.
func (g *segment) room() int {
	if g.sealed {
		return 0
	}
	return segRows - g.n
}

// columns returns the segment's columns over its rows as Arrow arrays,
// sharing its memory. A sealed segment's are made once; an open segment's
// cover the rows held now, and share bytes its next appends write (the
// last byte of a bitmap): they must be read before the set changes, or
// copied.
func (g *segment) columns() []arrow.Array {
	if g.arrays != nil {
		return g.arrays
	}
	out := make([]arrow.Array, len(g.cols))
	for i := range g.cols {
		out[i] = g.cols[i].array(g.n)
	}
	if g.sealed {
		g.arrays = out
	}
	return out
}

// bytes returns the memory the segment holds.
func (g *segment) bytes() int64 {
	n := int64(8*cap(g.counts) + 8*cap(g.hashes))
	for i := range g.cols {
		n += g.cols[i].bytes()
	}
	return n
}

// datums returns row i's values.
func (g *segment) datums(i int) []types.Datum {
	out := make([]types.Datum, len(g.cols))
	for j := range g.cols {
		out[j] = g.cols[j].datum(i)
	}
	return out
}
