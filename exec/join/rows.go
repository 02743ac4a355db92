package join

import (
	"slices"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
)

// A side's index of its rows by join key holds no Go object per key or
// per row. Each join key's rows form a bucket, a value in the side's
// slice of buckets (freed ones reused), found through an open-addressing
// index (exec/internal/probe) from the key's hash (exec.HashRows over the
// key columns, as the exchange hashes them) to bucket numbers. A bucket
// keeps its key's hash and its rows as a list of row ids, linked through
// two paged vectors by row id (rnext, rprev); the key itself is not
// copied: a lookup compares the key columns of the bucket's first row in
// the row store (rowstore.Col.KeyEqual, equality as exec/internal/rowkey
// encodes keys), and a checkpoint entry's key is encoded from the store
// when it is needed. So inserting a row, and restoring a checkpoint,
// allocates nothing per row or per key beyond a page of those vectors
// now and then (exec/internal/paged: growing copies no row id). A bucket
// lists its rows in the order a slice with swap-remove would hold them:
// in order of insertion, the last taking the place of one removed.

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
// buckets never build one. A bucket's list of rows is linked both ways, so that
// removing a row from it takes constant time too.

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
	hash       uint64 // of the join key
	head, tail int32  // the first and last row ids of its list
	n          int32  // its rows
	// rix is the number of its row index in rowIndexes.heads plus 1; 0
	// while it has none.
	rix int32
	// epoch is the side's sweep epoch in which the index was last read.
	epoch uint32
	// slot is the bucket's slot in the side's state TTL, if it has one.
	slot int32
}

