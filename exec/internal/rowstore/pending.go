package rowstore

import "github.com/eddysql/eddy/exec/internal/bitset"

// Pending is the part of a snapshot an operator writes in steps after its
// barrier (exec.DeferredSnapshotter): the rows whose entries are still to
// be written, and the deletions recorded before the barrier.
//
// Changes.Begin fills it at the barrier in constant time once changes are
// tracked: it takes the changes' dirty bits, removal bits and list as
// they are, and the changes start afresh with the (clear) ones the last
// pending snapshot left. A row is pending while its dirty bit is set and
// its removal bit is not. Until the snapshot is done, the operator takes a
// pending row off (Take) before anything changes what its entry holds or
// removes it, writing the entry as it is then — as at the barrier; and the
// steps write the rest (Next), clearing the bits as they pass. A row
// marked after the barrier belongs to the next snapshot, as usual. Rows
// get their identities when their entries are written (Changes.Persist
// with Epoch), the same whatever order the steps and saves take.
type Pending struct {
	epoch uint64   // the snapshot's
	bits  []uint64 // by row id: marked before the barrier
	gone  []uint64 // by row id: marked, then removed, before the barrier
	ids   []int32  // the rows marked before the barrier, each once
	next  int      // ids[next:] are still to be looked at
	// The deletions recorded before the barrier: keys concatenated, the
	// end of each, its group, and how many were written.
	delKeys   []byte
	delEnds   []int
	delGroups []int
	nextDel   int
}

// Begin takes what changed since the last Reset into p, the pending
// snapshot of epoch, which must be done: the rows marked that are still
// held, or, before changes are tracked, rows, every row held, each once;
// and the deletions recorded. It then starts the changes afresh, as Reset
// does. Once changes are tracked it takes constant time, and rows is not
// read.
func (c *Changes) Begin(p *Pending, epoch uint64, rows []int32) {
	p.epoch, p.next, p.nextDel = epoch, 0, 0
	// A done snapshot's bits are all clear: each of its rows was passed.
	if c.tracking {
		p.bits, c.dirty = c.dirty, p.bits
		p.gone, c.gone = c.gone, p.gone
		p.ids, c.ids = c.ids, p.ids[:0]
	} else {
		p.ids = append(p.ids[:0], rows...)
		for _, id := range rows {
			bitset.Set(&p.bits, id)
		}
	}
	p.delKeys, c.delKeys = c.delKeys, p.delKeys[:0]
	p.delEnds, c.delEnds = c.delEnds, p.delEnds[:0]
	p.delGroups, c.delGroups = c.delGroups, p.delGroups[:0]
	c.tracking = true
}

// Epoch returns the epoch of the snapshot p is part of.
func (p *Pending) Epoch() uint64 { return p.epoch }

// Done reports whether nothing of p is left to write.
func (p *Pending) Done() bool {
	return p.next >= len(p.ids) && p.nextDel >= len(p.delEnds)
}

// RowsDone reports whether every pending row was written or taken.
func (p *Pending) RowsDone() bool { return p.next >= len(p.ids) }

// Has reports whether row id's entry is still to be written.
func (p *Pending) Has(id int32) bool { return bitset.Has(p.bits, id) && !bitset.Has(p.gone, id) }

// Take takes row id off the pending rows, and reports whether it was one:
// the caller then writes its entry, as it is now.
func (p *Pending) Take(id int32) bool {
	if !p.Has(id) {
		return false
	}
	bitset.Clear(p.bits, id)
	return true
}

// Next appends to ids at most n of the pending rows not taken yet, taking
// them off, and returns it. It looks at no more than scan of them, so that
// a step stays short when most were taken.
func (p *Pending) Next(ids []int32, n, scan int) []int32 {
	for seen := 0; p.next < len(p.ids) && n > 0 && seen < scan; seen++ {
		id := p.ids[p.next]
		p.next++
		if p.Take(id) {
			ids = append(ids, id)
			n--
			continue
		}
		bitset.Clear(p.bits, id)
		bitset.Clear(p.gone, id)
	}
	return ids
}

// Deletions calls fn with the group and key of at most n of the deletions
// still to be written, and returns how many it called it with.
func (p *Pending) Deletions(n int, fn func(group int, key []byte) error) (int, error) {
	done := 0
	start := 0
	if p.nextDel > 0 {
		start = p.delEnds[p.nextDel-1]
	}
	for ; done < n && p.nextDel < len(p.delEnds); done++ {
		end := p.delEnds[p.nextDel]
		if err := fn(p.delGroups[p.nextDel], p.delKeys[start:end]); err != nil {
			return done, err
		}
		p.nextDel++
		start = end
	}
	return done, nil
}

// Bytes estimates the memory of p.
func (p *Pending) Bytes() int64 {
	return 8*int64(cap(p.bits)+cap(p.gone)+cap(p.delEnds)+cap(p.delGroups)) + 4*int64(cap(p.ids)) + int64(cap(p.delKeys))
}
