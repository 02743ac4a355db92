package kafkastate

import (
	"bytes"
	"slices"
	"sort"
)

// maxBlock is the most entries a block of the image holds. A commit
// copies each block it touches, so blocks must be small; the list of
// blocks is copied whole by every commit, so they must not be tiny. A
// few hundred keeps both cheap: ten million keys are 40,000 blocks.
const maxBlock = 256

// entry is one committed key (with its table's prefix) and its value.
type entry struct{ key, val []byte }

// block is a run of entries in key order. A published block is never
// modified, so a reader holding a snapshot needs no lock.
type block []entry

// change is one key's committed write as the image takes it: the key set
// to val, or deleted. chunks is the number of records the value was
// written in (1 for a value in one record, 0 for a deletion).
type change struct {
	key, val []byte
	del      bool
	chunks   uint32
}

// snapshot is the committed state as of one epoch. It is immutable once
// published: a commit builds a new snapshot that shares the blocks it
// did not touch, so a Scan of the old one goes on undisturbed.
type snapshot struct {
	blocks []block // in key order, none empty
	size   int64   // the bytes of every key and value
	keys   int
	epoch  uint64
}

// blockFor returns the index of the block that holds k if any does: the
// last block whose first key is at most k, or -1 when k precedes them all.
func (s *snapshot) blockFor(k []byte) int {
	return sort.Search(len(s.blocks), func(i int) bool { return bytes.Compare(s.blocks[i][0].key, k) > 0 }) - 1
}

// search returns where k is or would be in b.
func (b block) search(k []byte) (int, bool) {
	return slices.BinarySearchFunc(b, k, func(e entry, k []byte) int { return bytes.Compare(e.key, k) })
}

// get returns k's committed value, which the caller must not modify.
func (s *snapshot) get(k []byte) ([]byte, bool) {
	bi := s.blockFor(k)
	if bi < 0 {
		return nil, false
	}
	b := s.blocks[bi]
	if i, ok := b.search(k); ok {
		return b[i].val, true
	}
	return nil, false
}

// ascend calls fn for the keys in [lo, hi) in order (a nil hi has no
// bound), stopping at fn's first error, which it returns.
func (s *snapshot) ascend(lo, hi []byte, fn func(k, v []byte) error) error {
	bi := max(s.blockFor(lo), 0)
	for ; bi < len(s.blocks); bi++ {
		b := s.blocks[bi]
		i, _ := b.search(lo)
		for _, e := range b[i:] {
			if hi != nil && bytes.Compare(e.key, hi) >= 0 {
				return nil
			}
			if err := fn(e.key, e.val); err != nil {
				return err
			}
		}
	}
	return nil
}

// apply returns the snapshot of epoch: s with chs, which are in key order
// and name each key once, applied. It reuses the blocks of s that no
// change falls in and takes the changes' keys and values as they are.
func (s *snapshot) apply(chs []change, epoch uint64) *snapshot {
	m := merger{old: s.blocks, out: &snapshot{size: s.size, keys: s.keys, epoch: epoch}}
	for _, c := range chs {
		m.add(c)
	}
	m.finish()
	return m.out
}

// merger merges the old blocks with the changes, in one pass over both:
// the entries of the blocks it has to rebuild, and the changes among
// them, gather in pend, and are cut into new blocks when an untouched
// old block (or the end) comes.
type merger struct {
	old    []block
	bi, ei int // the next old entry: block bi, entry ei
	pend   []entry
	out    *snapshot
}

// add merges c, which follows every change added before it.
func (m *merger) add(c change) {
	for m.bi < len(m.old) {
		b := m.old[m.bi]
		if m.ei == 0 && bytes.Compare(b[len(b)-1].key, c.key) < 0 {
			m.keep(b) // the whole block precedes c
			m.bi++
			continue
		}
		for m.ei < len(b) && bytes.Compare(b[m.ei].key, c.key) < 0 {
			m.pend = append(m.pend, b[m.ei])
			m.ei++
		}
		if m.ei == len(b) { // the rest of b preceded c: go on to the next block
			m.bi, m.ei = m.bi+1, 0
			continue
		}
		if e := b[m.ei]; bytes.Equal(e.key, c.key) {
			m.out.size -= int64(len(e.key) + len(e.val))
			m.out.keys--
			if m.ei++; m.ei == len(b) {
				m.bi, m.ei = m.bi+1, 0
			}
		}
		break
	}
	if !c.del {
		m.pend = append(m.pend, entry{c.key, c.val})
		m.out.size += int64(len(c.key) + len(c.val))
		m.out.keys++
	}
}

// keep passes the untouched old block b on, after the entries pending
// before it; pending entries too few for a block of their own take b in
// instead.
func (m *merger) keep(b block) {
	if len(m.pend) > 0 && len(m.pend) < maxBlock/2 && len(m.pend)+len(b) <= maxBlock {
		m.pend = append(m.pend, b...)
		return
	}
	m.flush()
	m.out.blocks = append(m.out.blocks, b)
}

// flush cuts the pending entries into new blocks of even sizes. Pending
// entries too few for a block of their own join the last block out.
func (m *merger) flush() {
	if len(m.pend) == 0 {
		return
	}
	if n := len(m.out.blocks); n > 0 && len(m.pend) < maxBlock/2 && len(m.out.blocks[n-1])+len(m.pend) <= maxBlock {
		last := m.out.blocks[n-1]
		m.out.blocks[n-1] = append(slices.Clip(last), m.pend...) // a copy: last may be shared
		m.pend = m.pend[:0]
		return
	}
	nb := (len(m.pend) + maxBlock - 1) / maxBlock
	for i := range nb {
		lo, hi := len(m.pend)*i/nb, len(m.pend)*(i+1)/nb
		m.out.blocks = append(m.out.blocks, slices.Clone(block(m.pend[lo:hi])))
	}
	m.pend = m.pend[:0]
}

// finish passes on the old entries after the last change.
func (m *merger) finish() {
	if m.bi < len(m.old) && m.ei > 0 {
		m.pend = append(m.pend, m.old[m.bi][m.ei:]...)
		m.bi++
	}
	for ; m.bi < len(m.old); m.bi++ {
		m.keep(m.old[m.bi])
	}
	m.flush()
}
