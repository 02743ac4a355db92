package dedup

import (
	"slices"

	"github.com/bits-and-blooms/bloom/v3"
)

// Time buckets. Bucket number b holds the entries whose time is in
// [b·width, (b+1)·width): their numbers, their key bytes and a Bloom
// filter of their hashes. The live buckets are kept sorted by number;
// buckets are recycled through a pool with their slices and filters, so a
// steady stream allocates nothing once the pool has warmed up.

// bucket is one time bucket.
type bucket struct {
	num     int64
	filter  *bloom.BloomFilter
	cap     int     // the keys the filter is sized for
	entries []int32 // the entries in the bucket
	keys    []byte  // their key bytes
}

// minBucketKeys is the smallest number of keys a bucket's filter is sized
// for (about 2 KB of filter at the default rate over 17 buckets): small
// enough not to matter for a quiet stream, large enough that a busy one
// rarely regrows its first buckets' filters.
const minBucketKeys = 1024

// buckets are an operator's time buckets.
type buckets struct {
	width int64
	fpr   float64  // per filter: the configured rate over the buckets a row tests
	pool  []bucket // by index; an entry's bucket field indexes it
	free  []int32  // unused pool indexes
	live  []int32  // the live buckets' indexes, by increasing number
	last  int32    // the index of the bucket found last (a cache), or -1
	// Sizes, for the state metrics.
	keyBytes, filterBytes int64
}

// numOf returns the number of the bucket of time t.
func (bs *buckets) numOf(t int64) int64 {
	q := t / bs.width
	if t%bs.width < 0 {
		q--
	}
	return q
}

// find returns the index of the bucket of time t, creating it (with a
// filter for want keys) if there is none.
func (bs *buckets) find(t int64, want int) int32 {
	num := bs.numOf(t)
	if bs.last >= 0 && bs.pool[bs.last].num == num {
		return bs.last
	}
	pos, ok := slices.BinarySearchFunc(bs.live, num, func(i int32, num int64) int {
		switch n := bs.pool[i].num; {
		case n < num:
			return -1
		case n > num:
			return 1
		}
		return 0
	})
	if ok {
		bs.last = bs.live[pos]
		return bs.last
	}
	var i int32
	if k := len(bs.free); k > 0 {
		i = bs.free[k-1]
		bs.free = bs.free[:k-1]
	} else {
		i = int32(len(bs.pool))
		bs.pool = append(bs.pool, bucket{})
	}
	b := &bs.pool[i]
	b.num = num
	want = max(want, minBucketKeys)
	if b.filter == nil || b.cap < want || b.cap > 4*want {
		bs.setFilter(b, want)
	}
	bs.live = slices.Insert(bs.live, pos, i)
	bs.last = i
	return i
}

// setFilter gives b an empty filter sized for n keys.
func (bs *buckets) setFilter(b *bucket, n int) {
	if b.filter != nil {
		bs.filterBytes -= int64(b.filter.Cap() / 8)
	}
	b.filter, b.cap = bloom.NewWithEstimates(uint(n), bs.fpr), n
	bs.filterBytes += int64(b.filter.Cap() / 8)
}

// observed returns the most entries a live bucket holds: how many keys a
// bucket takes at the rate the operator sees, which sizes the next one.
func (bs *buckets) observed() int {
	n := 0
	for _, i := range bs.live {
		n = max(n, len(bs.pool[i].entries))
	}
	return n + n/4
}

// maybeHas reports whether a filter of a live bucket whose times are less
// than window away from t (only before t when past is set) may hold
// hash, given as its 8 bytes.
func (bs *buckets) maybeHas(hash []byte, t, window int64, past bool) bool {
	lo, hi := bs.numOf(satSub(t, window-1)), bs.numOf(t)
	if !past {
		hi = bs.numOf(satAdd(t, window-1))
	}
	// Newest first: a replay is more often of a recent row.
	for k := len(bs.live) - 1; k >= 0; k-- {
		b := &bs.pool[bs.live[k]]
		if b.num > hi {
			continue
		}
		if b.num < lo {
			break
		}
		if b.filter.Test(hash) {
			return true
		}
	}
	return false
}

// satAdd and satSub add and subtract without overflowing.
func satAdd(a, b int64) int64 {
	if s := a + b; (s > a) == (b > 0) {
		return s
	}
	if b > 0 {
		return 1<<63 - 1
	}
	return -1 << 63
}

func satSub(a, b int64) int64 {
	if b == -1<<63 {
		return satAdd(satAdd(a, 1<<63-1), 1)
	}
	return satAdd(a, -b)
}

// regrow gives b a filter for twice its keys, holding the hashes of its
// entries (hashOf returns an entry's, as 8 bytes): when a bucket takes
// more keys than its filter was sized for, its false-positive rate would
// climb. Doubling keeps the cost per key constant.
func (bs *buckets) regrow(b *bucket, hashOf func(id int32) []byte) {
	bs.setFilter(b, 2*max(b.cap, len(b.entries)))
	for _, id := range b.entries {
		b.filter.Add(hashOf(id))
	}
}

// expired returns how many of the oldest live buckets hold only times at
// or below horizon.
func (bs *buckets) expired(horizon int64) int {
	k := 0
	for k < len(bs.live) && satAdd(satAdd(bs.pool[bs.live[k]].num, 1)*bs.width, -1) <= horizon {
		k++
	}
	return k
}

// drop returns the k oldest live buckets to the pool, emptied (their
// entries must have been removed from the exact set).
func (bs *buckets) drop(k int) {
	for _, i := range bs.live[:k] {
		b := &bs.pool[i]
		bs.keyBytes -= int64(len(b.keys))
		b.entries, b.keys = b.entries[:0], b.keys[:0]
		b.filter.ClearAll()
		bs.free = append(bs.free, i)
		if bs.last == i {
			bs.last = -1
		}
	}
	bs.live = slices.Delete(bs.live, 0, k)
}

// bytes estimates the memory of the buckets holding entries entries: their
// key bytes, filters, entry lists (4 bytes an entry) and headers.
func (bs *buckets) bytes(entries int) int64 {
	return bs.keyBytes + bs.filterBytes + 4*int64(entries) + 64*int64(len(bs.pool))
}