// rowIndexes is a side's bookkeeping of its buckets' row indexes.
type rowIndexes struct {
	// heads are the row indexes: each maps a row hash to the first id of
	// its chain (side.next). free are the numbers of those dropped.
	heads   []map[uint64]int32
	free    []int32
	live    int     // buckets with an index
	buckets []int32 // every bucket with one, and some that lost it since the last sweep
	lookups int     // lookups through an index so far
	sweepAt int     // lookups at which to sweep next
	epoch   uint32  // sweeps so far
	minGap  int     // if set (tests), the lookups between sweeps
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

// keyMatches reports whether stored row id's join key equals row i of
// keyCols (arrays of the other side's key columns, in key order).
func (s *side) keyMatches(id int32, keyCols []arrow.Array, i int) bool {
	for k, o := range s.keys {
		if !s.store.Cols[o].KeyEqual(id, keyCols[k], i) {
			return false
		}
	}
	return true
}

// lookup returns the bucket of the join key of row i of keyCols, whose
// hash is h, or noRow.
func (s *side) lookup(h uint64, keyCols []arrow.Array, i int) int32 {
	return s.index.Find(h, func(b int32) bool {
		bk := &s.buckets[b]
		return bk.hash == h && s.keyMatches(bk.head, keyCols, i)
	})
}

// lookupStored returns the bucket of the join key of row id of side o
// (the other side, or s itself), whose hash is h, or noRow.
func (s *side) lookupStored(h uint64, o *side, id int32) int32 {
	return s.index.Find(h, func(b int32) bool {
		bk := &s.buckets[b]
		if bk.hash != h {
			return false
		}
		for k, c := range s.keys {
			if !s.store.Cols[c].KeySame(bk.head, &o.store.Cols[o.keys[k]], id) {
				return false
			}
		}
		return true
	})
}

// bucketFor returns the bucket of the join key of row i of keyCols, whose
// hash is h, making an empty one if there is none.
func (s *side) bucketFor(h uint64, keyCols []arrow.Array, i int) int32 {
	if b := s.lookup(h, keyCols, i); b != noRow {
		return b
	}
	var b int32
	if k := len(s.freeBuckets); k > 0 {
		b = s.freeBuckets[k-1]
		s.freeBuckets = s.freeBuckets[:k-1]
	} else {
		b = int32(len(s.buckets))
		s.buckets = append(s.buckets, bucket{})
	}
	s.buckets[b] = bucket{hash: h, head: noRow, tail: noRow}
	s.index.Insert(h, b, s.bucketHash)
	if s.ttl != nil {
		s.attachTTL(b)
	}
	return b
}

// bucketHash returns bucket b's key hash (for the probe index).
func (s *side) bucketHash(b int32) uint64 { return s.buckets[b].hash }

// freeBucket drops bucket b, empty.
func (s *side) freeBucket(b int32) {
	if s.buckets[b].rix != 0 {
		s.dropRowIndex(b)
	}
	s.index.Remove(s.buckets[b].hash, b, s.bucketHash)
	if s.ttl != nil {
		s.ttl.detach(s.buckets[b].slot)
	}
	s.buckets[b] = bucket{head: noRow, tail: noRow}
	s.freeBuckets = append(s.freeBuckets, b)
}

// appendRows appends bucket b's row ids to ids.
func (s *side) appendRows(b int32, ids []int32) []int32 {
	for id := s.buckets[b].head; id != noRow; id = s.rnext.At(id) {
		ids = append(ids, id)
	}
	return ids
}

// entryKey returns the join key of stored row id as its checkpoint entry
// holds it (a 1 byte, then rowkey's encoding of the key columns), in a
// buffer the next call reuses.
func (s *side) entryKey(id int32) []byte {
	s.keyBuf = s.store.AppendKey(append(s.keyBuf[:0], 1), id, s.keys)
	return s.keyBuf
}

// forget removes stored row id from the store, recording the deletion of
// its checkpoint entry; key is its entry key if known (nil: read from the
// store when the checkpoint holds the row).
func (s *side) forget(id int32, key []byte) {
	if key == nil && s.changes.Held(id) {
		key = s.entryKey(id)
	}
	s.changes.Removed(id, s.tag, key)
	s.store.Remove(id)
}

// link adds id, whose row hashes to h, to b's row index.
func (s *side) link(b int32, id int32, h uint64) {
	for int(id) >= len(s.next) {
		s.next = append(s.next, noRow)
	}
	heads := s.idx.heads[s.buckets[b].rix-1]
	s.next[id] = noRow
	if first, ok := heads[h]; ok {
		s.next[id] = first
	}
	heads[h] = id
}

// unlink removes id, whose row hashes to h, from b's row index.
func (s *side) unlink(b int32, id int32, h uint64) {
	heads := s.idx.heads[s.buckets[b].rix-1]
	prev := int32(noRow)
	for cur, ok := heads[h]; ok && cur != noRow; prev, cur = cur, s.next[cur] {
		if cur != id {
			continue
		}
		switch {
		case prev != noRow:
			s.next[prev] = s.next[id]
		case s.next[id] == noRow:
			delete(heads, h)
		default:
			heads[h] = s.next[id]
		}
		return
	}
}

// newRowIndex gives bucket b an empty row index of room for n rows.
func (s *side) newRowIndex(b int32, n int) {
	x := &s.idx
	m := make(map[uint64]int32, n)
	if k := len(x.free); k > 0 {
		r := x.free[k-1]
		x.free = x.free[:k-1]
		x.heads[r] = m
		s.buckets[b].rix = r + 1
	} else {
		x.heads = append(x.heads, m)
		s.buckets[b].rix = int32(len(x.heads))
	}
	x.live++
	x.buckets = append(x.buckets, b)
}

// dropRowIndex drops bucket b's row index.
func (s *side) dropRowIndex(b int32) {
	x := &s.idx
	r := s.buckets[b].rix - 1
	x.heads[r] = nil
	x.free = append(x.free, r)
	s.buckets[b].rix = 0
	x.live--
}

// find returns the id of a row of bucket b (noRow: none) equal to row i of
// cols, or noRow. h is the row's hash; it is read only when b has a row
// index or gets one now, which a bucket of more than bucketIndexMin rows
// does.
func (s *side) find(alloc memory.Allocator, b int32, h uint64, cols []arrow.Array, i int) (int32, error) {
	if b == noRow {
		return noRow, nil
	}
	if s.buckets[b].rix == 0 && s.buckets[b].n > bucketIndexMin {
		ids := s.appendRows(b, nil)
		hs, err := s.storedHashes(alloc, ids)
		if err != nil {
			return noRow, err
		}
		s.newRowIndex(b, len(ids))
		for k, id := range ids {
			s.link(b, id, hs[k])
		}
	}
	bk := &s.buckets[b]
	if bk.rix == 0 {
		for id := bk.head; id != noRow; id = s.rnext.At(id) {
			if s.store.Equal(id, cols, i) {
				return id, nil
			}
		}
		return noRow, nil
	}
	bk.epoch = s.idx.epoch
	s.idx.lookups++
	if s.idx.lookups >= s.idx.sweepAt {
		s.sweep()
	}
	heads := s.idx.heads[s.buckets[b].rix-1]
	for cur, ok := heads[h]; ok && cur != noRow; cur = s.next[cur] {
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
		case s.buckets[b].rix == 0:
		case s.buckets[b].epoch != x.epoch:
			s.dropRowIndex(b)
		default:
			kept = append(kept, b)
		}
	}
	x.buckets = kept
	x.epoch++
	x.sweepAt = x.lookups + max(sweepMinLookups, 4*len(kept))
	if x.minGap > 0 {
		x.sweepAt = x.lookups + x.minGap
	}
}

