package rowset

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/probe"
)

// Incremental snapshots of a Set. A snapshot writes two kinds of entries:
//
//   - a rows entry, key 0xC1 and the big-endian position of its first row,
//     holds rows appended since the previous snapshot (one per segment they
//     fill): their number, then for each live one its distance from the
//     first position (uvarint), its count (varint) and its values as
//     EncodeRow encodes them;
//   - a count entry, key 0xC2 and a row's big-endian position, holds the
//     count (varint) of a row an earlier rows entry holds, when it changed
//     since — zero for a row gone.
//
// So an append-only set's snapshot is one entry, and an updating set's
// costs the rows it changed. A snapshot after a compaction or a restore
// (which renumber the rows) writes every row again and deletes the entries
// before. Earlier eddy wrote one entry per row, keyed by the row's key
// (rowkey's encoding, which starts with a NULL flag, 0 or 1) and valued by
// EncodeRow: Load reads those too, and the next snapshot replaces them.

const (
	rowsTag  = 0xC1
	countTag = 0xC2
)

// checkpoint is what the snapshots of a set wrote, and what changed since.
type checkpoint struct {
	track bool  // a snapshot was written or restored: changes are tracked
	full  bool  // the next snapshot writes every row again
	end   int32 // rows at positions below end are in the snapshot's entries
	dirty []int32
	mark  []uint64 // bit p: p is in dirty
	// What the checkpoint holds, for a full rewrite to delete.
	chunks []int32 // first positions of rows entries
	counts []int32 // positions with a count entry
	legacy [][]byte
	// drops lists the segments emptied since (compactSegment): the next
	// snapshot deletes their entries.
	drops []int32
}

// changed records that the count of the row at pos changed.
func (c *checkpoint) changed(pos int32) {
	if !c.track || c.full || pos >= c.end {
		return
	}
	w := int(pos) >> 6
	for len(c.mark) <= w {
		c.mark = append(c.mark, 0)
	}
	if c.mark[w]&(1<<(pos&63)) == 0 {
		c.mark[w] |= 1 << (pos & 63)
		c.dirty = append(c.dirty, pos)
	}
}

// emptied records that the rows of segment k moved to the end of the
// set (compactSegment): the next snapshot deletes the entries of k and
// writes the moved rows as it writes appended ones.
func (c *checkpoint) emptied(k int32) {
	if c.track && !c.full {
		c.drops = append(c.drops, k)
	}
}

// renumbered records that the rows moved: the next snapshot writes them
// all again.
func (c *checkpoint) renumbered() {
	if c.track {
		c.full = true
	}
}

func (c *checkpoint) bytes() int64 {
	return int64(4*(cap(c.dirty)+cap(c.chunks)+cap(c.counts)) + 8*cap(c.mark))
}

func appendPos(buf []byte, tag byte, pos int32) []byte {
	return binary.BigEndian.AppendUint32(append(buf, tag), uint32(pos))
}

// WriteChanges writes the set's changes since the previous call (every
// row, the first time) to w, in group. If it fails, the next call writes
// every row again.
func (s *Set) WriteChanges(group int, w exec.StateWriter) error {
	c := &s.ck
	if err := s.writeChanges(group, w); err != nil {
		c.track, c.full = true, true
		return err
	}
	c.track, c.full, c.end = true, false, s.next()
	for _, p := range c.dirty {
		c.mark[p>>6] = 0
	}
	if len(c.drops) > 0 {
		// Forgotten only now: after a failed write, the next (a full
		// rewrite) deletes them with the rest.
		emptied := func(p int32) bool { return slices.Contains(c.drops, p>>segShift) }
		c.chunks, c.counts = slices.DeleteFunc(c.chunks, emptied), slices.DeleteFunc(c.counts, emptied)
	}
	c.dirty, c.drops = c.dirty[:0], c.drops[:0]
	return nil
}

func (s *Set) writeChanges(group int, w exec.StateWriter) error {
	c := &s.ck
	var key, buf []byte
	from := c.end
	if !c.track || c.full {
		for _, k := range c.legacy {
			if err := w.Delete(group, k); err != nil {
				return err
			}
		}
		for _, p := range c.chunks {
			if err := w.Delete(group, appendPos(key[:0], rowsTag, p)); err != nil {
				return err
			}
		}
		for _, p := range c.counts {
			if err := w.Delete(group, appendPos(key[:0], countTag, p)); err != nil {
				return err
			}
		}
		c.legacy, c.chunks, c.counts, from = nil, c.chunks[:0], c.counts[:0], 0
	}
	if from > 0 {
		if err := s.deleteEmptied(group, w); err != nil {
			return err
		}
	}
	for _, p := range c.dirty {
		if from == 0 {
			break // a full rewrite: the rows entries hold the counts
		}
		g, r := s.segs[p>>segShift], int(p&segMask)
		if r >= g.n {
			continue // its segment was emptied: its rows moved
		}
		buf = binary.AppendVarint(buf[:0], g.count(r))
		if err := w.Put(group, appendPos(key[:0], countTag, p), buf); err != nil {
			return err
		}
		c.counts = append(c.counts, p)
	}
	for k := int(from >> segShift); k < len(s.segs); k++ {
		g, first := s.segs[k], 0
		if k == int(from>>segShift) {
			first = int(from & segMask)
		}
		if first >= g.n {
			continue
		}
		start := int32(k)<<segShift | int32(first)
		buf = binary.AppendUvarint(buf[:0], uint64(g.n-first))
		for r := first; r < g.n; r++ {
			n := g.count(r)
			if n == 0 {
				continue
			}
			buf = binary.AppendUvarint(buf, uint64(r-first))
			buf = binary.AppendVarint(buf, n)
			for j := range g.cols {
				buf = g.cols[j].appendEncoded(buf, r)
			}
		}
		if err := w.Put(group, appendPos(key[:0], rowsTag, start), buf); err != nil {
			return err
		}
		c.chunks = append(c.chunks, start)
	}
	return nil
}

