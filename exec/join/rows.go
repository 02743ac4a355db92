package join

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
)

// A join side finds the row a retraction removes without comparing it with
// every row of its key. Before, a retraction scanned its key's whole
// bucket, which made an updating input with many rows per key quadratic:
// Nexmark q5 joins per-auction counts with the per-window maximum on the
// window, so a bucket holds every auction of a window, and every count
// update retracts one of them (53% of q5's CPU time went to that scan at
// 3M events).
//
// A bucket of more than bucketIndexMin rows gets a row index on its first
// retraction: its row ids chained by the hash of their values, the chain
// heads in a map of the bucket's own. Indexes stay per bucket, so the ones
// being updated (q5: the few windows still open) are small and stay in
// cache. An index is a cache: one that has not been read for a while (a
// closed window's) is dropped, and rebuilt if its bucket is retracted from
// again, so it costs memory only while its bucket is being updated. Sides
// that only append (most stream inputs, every windowed join) and small
// buckets never build one. Each row also records its position in its
// bucket, so that removing it from the bucket takes constant time too.

// bucketIndexMin is the size above which a bucket that is retracted from
// gets a row index: below it, comparing the retraction with each row costs
// about what hashing and a map lookup would.
const bucketIndexMin = 16

// sweepMinLookups is the fewest lookups through row indexes between two
// sweeps for unused ones: a sweep visits every index, so sweeps are at
// least this many lookups, and four per index, apart. 64K lookups are a
// few batches of an updating input, long enough that an index in use is
// read between two sweeps.
const sweepMinLookups = 1 << 16

// noRow ends a chain of row ids.
const noRow = -1

// bucket is the rows a side holds under one join key.
type bucket struct {
	key string // the join key
	ids []int32
	// heads maps a row hash to the first id of its chain (side.next);
	// nil while the bucket has no row index.
	heads map[uint64]int32
	// epoch is the side's sweep epoch in which the index was last read.
	epoch uint32
	// slot is the bucket's slot in the side's state TTL, if it has one.
	slot int32
}

// rowIndexes is a side's bookkeeping of its buckets' row indexes.
type rowIndexes struct {
	live    int       // buckets with an index
	buckets []*bucket // every bucket with one, and some that lost it since the last sweep
	lookups int       // lookups through an index so far
	sweepAt int       // lookups at which to sweep next
	epoch   uint32    // sweeps so far
	minGap  int       // if set (tests), the lookups between sweeps
}

// hashCols returns the ordinals of the columns a side's row hash covers:
// those exec.HashRows hashes consistently with rowstore.Store.Equal. A
// DOUBLE column is left out (Equal treats every NaN alike, while HashRows
// hashes their bits), as is a column of untyped NULLs; hashing fewer
// columns than Equal compares only makes chains longer, never a lookup
// wrong.
func hashCols(ts []types.T) []int {
	var out []int
	for k, t := range ts {
		switch t.Physical() {
		case types.PhysInt64, types.PhysTimestamp, types.PhysDuration, types.PhysDate32,
			types.PhysBool, types.PhysString, types.PhysDecimal:
			out = append(out, k)
		}
	}
	return out
}

// rowHashes sets out (resized to n) to the row hash of each of the n rows
// of cols (arrays of the side's columns; only those of hashCols are read).
func (s *side) rowHashes(cols []arrow.Array, n int, out []uint64) ([]uint64, error) {
	if cap(out) < n {
		out = make([]uint64, n)
	}
	out = out[:n]
	sel := make([]arrow.Array, len(s.hashCols))
	for k, o := range s.hashCols {
		sel[k] = cols[o]
	}
	if err := exec.HashRows(sel, out); err != nil {
		return nil, err
	}
	return out, nil
}

// storedHashes returns the row hashes of the held rows ids.
func (s *side) storedHashes(alloc memory.Allocator, ids []int32) ([]uint64, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	cols := make([]arrow.Array, len(s.types))
	for _, o := range s.hashCols {
		cols[o] = s.store.Gather(alloc, o, ids)
	}
	defer func() {
		for _, o := range s.hashCols {
			cols[o].Release()
		}
	}()
	return s.rowHashes(cols, len(ids), nil)
}

