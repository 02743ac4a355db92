package statecore

import (
	"encoding/binary"
	"slices"
	"unsafe"
)

// A commit hands the backend each key's last record in key order, and a
// large epoch's records lie all over its log in the order written: read in
// key order, each record is two cache misses, its slot and then its bytes,
// and a profile of checkpoints every second over 10M keys put 12 % of the
// process's time at those loads, more than the sort. gather moves the
// records into key order instead, a radix partition on their rank in the
// sorted order, in passes over memory read in sequence:
//
//   - rank: for each record in key order, its rank goes to its number's
//     slot in an array (writes, which do not wait), and the bytes of each
//     bucket of ranks are counted in a pass over the log in its own order;
//   - scatter: the log is read in its own order and each record with a
//     rank is copied to the bucket of its rank's high bits, a few hundred
//     buckets whose ends the writes move along;
//   - each bucket, a few thousand records, small enough for the core's
//     cache, is indexed by rank and handed on in rank order.
//
// The space is the sort's scratch, free once the sort is done (a commit
// sorts first), so that a checkpoint takes no more memory than before:
// the ranks, then as many buckets as it holds, the scatter going over the
// log once for each such run of buckets.

// gatherMin is the fewest records mutations gathers: a smaller log is
// small enough for the caches, and mutations reads its records in place.
// A variable so that tests gather small logs too.
var gatherMin = 1 << 16

// gatherFresh is the most bytes, past the ranks, that a gather allocates
// when the scratch kept from the sort is smaller than its records: it
// then goes over the log more than once. A variable for tests.
var gatherFresh = 64 << 20

// Bucket sizes: a bucket holds the records of 1<<shift consecutive ranks,
// with shift at least minBucketShift, and raised until there are at most
// maxBuckets buckets, each of which the scatter writes to in sequence.
const (
	minBucketShift = 12
	maxBuckets     = 1024
)

// gatherHeader is the bytes before a gathered record's key: its rank, its
// key's length and its value's, -1 for a deletion.
const gatherHeader = 12

// gathered is a gather of the records of order, an overlay's records in
// key order (sorted's), in scratch space to give back with release.
type gathered struct {
	o       *overlay
	scratch []sortItem // the space, kept for the next sort or gather
	rank    []uint32   // rank[r] is record r's rank plus one, 0 for none
	buf     []byte     // the space for records, after the ranks
	sizes   []int      // the bytes of each bucket's records
	shift   uint
	n       int     // the records gathered: len(order)
	pos     []int32 // a bucket's records by rank, reused
}

// bucketShift returns the shift of the buckets of n records: the least,
// from minBucketShift, that makes at most maxBuckets of them.
func bucketShift(n int) uint {
	shift := uint(minBucketShift)
	for (n-1)>>shift >= maxBuckets {
		shift++
	}
	return shift
}

// gather ranks the records of order and counts the bytes of each bucket,
// or returns nil when there are none or a bucket's records do not fit the
// space, and mutations is left to read them in place.
func gather(o *overlay, order []int32) *gathered {
	recs, n := o.recs(), len(order)
	if n == 0 {
		return nil
	}
	shift := bucketShift(n)
	rankBytes := 4 * recs
	need := rankBytes + gatherHeader*n + o.log.Size() // at most
	itemSize := int(unsafe.Sizeof(sortItem{}))
	scratch := takeSortScratch((min(need, rankBytes+gatherFresh) + itemSize - 1) / itemSize)
	scratch = scratch[:cap(scratch)]
	space := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(scratch))), len(scratch)*itemSize)
	g := &gathered{
		o:       o,
		scratch: scratch,
		rank:    unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(space))), recs),
		buf:     space[rankBytes:],
		sizes:   make([]int, (n-1)>>shift+1),
		shift:   shift,
		n:       n,
		pos:     make([]int32, min(n, 1<<shift)),
	}
	clear(g.rank)
	for i, r := range order {
		g.rank[r] = uint32(i) + 1
	}
	for r, rk := range g.rank {
		if rk != 0 {
			v, _ := o.val(int32(r))
			g.sizes[int(rk-1)>>shift] += gatherHeader + len(o.key(int32(r))) + len(v)
		}
		if r&(paceItems-1) == paceItems-1 {
			o.pace.Step(1)
		}
	}
	if slices.Max(g.sizes) > len(g.buf) {
		g.release()
		return nil
	}
	return g
}