// deleteEmptied deletes the entries of the segments emptied since the
// previous snapshot (WriteChanges forgets them once the write is done).
func (s *Set) deleteEmptied(group int, w exec.StateWriter) error {
	c := &s.ck
	var key []byte
	for _, p := range c.chunks {
		if slices.Contains(c.drops, p>>segShift) {
			if err := w.Delete(group, appendPos(key[:0], rowsTag, p)); err != nil {
				return err
			}
		}
	}
	for _, p := range c.counts {
		if slices.Contains(c.drops, p>>segShift) {
			if err := w.Delete(group, appendPos(key[:0], countTag, p)); err != nil {
				return err
			}
		}
	}
	return nil
}

// Load puts back one entry a snapshot wrote (WriteChanges, or an earlier
// eddy's one entry per row), in the order of their keys. The rows take
// the positions they had, so the next snapshot goes on from the restored
// one; rows of an earlier eddy's entries are appended, and the next
// snapshot replaces those entries.
func (s *Set) Load(key, value []byte) error {
	c := &s.ck
	c.track = true
	if s.indexed {
		// Restored rows are indexed when the index is next needed.
		s.indexed, s.index = false, probe.Index{}
		for _, g := range s.segs {
			g.hashes = nil
		}
	}
	if len(key) == 0 {
		return errDamaged
	}
	switch key[0] {
	case 0, 1:
		count, vals, err := DecodeRow(value, s.types)
		if err != nil {
			return err
		}
		g, err := s.open()
		if err != nil {
			return err
		}
		for j := range g.cols {
			g.cols[j].appendDatum(vals[j])
		}
		s.appendedOne(g, count)
		c.legacy = append(c.legacy, append([]byte(nil), key...))
		c.full = true
		return nil
	case rowsTag:
		if len(key) != 5 {
			return errDamaged
		}
		start := int32(binary.BigEndian.Uint32(key[1:]))
		if err := s.loadRows(start, value); err != nil {
			return err
		}
		c.chunks = append(c.chunks, start)
		c.end = s.next()
		return nil
	case countTag:
		if len(key) != 5 {
			return errDamaged
		}
		n, k := binary.Varint(value)
		if k <= 0 || k != len(value) {
			return errDamaged
		}
		pos := int32(binary.BigEndian.Uint32(key[1:]))
		if err := s.loadCount(pos, n); err != nil {
			return err
		}
		c.counts = append(c.counts, pos)
		return nil
	}
	return fmt.Errorf("%w: an entry of tag %#x", errDamaged, key[0])
}

// appendedOne records a row just appended to g, held count times.
func (s *Set) appendedOne(g *segment, count int64) {
	g.appended(1)
	g.setCount(g.n-1, count)
	if count == 0 {
		g.dead++
		s.dead++
		return
	}
	s.live++
}

// padTo appends dead rows (NULLs) until the next row appended takes
// position p, sealing segments early as the snapshot's were.
func (s *Set) padTo(p int32) error {
	for nx := s.next(); nx != p; nx = s.next() {
		switch {
		case p < nx:
			return fmt.Errorf("%w: rows out of order", errDamaged)
		case p>>segShift > nx>>segShift && len(s.segs) > int(nx>>segShift):
			s.segs[len(s.segs)-1].sealed = true // sealed early when written
		case p>>segShift > nx>>segShift:
			// A segment the snapshot holds nothing of.
			s.segs = append(s.segs, emptySegment(s.types))
		default:
			g, err := s.open()
			if err != nil {
				return err
			}
			for j := range g.cols {
				g.cols[j].appendNull()
			}
			s.appendedOne(g, 0)
		}
	}
	return nil
}

// loadCount sets the count of the row at pos.
func (s *Set) loadCount(pos int32, n int64) error {
	if pos < 0 || pos >= s.next() || int(pos>>segShift) >= len(s.segs) || int(pos&segMask) >= s.segs[pos>>segShift].n {
		return fmt.Errorf("%w: the count of a row no entry holds", errDamaged)
	}
	g, r := s.segs[pos>>segShift], int(pos&segMask)
	old := g.count(r)
	if old == 0 {
		if n == 0 {
			return nil
		}
		return fmt.Errorf("%w: the count of a row no entry holds", errDamaged)
	}
	g.setCount(r, n)
	if n == 0 {
		g.dead++
		s.dead++
		s.live--
	}
	return nil
}

// loadRows puts back the rows of a rows entry whose first position is
// start, at their positions.
func (s *Set) loadRows(start int32, b []byte) error {
	rows, n := binary.Uvarint(b)
	if n <= 0 || rows > segRows {
		return errDamaged
	}
	b = b[n:]
	for len(b) > 0 {
		d, n := binary.Uvarint(b)
		if n <= 0 || d >= rows {
			return errDamaged
		}
		b = b[n:]
		count, n := binary.Varint(b)
		if n <= 0 || count == 0 {
			return errDamaged
		}
		b = b[n:]
		if err := s.padTo(start + int32(d)); err != nil {
			return err
		}
		g, err := s.open()
		if err != nil {
			return err
		}
		for j := range g.cols {
			if b, err = g.cols[j].appendDecoded(b); err != nil {
				return err
			}
		}
		s.appendedOne(g, count)
	}
	return s.padTo(start + int32(rows))
}
