package aggstate

import (
	"errors"
	"unsafe"
)

// ErrNegativeCount is returned when a retraction would take a count below
// zero: the input retracted something it never inserted, which breaks the
// changelog invariant of the operator upstream.
var ErrNegativeCount = errors.New("retraction of a value that was never inserted")

// Ordered are the value types a Multiset holds: integers and strings, whose
// < is a total order. Callers map other types onto them with
// order-preserving keys (a double's bits, a decimal's bytes).
type Ordered interface {
	~int64 | ~string
}

// Entry is one distinct value of a Multiset with its number of occurrences.
type Entry[V Ordered] struct {
	Val V
	N   int64
}

// Bucket sizes. A bucket is a sorted run of entries; bucketMax bounds the
// cost of an insertion into a bucket (a copy of at most bucketMax entries)
// while keeping the bucket list short (n/bucketMax headers to shift when a
// bucket splits), the trade-off of a two-level sorted list. bucketMin is the
// size below which a bucket is merged into its successor, so that deletions
// cannot leave many near-empty buckets.
const (
	bucketMax = 128
	bucketMin = bucketMax / 4
)

// Multiset is an ordered multiset of values with counts: the per-group state
// of a retractable MIN/MAX or of a DISTINCT aggregate.
//
// A multiset of up to bucketMax values is one sorted slice (small), so the
// common small group costs one allocation and one pointer to follow; a
// larger one is a two-level sorted list (big: sorted buckets of sorted
// entries) that still updates in O(log n + bucketMax). The header is kept
// to 32 bytes, two to a cache line, as a column of them is read at random.
// The zero value is empty and ready to use.
type Multiset[V Ordered] struct {
	small []Entry[V]
	big   *bigList[V]
}

// bigList is the two-level representation of a large Multiset.
type bigList[V Ordered] struct {
	buckets  [][]Entry[V]
	distinct int
}

// Small returns the values of a multiset of at most bucketMax values, in
// order, and nil for a larger one. It exists for prefetching; callers must
// not modify it.
func (m *Multiset[V]) Small() []Entry[V] { return m.small }

// Len returns the number of distinct values held.
func (m *Multiset[V]) Len() int {
	if m.big != nil {
		return m.big.distinct
	}
	return len(m.small)
}

// Reset empties the multiset and drops its memory.
func (m *Multiset[V]) Reset() { *m = Multiset[V]{} }

// First returns the smallest value, and false if the multiset is empty.
func (m *Multiset[V]) First() (V, bool) {
	switch {
	case m.big != nil:
		return m.big.buckets[0][0].Val, true
	case len(m.small) > 0:
		return m.small[0].Val, true
	}
	var zero V
	return zero, false
}

// Last returns the largest value, and false if the multiset is empty.
func (m *Multiset[V]) Last() (V, bool) {
	switch {
	case m.big != nil:
		b := m.big.buckets[len(m.big.buckets)-1]
		return b[len(b)-1].Val, true
	case len(m.small) > 0:
		return m.small[len(m.small)-1].Val, true
	}
	var zero V
	return zero, false
}

// Count returns the number of occurrences of v.
func (m *Multiset[V]) Count(v V) int64 {
	b := m.small
	if m.big != nil {
		b = m.big.buckets[m.findBucket(v)]
	}
	if i, found := search(b, v); found {
		return b[i].N
	}
	return 0
}

// Add adds w occurrences of v (w < 0 removes them) and returns the count of v
// before the change. A value whose count reaches zero is removed. If the
// count would become negative, Add changes nothing and returns
// ErrNegativeCount. clone, if not nil, copies a value the multiset starts
// keeping (a string read from an Arrow buffer must not outlive its batch).
func (m *Multiset[V]) Add(v V, w int64, clone func(V) V) (before int64, err error) {
	bi := -1
	b := m.small
	if m.big != nil {
		bi = m.findBucket(v)
		b = m.big.buckets[bi]
	}
	i, found := search(b, v)
	if found {
		before = b[i].N
		switch after := before + w; {
		case after < 0:
			return before, ErrNegativeCount
		case after == 0:
			m.remove(bi, i)
		default:
			b[i].N = after
		}
		return before, nil
	}
	switch {
	case w < 0:
		return 0, ErrNegativeCount
	case w == 0:
		return 0, nil
	}
	if clone != nil {
		v = clone(v)
	}
	b = append(b, Entry[V]{})
	copy(b[i+1:], b[i:])
	b[i] = Entry[V]{Val: v, N: w}
	if bi < 0 {
		m.small = b
		if len(b) > bucketMax {
			m.big = &bigList[V]{buckets: [][]Entry[V]{b}, distinct: len(b)}
			m.small = nil
			m.split(0)
		}
		return 0, nil
	}
	m.big.buckets[bi] = b
	m.big.distinct++
	if len(b) > bucketMax {
		m.split(bi)
	}
	return 0, nil
}

