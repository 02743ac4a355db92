package rowset

import (
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/probe"
	"github.com/eddysql/eddy/exec/internal/vec"
)

// Set is the integral of the changes applied to it: rows, each with its
// count, identified by their key (every column when there is none). It is
// not safe for concurrent use.
type Set struct {
	types []types.T
	key   []int // ordinals of a unique key; nil: rows form a multiset
	segs  []*segment
	live  int // rows whose count is not zero
	dead  int // rows whose count is zero, until compaction

	// indexed says index holds every live row, by the hash of its key.
	indexed bool
	index   probe.Index

	// sparse lists the segments to compact after the current Apply
	// (compact.go); peeked sums what compactions read ahead, so that the
	// loads are not dropped as unused.
	sparse []int32
	peeked int32

	// upsert makes an insert of a key held replace its rows (SetUpsert);
	// replaced lists the rows the last Apply replaced.
	upsert   bool
	replaced []Replaced

	ck checkpoint // what the last snapshot wrote (state.go)

	// Scratch of Apply.
	hashes  []uint64
	keyCols []arrow.Array
	sel     []int32
	pos     []int32
}

// Replaced is a row an insert replaced in an upsert set: the insert's
// index in the chunk, and the values it replaced.
type Replaced struct {
	Row int
	Old []types.Datum
}

// New returns an empty set of rows of types ts. key lists the ordinals of
// a unique key of the rows, if they have one.
func New(ts []types.T, key []int) *Set {
	return &Set{types: ts, key: key}
}

// SetUpsert makes a keyed set replace the rows of a key it holds when an
// insert of that key arrives, rather than hold the key twice: the query
// feeding it may forget a key's row without retracting it (a state TTL's
// eviction) and later insert a new row for the key.
func (s *Set) SetUpsert() { s.upsert = s.key != nil }

// Replaced returns the rows the last Apply replaced, in order.
func (s *Set) Replaced() []Replaced { return s.replaced }

// Len returns the number of rows held, each counted once however often it
// is held: exactly the distinct rows once the set is indexed, while an
// append-only set stores a repeated row as often as it came.
func (s *Set) Len() int { return s.live }

// Bytes returns the memory the set holds: its columns, counts, hashes and
// index.
func (s *Set) Bytes() int64 {
	n := s.index.Bytes() + s.ck.bytes()
	for _, g := range s.segs {
		n += g.bytes()
	}
	return n
}

// next returns the position the next appended row takes.
func (s *Set) next() int32 {
	if len(s.segs) == 0 {
		return 0
	}
	last := s.segs[len(s.segs)-1]
	if last.sealed {
		return int32(len(s.segs)) << segShift
	}
	return int32(len(s.segs)-1)<<segShift | int32(last.n)
}

// open returns the segment rows are appended to.
func (s *Set) open() (*segment, error) {
	if len(s.segs) > 0 && !s.segs[len(s.segs)-1].sealed {
		return s.segs[len(s.segs)-1], nil
	}
	if len(s.segs) > 0 {
		s.queueSparse(len(s.segs) - 1) // sealed with rows dead already
	}
	if len(s.segs) >= maxSegments {
		return nil, fmt.Errorf("exec: a result of more than %d rows is not supported yet", math.MaxInt32)
	}
	g := newSegment(s.types)
	if len(s.segs) > 0 {
		// The set fills segments: make this one's room at once, rather
		// than grow it by copies.
		prev := s.segs[len(s.segs)-1]
		for j := range g.cols {
			g.cols[j].reserve(segRows, len(prev.cols[j].data))
		}
	}
	if s.indexed {
		g.hashes = make([]uint64, 0, segRows)
	}
	s.segs = append(s.segs, g)
	return g, nil
}

// keyColumns returns cols' key columns.
func (s *Set) keyColumns(cols []arrow.Array) []arrow.Array {
	if s.key == nil {
		return cols
	}
	s.keyCols = s.keyCols[:0]
	for _, k := range s.key {
		s.keyCols = append(s.keyCols, cols[k])
	}
	return s.keyCols
}

