package join

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
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
		bk := s.buckets.Ref(b)
		return bk.hash == h && s.keyMatches(bk.head, keyCols, i)
	})
}

// lookupStored returns the bucket of the join key of row id of side o
// (the other side, or s itself), whose hash is h, or noRow.
func (s *side) lookupStored(h uint64, o *side, id int32) int32 {
	return s.index.Find(h, func(b int32) bool {
		bk := s.buckets.Ref(b)
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

// peek touches what a lookup of hash h reads first — its index slot and
// the bucket that slot names — and returns the bucket's hash (see
// probe.Index.Peek).
func (s *side) peek(h uint64) uint64 {
	if b := s.index.Peek(h); b >= 0 {
		return s.buckets.Ref(b).hash
	}
	return 0
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
		b = s.nbuckets
		if int(b) >= s.buckets.Cap() {
			s.buckets.Grow(int(b) + 1)
		}
		s.nbuckets++
	}
	*s.buckets.Ref(b) = bucket{hash: h, head: noRow, tail: noRow}
	s.index.Insert(h, b)
	if s.ttl != nil {
		s.attachTTL(b)
	}
	return b
}

// freeBucket drops bucket b, empty.
func (s *side) freeBucket(b int32) {
	if s.buckets.Ref(b).rix != 0 {
		s.dropRowIndex(b)
	}
	s.index.Remove(s.buckets.Ref(b).hash, b)
	if s.ttl != nil {
		s.ttl.detach(s.buckets.Ref(b).slot)
	}
	*s.buckets.Ref(b) = bucket{head: noRow, tail: noRow}
	s.freeBuckets = append(s.freeBuckets, b)
}

// appendRows appends bucket b's row ids to ids.
func (s *side) appendRows(b int32, ids []int32) []int32 {
	for id := s.buckets.Ref(b).head; id != noRow; id = s.rnext.At(id) {
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
	if s.pend.Has(id) {
		s.j.save(s, id) // its entry as at the barrier, before it goes
	}
	if key == nil && s.changes.Held(id) {
		key = s.entryKey(id)
	}
	s.changes.Removed(id, s.tag, key)
	s.store.Remove(id)
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
		s.buckets.Grow(int(s.nbuckets) + more)
	}
	s.index.Reserve(s.index.Len() + keys)
}

// insert appends the stored row id, whose row hash is h, to bucket b.
func (s *side) insert(b int32, id int32, h uint64) {
	if int(id) >= s.rnext.Cap() {
		s.growRows(int(id) + 1)
	}
	s.touch(b)
	bk := s.buckets.Ref(b)
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
	bk := s.buckets.Ref(b)
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
	return s.index.Bytes() + int64(s.buckets.Cap())*int64(unsafe.Sizeof(bucket{})) +
		4*int64(cap(s.freeBuckets)+len(s.next)) + s.rnext.Bytes() + s.rprev.Bytes() + s.bucketOf.Bytes()
}