// Each calls fn for every distinct value in ascending order, with its count.
func (m *Multiset[V]) Each(fn func(v V, n int64)) {
	for _, e := range m.small {
		fn(e.Val, e.N)
	}
	if m.big != nil {
		for _, b := range m.big.buckets {
			for _, e := range b {
				fn(e.Val, e.N)
			}
		}
	}
}

// EntryBytes is the in-memory size of one entry of a Multiset[V], not
// counting what a value points to (string bytes).
func EntryBytes[V Ordered]() int64 {
	var e Entry[V]
	return int64(unsafe.Sizeof(e))
}

// findBucket returns the bucket of big that holds v or where v belongs: the
// first bucket whose last value is >= v, else the last bucket.
func (m *Multiset[V]) findBucket(v V) int {
	lo, hi := 0, len(m.big.buckets)-1
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		b := m.big.buckets[mid]
		if b[len(b)-1].Val < v {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// search returns the index of the first entry of b whose value is >= v and
// whether that entry equals v. Values arrive in no particular order, so the
// loop avoids data-dependent branches (a mispredicted branch per step would
// cost more than the comparisons).
func search[V Ordered](b []Entry[V], v V) (int, bool) {
	n := len(b)
	if n == 0 {
		return 0, false
	}
	base := 0
	for n > 1 {
		half := n >> 1
		base += half & -b2i(b[base+half-1].Val < v)
		n -= half
	}
	base += b2i(b[base].Val < v)
	return base, base < len(b) && b[base].Val == v
}

// b2i is 1 for true and 0 for false; the compiler makes it a SETcc, with
// no branch.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// split cuts bucket bi of big in two halves.
func (m *Multiset[V]) split(bi int) {
	l := m.big
	b := l.buckets[bi]
	half := len(b) / 2
	right := make([]Entry[V], len(b)-half, bucketMax+1)
	copy(right, b[half:])
	clear(b[half:])
	l.buckets[bi] = b[:half]
	l.buckets = append(l.buckets, nil)
	copy(l.buckets[bi+2:], l.buckets[bi+1:])
	l.buckets[bi+1] = right
}

// remove removes entry i of bucket bi (of small when bi < 0), dropping a
// bucket when it empties, merging it into its successor when it becomes
// small, and going back to a single slice when one bucket is left.
func (m *Multiset[V]) remove(bi, i int) {
	if bi < 0 {
		m.small = removeEntry(m.small, i)
		if len(m.small) == 0 {
			m.small = nil
		}
		return
	}
	l := m.big
	l.distinct--
	b := removeEntry(l.buckets[bi], i)
	l.buckets[bi] = b
	switch {
	case len(b) == 0:
		l.drop(bi)
	case len(b) < bucketMin && bi+1 < len(l.buckets) && len(b)+len(l.buckets[bi+1]) <= bucketMax:
		l.buckets[bi+1] = append(b, l.buckets[bi+1]...)
		l.drop(bi)
	}
	if len(l.buckets) == 1 {
		m.small, m.big = l.buckets[0], nil
	}
}

func removeEntry[V Ordered](b []Entry[V], i int) []Entry[V] {
	copy(b[i:], b[i+1:])
	b[len(b)-1] = Entry[V]{}
	return b[:len(b)-1]
}

// drop removes bucket bi.
func (l *bigList[V]) drop(bi int) {
	copy(l.buckets[bi:], l.buckets[bi+1:])
	l.buckets[len(l.buckets)-1] = nil
	l.buckets = l.buckets[:len(l.buckets)-1]
}
