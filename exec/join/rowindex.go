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
	evicted int     // indexes dropped with every row of their bucket (dropEvictedIndexes)
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

// link adds id, whose row hashes to h, to b's row index.
func (s *side) link(b int32, id int32, h uint64) {
	for int(id) >= len(s.next) {
		s.next = append(s.next, noRow)
	}
	heads := s.idx.heads[s.buckets.Ref(b).rix-1]
	s.next[id] = noRow
	if first, ok := heads[h]; ok {
		s.next[id] = first
	}
	heads[h] = id
}

// unlink removes id, whose row hashes to h, from b's row index.
func (s *side) unlink(b int32, id int32, h uint64) {
	heads := s.idx.heads[s.buckets.Ref(b).rix-1]
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
		s.buckets.Ref(b).rix = r + 1
	} else {
		x.heads = append(x.heads, m)
		s.buckets.Ref(b).rix = int32(len(x.heads))
	}
	x.live++
	x.buckets = append(x.buckets, b)
}

// dropRowIndex drops bucket b's row index.
func (s *side) dropRowIndex(b int32) {
	x := &s.idx
	r := s.buckets.Ref(b).rix - 1
	x.heads[r] = nil
	x.free = append(x.free, r)
	s.buckets.Ref(b).rix = 0
	x.live--
}

// dropEvictedIndexes drops the row index of every bucket all of whose rows
// are among ids, which are about to be removed: its rows then leave
// without their hash computed or their chain unlinked one by one (q5
// evicts a closed window's bucket, row index and all, at once). It
// reports whether a bucket with a row index keeps some rows, whose
// removal needs their hashes.
func (s *side) dropEvictedIndexes(ids []int32) (partial bool) {
	if s.evicting == nil {
		s.evicting = map[int32]int32{}
	}
	due := s.evicting
	for _, id := range ids {
		if b := s.bucketOf.At(id); s.buckets.Ref(b).rix != 0 {
			due[b]++
		}
	}
	for b, n := range due {
		if n == s.buckets.Ref(b).n {
			s.dropRowIndex(b)
			s.idx.evicted++
		} else {
			partial = true
		}
	}
	clear(due)
	return partial
}

// find returns the id of a row of bucket b (noRow: none) equal to row i of
// cols, or noRow. h is the row's hash; it is read only when b has a row
// index or gets one now, which a bucket of more than bucketIndexMin rows
// does.
func (s *side) find(alloc memory.Allocator, b int32, h uint64, cols []arrow.Array, i int) (int32, error) {
	if b == noRow {
		return noRow, nil
	}
	if s.buckets.Ref(b).rix == 0 && s.buckets.Ref(b).n > bucketIndexMin {
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
	bk := s.buckets.Ref(b)
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
	heads := s.idx.heads[s.buckets.Ref(b).rix-1]
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
		case s.buckets.Ref(b).rix == 0:
		case s.buckets.Ref(b).epoch != x.epoch:
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