// link adds id, whose row hashes to h, to b's row index.
func (s *side) link(b *bucket, id int32, h uint64) {
	s.next[id] = noRow
	if first, ok := b.heads[h]; ok {
		s.next[id] = first
	}
	b.heads[h] = id
}

// unlink removes id, whose row hashes to h, from b's row index.
func (s *side) unlink(b *bucket, id int32, h uint64) {
	prev := int32(noRow)
	for cur, ok := b.heads[h]; ok && cur != noRow; prev, cur = cur, s.next[cur] {
		if cur != id {
			continue
		}
		switch {
		case prev != noRow:
			s.next[prev] = s.next[id]
		case s.next[id] == noRow:
			delete(b.heads, h)
		default:
			b.heads[h] = s.next[id]
		}
		return
	}
}

// find returns the id of a row of b equal to row i of cols, or noRow. h
// is the row's hash; it is read only when b has a row index or gets one
// now, which a bucket of more than bucketIndexMin rows does.
func (s *side) find(alloc memory.Allocator, b *bucket, h uint64, cols []arrow.Array, i int) (int32, error) {
	if b == nil {
		return noRow, nil
	}
	if b.heads == nil && len(b.ids) > bucketIndexMin {
		hs, err := s.storedHashes(alloc, b.ids)
		if err != nil {
			return noRow, err
		}
		b.heads = make(map[uint64]int32, len(b.ids))
		s.idx.live++
		s.idx.buckets = append(s.idx.buckets, b)
		for k, id := range b.ids {
			s.link(b, id, hs[k])
		}
	}
	if b.heads == nil {
		for _, id := range b.ids {
			if s.store.Equal(id, cols, i) {
				return id, nil
			}
		}
		return noRow, nil
	}
	b.epoch = s.idx.epoch
	s.idx.lookups++
	if s.idx.lookups >= s.idx.sweepAt {
		s.sweep()
	}
	for cur, ok := b.heads[h]; ok && cur != noRow; cur = s.next[cur] {
		if s.store.Equal(cur, cols, i) {
			return cur, nil
		}
	}
	return noRow, nil
}

// sweep drops the row indexes not read since the last sweep.
func (s *side) sweep() {
	x := &s.idx
	kept := x.buckets[:0]
	for _, b := range x.buckets {
		switch {
		case b.heads == nil:
		case b.epoch != x.epoch:
			b.heads = nil
			x.live--
		default:
			kept = append(kept, b)
		}
	}
	clear(x.buckets[len(kept):])
	x.buckets = kept
	x.epoch++
	x.sweepAt = x.lookups + max(sweepMinLookups, 4*len(kept))
	if x.minGap > 0 {
		x.sweepAt = x.lookups + x.minGap
	}
}

// addRow stores row i of cols under key and returns its id. h is the
// row's hash, read when the key's bucket has a row index.
func (s *side) addRow(key string, cols []arrow.Array, i int, h uint64) int32 {
	id := s.store.Add(cols, i)
	s.changes.Mark(id)
	s.insert(key, id, h)
	return id
}

// insert adds the stored row id, whose row hash is h, to key's bucket.
func (s *side) insert(key string, id int32, h uint64) {
	for int(id) >= len(s.pos) {
		s.pos = append(s.pos, 0)
		s.next = append(s.next, noRow)
	}
	b := s.index[key]
	if b == nil {
		b = &bucket{key: key}
		s.index[key] = b
		if s.ttl != nil {
			s.ttl.attach(b)
		}
	}
	s.touch(b)
	s.pos[id] = int32(len(b.ids))
	b.ids = append(b.ids, id)
	if b.heads != nil {
		s.link(b, id, h)
	}
}

// removeRow deletes row id of bucket b, held under key; h is its row hash,
// read when b has a row index.
func (s *side) removeRow(key string, b *bucket, id int32, h uint64) {
	k, last := s.pos[id], len(b.ids)-1
	moved := b.ids[last]
	b.ids[k] = moved
	s.pos[moved] = k
	b.ids = b.ids[:last]
	if b.heads != nil {
		s.unlink(b, id, h)
	}
	if last == 0 {
		if b.heads != nil {
			b.heads = nil
			s.idx.live--
		}
		delete(s.index, key)
		if s.ttl != nil {
			s.ttl.detach(b)
		}
	}
	s.store.Remove(id)
	s.changes.Removed(id, s.tag, key)
}