// addRow stores row i of cols, whose join key is row i of keyCols with
// hash kh, and returns its id. h is the row's hash, read when the key's
// bucket has a row index.
func (s *side) addRow(kh uint64, keyCols, cols []arrow.Array, i int, h uint64) int32 {
	id := s.store.Add(cols, i)
	s.changes.Mark(id)
	s.insert(s.bucketFor(kh, keyCols, i), id, h)
	return id
}

// growRows makes room in the vectors by row id for ids 0..n-1: a page at
// a time, never copying the ids they hold.
func (s *side) growRows(n int) {
	s.rnext.Grow(n)
	s.rprev.Grow(n)
	s.bucketOf.Grow(n)
}

// reserve sizes the index for the restored rows r about to be inserted:
// the slices by row id up to their highest id, the buckets and the probe
// index for their distinct join keys. A restore so grows each at most
// once, not by doubling from empty (the probe index placing every entry
// again at each doubling).
func (s *side) reserve(r *restored) {
	top := int32(-1)
	for _, id := range r.ids {
		top = max(top, id)
	}
	n := int(top) + 1
	s.growRows(n)
	s.changes.Reserve(n)
	keys := r.distinctKeys()
	if more := keys - len(s.freeBuckets); more > 0 {
		s.buckets = slices.Grow(s.buckets, more)
	}
	s.index.Reserve(s.index.Len()+keys, s.bucketHash)
}

// insert appends the stored row id, whose row hash is h, to bucket b.
func (s *side) insert(b int32, id int32, h uint64) {
	if int(id) >= s.rnext.Cap() {
		s.growRows(int(id) + 1)
	}
	s.touch(b)
	bk := &s.buckets[b]
	s.bucketOf.Set(id, b)
	s.rnext.Set(id, noRow)
	s.rprev.Set(id, bk.tail)
	if bk.tail != noRow {
		s.rnext.Set(bk.tail, id)
	} else {
		bk.head = id
	}
	bk.tail = id
	bk.n++
	if bk.rix != 0 {
		s.link(b, id, h)
	}
}

// removeRow deletes row id of bucket b; h is its row hash, read when b
// has a row index. The bucket's last row takes id's place in its list. A
// bucket left empty is freed.
func (s *side) removeRow(b int32, id int32, h uint64) {
	bk := &s.buckets[b]
	if bk.rix != 0 {
		s.unlink(b, id, h)
	}
	// Unlink the last row, then put it where id was.
	last := bk.tail
	bk.tail = s.rprev.At(last)
	if bk.tail != noRow {
		s.rnext.Set(bk.tail, noRow)
	} else {
		bk.head = noRow
	}
	if last != id {
		p, n := s.rprev.At(id), s.rnext.At(id)
		s.rprev.Set(last, p)
		s.rnext.Set(last, n)
		if p != noRow {
			s.rnext.Set(p, last)
		} else {
			bk.head = last
		}
		if n != noRow {
			s.rprev.Set(n, last)
		} else {
			bk.tail = last
		}
	}
	bk.n--
	s.forget(id, nil)
	if bk.n == 0 {
		s.freeBucket(b)
	}
}

// indexBytes estimates the memory of the side's index of its rows.
func (s *side) indexBytes() int64 {
	return s.index.Bytes() + int64(cap(s.buckets))*int64(unsafe.Sizeof(bucket{})) +
		4*int64(cap(s.freeBuckets)+len(s.next)) + s.rnext.Bytes() + s.rprev.Bytes() + s.bucketOf.Bytes()
}