// Apply integrates a chunk of changes. A retraction of a row the set does
// not hold is a broken invariant of the query that feeds it and is
// reported as an error; the rows before it stay applied.
func (s *Set) Apply(c exec.Chunk) error {
	s.replaced = s.replaced[:0]
	n := c.NumRows()
	if n == 0 {
		return nil
	}
	cols := c.Batch.Columns()
	if !s.indexed && !s.upsert && c.AppendOnly() {
		// Append-only: a copy of the columns, nothing per row.
		for from := 0; from < n; {
			g, err := s.open()
			if err != nil {
				return err
			}
			k := min(g.room(), n-from)
			for j := range g.cols {
				g.cols[j].appendRange(cols[j], from, from+k)
			}
			g.appended(k)
			from += k
		}
		s.live += n
		s.maybeCompact(n)
		return nil
	}
	if err := s.buildIndex(); err != nil {
		return err
	}
	err := s.applyIndexed(c, cols)
	s.maybeCompact(n)
	return err
}

// applyIndexed applies a chunk through the index. The chunk's inserts are
// appended first, all at once; then its rows are applied in order: an
// insert of a row held already adds to that row's count (its appended copy
// is dead from the start), any other becomes live and indexed.
func (s *Set) applyIndexed(c exec.Chunk, cols []arrow.Array) error {
	n := c.NumRows()
	keys := s.keyColumns(cols)
	s.hashes = vec.Resize(s.hashes, n)
	if err := exec.HashRows(keys, s.hashes); err != nil {
		return err
	}
	s.sel = s.sel[:0]
	for i := range n {
		if c.Op(i).Weight() > 0 {
			s.sel = append(s.sel, int32(i))
		}
	}
	s.pos = vec.Resize(s.pos, n)
	if err := s.appendSel(cols, s.sel); err != nil {
		return err
	}
	for i := range n {
		w, h := c.Op(i).Weight(), s.hashes[i]
		if w > 0 {
			s.insert(cols, keys, i, w, h)
			continue
		}
		pos := s.index.Find(h, func(p int32) bool { return s.sameRow(p, cols, i, h) })
		if pos < 0 && s.key != nil {
			// A retraction of values the key does not hold counts against
			// the key: the change of another parallel instance, as the
			// query's key would have it.
			pos = s.index.Find(h, func(p int32) bool { return s.sameKey(p, keys, i, h) })
		}
		if pos < 0 {
			return fmt.Errorf("exec: retraction of a row the result does not hold: (%s)", s.format(s.rowAt(cols, i)))
		}
		s.addCount(pos, w)
	}
	return nil
}

// insert applies row i of cols, an insert of weight w whose key hashes
// to h, appended at s.pos[i].
func (s *Set) insert(cols, keys []arrow.Array, i int, w int64, h uint64) {
	p := s.pos[i]
	if s.upsert {
		for {
			old := s.index.Find(h, func(q int32) bool { return s.sameKey(q, keys, i, h) })
			if old < 0 {
				break
			}
			g := s.segs[old>>segShift]
			if len(s.replaced) == 0 || s.replaced[len(s.replaced)-1].Row != i {
				s.replaced = append(s.replaced, Replaced{Row: i, Old: g.datums(int(old & segMask))})
			}
			s.addCount(old, -g.count(int(old&segMask)))
		}
	} else if old := s.index.Find(h, func(q int32) bool { return s.sameRow(q, cols, i, h) }); old >= 0 {
		s.addCount(old, w) // its appended copy stays dead
		return
	}
	g := s.segs[p>>segShift]
	g.setCount(int(p&segMask), w)
	g.dead--
	s.dead--
	s.index.Insert(h, p)
	s.live++
}

