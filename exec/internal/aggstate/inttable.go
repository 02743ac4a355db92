package aggstate

import (
	"math/bits"

	"github.com/eddysql/eddy/internal/hugepage"
)

// intTable is an open-addressing hash table from int64 keys to int32 slots,
// used instead of a Go map for the single-integer-key fast path. Entries sit
// in 64-byte buckets of five, one cache line each, and a key lives in its
// home bucket unless that bucket is full (linear probing over buckets), so
// a lookup nearly always costs one cache miss, where a Go map costs two or
// three (control word, slot, table header). With a million groups those
// misses are what a batch mostly waits for.
//
// The table is split into intTableParts parts by the top bits of the hash,
// each growing on its own, so that a growth rehashes 1/intTableParts of the
// keys: no batch pays for rehashing the whole state at once.
type intTable struct {
	parts   [intTableParts]intPart
	n       int // keys
	buckets int // buckets allocated, over all parts
}

// Table shape. 256 parts bound a growth to 0.4% of the keys. A part is
// kept at most half full (intMaxLoadNum/intMaxLoadDen of its entries):
// a bucket of five then overflows into the next one for about 2% of the
// keys.
const (
	intTableBits  = 8
	intTableParts = 1 << intTableBits
	intBucketSize = 5
	intMaxLoadNum = 1
	intMaxLoadDen = 2
	intMinBuckets = 2
)

// intBucket is five entries, keys and slots plus one (0 marks an empty
// entry), in 60 bytes padded to a cache line.
type intBucket struct {
	keys  [intBucketSize]int64
	slots [intBucketSize]int32
	_     uint32
}

type intPart struct {
	buckets []intBucket // length is a power of two, or 0
	n       int
	shift   uint8 // 64 - log2(len(buckets))
}

// intHash mixes a key so that keys that differ only in a few bits, such as
// timestamps, spread over all parts.
func intHash(k int64) uint64 { return Hash64(k) }

// home returns the part of a hash and its home bucket there (meaningless
// while the part has no buckets).
func (t *intTable) home(h uint64) (*intPart, int) {
	p := &t.parts[h>>(64-intTableBits)]
	return p, int((h << intTableBits) >> p.shift)
}

// match returns the entry of b that holds k, or intBucketSize when none
// does. It compares the five entries without branches (keys arrive in no
// predictable order).
func (b *intBucket) match(k int64) int {
	m := b2i(b.keys[0] == k)&b2i(b.slots[0] != 0) |
		(b2i(b.keys[1] == k)&b2i(b.slots[1] != 0))<<1 |
		(b2i(b.keys[2] == k)&b2i(b.slots[2] != 0))<<2 |
		(b2i(b.keys[3] == k)&b2i(b.slots[3] != 0))<<3 |
		(b2i(b.keys[4] == k)&b2i(b.slots[4] != 0))<<4
	return bits.TrailingZeros(uint(m | 1<<intBucketSize))
}

// full reports whether b has no empty entry.
func (b *intBucket) full() bool {
	return b.slots[0] != 0 && b.slots[1] != 0 && b.slots[2] != 0 && b.slots[3] != 0 && b.slots[4] != 0
}

// find returns the bucket and entry of k, whose hash is h, or nil.
func (t *intTable) find(k int64, h uint64) (*intBucket, int) {
	p, i := t.home(h)
	if len(p.buckets) == 0 {
		return nil, 0
	}
	mask := len(p.buckets) - 1
	for {
		b := &p.buckets[i]
		if e := b.match(k); e < intBucketSize {
			return b, e
		}
		if !b.full() {
			return nil, 0
		}
		i = (i + 1) & mask
	}
}

// get returns the slot of k.
func (t *intTable) get(k int64) (int32, bool) {
	if b, e := t.find(k, intHash(k)); b != nil {
		return b.slots[e] - 1, true
	}
	return 0, false
}

// put maps k, which must be absent and hash to h, to slot, and returns
// where it went and whether the part grew (which moves its entries, so
// bucket pointers into it are stale).
func (t *intTable) put(k int64, h uint64, slot int32) (b *intBucket, e int, grew bool) {
	p, _ := t.home(h)
	if (p.n+1)*intMaxLoadDen > len(p.buckets)*intBucketSize*intMaxLoadNum {
		t.buckets -= len(p.buckets)
		p.grow()
		t.buckets += len(p.buckets)
		grew = true
	}
	_, i := t.home(h)
	p.n++
	t.n++
	b, e = p.insert(i, k, slot+1)
	return b, e, grew
}

// insert stores an entry in the first bucket from i with room.
func (p *intPart) insert(i int, k int64, slot int32) (*intBucket, int) {
	mask := len(p.buckets) - 1
	for {
		b := &p.buckets[i]
		for e := range intBucketSize {
			if b.slots[e] == 0 {
				b.keys[e], b.slots[e] = k, slot
				return b, e
			}
		}
		i = (i + 1) & mask
	}
}

// grow doubles the part's buckets and reinserts its entries.
func (p *intPart) grow() {
	old := p.buckets
	size := max(2*len(old), intMinBuckets)
	p.buckets = hugepage.Make[intBucket](size)
	p.shift = uint8(64 - bits.TrailingZeros(uint(size)))
	for bi := range old {
		b := &old[bi]
		for e := range intBucketSize {
			if b.slots[e] != 0 {
				p.insert(p.homeOf(b.keys[e]), b.keys[e], b.slots[e])
			}
		}
	}
}

// homeOf returns the home bucket of k in p.
func (p *intPart) homeOf(k int64) int { return int((intHash(k) << intTableBits) >> p.shift) }

// delete removes k, which must be present. Entries further along the probe
// sequence that relied on the emptied entry's bucket being full move back
// into the hole (backward-shift deletion), so no tombstones are left.
func (t *intTable) delete(k int64) {
	p, hole := t.home(intHash(k))
	mask := len(p.buckets) - 1
	for p.buckets[hole].match(k) == intBucketSize {
		hole = (hole + 1) & mask
	}
	b := &p.buckets[hole]
	e := b.match(k)
	b.keys[e], b.slots[e] = 0, 0
	p.n--
	t.n--
	for j := (hole + 1) & mask; j != hole; j = (j + 1) & mask {
		bj := &p.buckets[j]
		wasFull := bj.full()
		moved := -1
		for f := range intBucketSize {
			if bj.slots[f] == 0 {
				continue
			}
			// The entry's probe from its home to j passes the hole.
			if home := p.homeOf(bj.keys[f]); (j-home)&mask >= (j-hole)&mask {
				moved = f
				break
			}
		}
		if moved >= 0 {
			hb := &p.buckets[hole]
			he := hb.emptyEntry()
			hb.keys[he], hb.slots[he] = bj.keys[moved], bj.slots[moved]
			bj.keys[moved], bj.slots[moved] = 0, 0
			hole = j
			continue
		}
		if !wasFull {
			return
		}
	}
}

// emptyEntry returns an empty entry of b, which must have one.
func (b *intBucket) emptyEntry() int {
	for e := range intBucketSize {
		if b.slots[e] == 0 {
			return e
		}
	}
	return -1
}

// bytes returns the memory held by the buckets.
func (t *intTable) bytes() int64 { return int64(t.buckets) * 64 }