// each calls fn for the gathered records in rank order (key order), with
// the key, the value and whether the record is a deletion, stopping at
// fn's first error; the slices are valid during fn only.
func (g *gathered) each(fn func(k, v []byte, del bool) error) error {
	starts := make([]int, len(g.sizes)+1)
	next := make([]int, len(g.sizes))
	for lo := 0; lo < len(g.sizes); {
		// The buckets from lo to hi fit the space: scatter their records,
		// then hand them on.
		hi, size := lo, 0
		for hi < len(g.sizes) && size+g.sizes[hi] <= len(g.buf) {
			starts[hi] = size
			size += g.sizes[hi]
			hi++
		}
		starts[hi] = size
		copy(next[lo:hi], starts[lo:hi])
		g.scatter(lo, hi, next)
		for b := lo; b < hi; b++ {
			if err := g.bucket(b, g.buf[starts[b]:starts[b+1]], fn); err != nil {
				return err
			}
		}
		lo = hi
	}
	return nil
}

// scatter copies the records of buckets lo to hi into the space, bucket
// b's from next[b] on, advancing next[b] past each.
func (g *gathered) scatter(lo, hi int, next []int) {
	o, first, end := g.o, uint32(lo)<<g.shift, uint32(hi)<<g.shift
	for r, rk := range g.rank {
		if r&(paceItems-1) == paceItems-1 {
			o.pace.Step(1)
		}
		if rk == 0 || rk-1 < first || rk-1 >= end {
			continue
		}
		k := o.key(int32(r))
		v, ok := o.val(int32(r))
		vlen := int32(len(v))
		if !ok {
			vlen = -1
		}
		b := int(rk-1) >> g.shift
		p := next[b]
		e := g.buf[p : p+gatherHeader+len(k)+len(v)]
		binary.LittleEndian.PutUint32(e, rk-1)
		binary.LittleEndian.PutUint32(e[4:], uint32(len(k)))
		binary.LittleEndian.PutUint32(e[8:], uint32(vlen))
		copy(e[gatherHeader:], k)
		copy(e[gatherHeader+len(k):], v)
		next[b] = p + len(e)
	}
}

// bucket calls fn for the records of bucket b, scattered into recs, in
// rank order.
func (g *gathered) bucket(b int, recs []byte, fn func(k, v []byte, del bool) error) error {
	base := b << g.shift
	pos := g.pos[:min(g.n-base, 1<<g.shift)]
	for p := 0; p < len(recs); {
		e := recs[p:]
		pos[int(binary.LittleEndian.Uint32(e))-base] = int32(p)
		p += gatherHeader + int(binary.LittleEndian.Uint32(e[4:])) + max(int(int32(binary.LittleEndian.Uint32(e[8:]))), 0)
	}
	for _, p := range pos {
		e := recs[p:]
		klen := int(binary.LittleEndian.Uint32(e[4:]))
		vlen := int(int32(binary.LittleEndian.Uint32(e[8:])))
		k := e[gatherHeader : gatherHeader+klen : gatherHeader+klen]
		var v []byte
		if vlen >= 0 {
			end := gatherHeader + klen + vlen
			v = e[gatherHeader+klen : end : end]
		}
		if err := fn(k, v, vlen < 0); err != nil {
			return err
		}
	}
	return nil
}

// release gives the space back for the next sort or gather; g must not be
// used after it.
func (g *gathered) release() {
	putSortScratch(g.scratch)
	*g = gathered{}
}