// appendSel appends rows sel of cols, recording each one's position in
// s.pos, with its key hash from s.hashes. They are dead until insert
// makes them live.
func (s *Set) appendSel(cols []arrow.Array, sel []int32) error {
	for from := 0; from < len(sel); {
		g, err := s.open()
		if err != nil {
			return err
		}
		k := min(g.room(), len(sel)-from)
		part := sel[from : from+k]
		for j := range g.cols {
			g.cols[j].appendSel(cols[j], part)
		}
		base := s.next()
		for r, i := range part {
			s.pos[i] = base + int32(r)
			g.hashes = append(g.hashes, s.hashes[i])
		}
		g.appended(k)
		for r := g.n - k; r < g.n; r++ {
			g.setCount(r, 0)
		}
		g.dead += k
		s.dead += k
		from += k
	}
	return nil
}

// addCount adds w to the count of the live row at pos; a row whose count
// falls to zero dies.
func (s *Set) addCount(pos int32, w int64) {
	g, r := s.segs[pos>>segShift], int(pos&segMask)
	n := g.count(r) + w
	s.ck.changed(pos)
	if n != 0 {
		g.setCount(r, n)
		return
	}
	s.index.Remove(g.hashes[r], pos)
	s.live--
	s.kill(pos)
}

// kill marks the row at pos dead (it is not indexed).
func (s *Set) kill(pos int32) {
	g, r := s.segs[pos>>segShift], int(pos&segMask)
	if g.count(r) == 0 {
		return
	}
	g.setCount(r, 0)
	g.dead++
	s.dead++
	s.queueSparse(int(pos >> segShift))
}

// sameKey reports whether the live row at pos, of key hash h, has the key
// of row i of keys.
func (s *Set) sameKey(pos int32, keys []arrow.Array, i int, h uint64) bool {
	g, r := s.segs[pos>>segShift], int(pos&segMask)
	if g.hashes[r] != h {
		return false
	}
	if s.key == nil {
		return g.equalRow(r, keys, i)
	}
	for k, o := range s.key {
		if !g.cols[o].equalAt(r, keys[k], i) {
			return false
		}
	}
	return true
}

// sameRow reports whether the live row at pos, of key hash h, holds the
// values of row i of cols.
func (s *Set) sameRow(pos int32, cols []arrow.Array, i int, h uint64) bool {
	g, r := s.segs[pos>>segShift], int(pos&segMask)
	return g.hashes[r] == h && g.equalRow(r, cols, i)
}

// equalRow reports whether row r holds the values of row i of cols.
func (g *segment) equalRow(r int, cols []arrow.Array, i int) bool {
	for j := range g.cols {
		if !g.cols[j].equalAt(r, cols[j], i) {
			return false
		}
	}
	return true
}

// buildIndex indexes every live row by its key's hash, once.
func (s *Set) buildIndex() error {
	if s.indexed {
		return nil
	}
	for _, g := range s.segs {
		arrays := g.columns()
		g.hashes = vec.Resize(g.hashes, g.n)
		err := exec.HashRows(s.keyColumns(arrays), g.hashes)
		if !g.sealed {
			for _, a := range arrays {
				a.Release()
			}
		}
		if err != nil {
			return err
		}
	}
	s.index.Reserve(s.live)
	for k, g := range s.segs {
		for r := range g.n {
			if g.count(r) != 0 {
				pos := int32(k)<<segShift | int32(r)
				s.index.Insert(g.hashes[r], pos)
			}
		}
		s.queueSparse(k) // a restored segment may be sparse
	}
	s.indexed = true
	return nil
}

// format renders a row's values as SQL prints them, for errors.
func (s *Set) format(row []types.Datum) string {
	parts := make([]string, len(row))
	for j, d := range row {
		parts[j] = types.Format(d, s.types[j])
	}
	return strings.Join(parts, ", ")
}

func (s *Set) rowAt(cols []arrow.Array, i int) []types.Datum {
	vals := make([]types.Datum, len(cols))
	for j, col := range cols {
		vals[j] = types.DatumAt(col, i, s.types[j])
	}
	return vals
}
