package aggstate

import (
	"github.com/zeebo/xxh3"

	"github.com/eddysql/eddy/exec/internal/probe"
)

// Slots hands out dense group slots (0, 1, 2, ...) and reuses freed ones, so
// that per-slot state columns stay as short as the largest number of groups
// alive at once.
type Slots struct {
	free []int32
	high int32
	live int
}

// Alloc returns a free slot.
func (s *Slots) Alloc() int32 {
	s.live++
	if n := len(s.free); n > 0 {
		slot := s.free[n-1]
		s.free = s.free[:n-1]
		return slot
	}
	s.high++
	return s.high - 1
}

// Free returns slot to the pool.
func (s *Slots) Free(slot int32) {
	s.live--
	s.free = append(s.free, slot)
}

// Live returns the number of allocated slots.
func (s *Slots) Live() int { return s.live }

// High returns one more than the largest slot ever handed out: the length
// per-slot columns must have.
func (s *Slots) High() int { return int(s.high) }

// IntGroups maps a single integer-like group key (the int64 value of a
// BIGINT, DATE, TIMESTAMP, ...) to its slot with a typed hash table (see
// intTable for why not a Go map). NULL is a group of its own, as GROUP BY
// requires.
type IntGroups struct {
	Slots
	m        intTable
	keys     Column[int64] // by slot
	nullSlot int32         // the slot of the NULL group, or -1

	hashes []uint64
	home   []*intBucket
	later  []int32 // keys of FindDistinct whose home bucket was full
	sink   int64   // keeps FindDistinct's prefetching loads alive
}

// NewIntGroups returns an empty table.
func NewIntGroups() *IntGroups {
	return &IntGroups{nullSlot: -1}
}

// Find returns the slot of key k, creating the group if needed.
func (g *IntGroups) Find(k int64) (slot int32, created bool) {
	h := intHash(k)
	if b, e := g.m.find(k, h); b != nil {
		return b.slots[e] - 1, false
	}
	b, e, _ := g.add(k, h)
	return b.slots[e] - 1, true
}

// add creates the group of key k, whose hash is h.
func (g *IntGroups) add(k int64, h uint64) (*intBucket, int, bool) {
	s := g.Alloc()
	g.keys.Grow(int(s) + 1)
	*g.keys.At(s) = k
	return g.m.put(k, h, s)
}

// noBucket stands for the home bucket of keys in an empty part; it is only
// read.
var noBucket intBucket

// FindDistinct sets slots[i] to the slot of keys[i], creating groups. The
// keys must be distinct and none NULL: the caller numbers a batch's
// distinct keys first (BatchGroups), so that the table is read once per
// group a batch touches rather than once per row.
//
// Go has no prefetch instruction, so the home buckets are first read by a
// loop of a few instructions with no data-dependent branch, which the
// processor runs far ahead of the loads that miss the cache: it then waits
// for many misses at once (their latency, not bandwidth, is what a large
// table costs) instead of one per key, and the lookups that follow find the
// buckets in cache.
func (g *IntGroups) FindDistinct(keys []int64, slots []int32) {
	if cap(g.hashes) < len(keys) {
		g.hashes = make([]uint64, len(keys))
		g.home = make([]*intBucket, len(keys))
	}
	hashes, home := g.hashes[:len(keys)], g.home[:len(keys)]
	for i, k := range keys {
		h := intHash(k)
		hashes[i] = h
		home[i] = &noBucket
		if p, b := g.m.home(h); len(p.buckets) > 0 {
			home[i] = &p.buckets[b]
		}
	}
	var sum int64
	for _, b := range home {
		sum += b.keys[0]
	}
	g.sink += sum

	// A key absent from a home bucket with room is new. A key absent from
	// a full home bucket may be in the next ones, which were not read
	// above: those keys are looked up after the others, their next
	// buckets read together, rather than one miss at a time.
	g.later = g.later[:0]
	stale := false // a part grew: home pointers may point to old buckets
	for i, k := range keys {
		b, e := home[i], intBucketSize
		if !stale {
			e = b.match(k)
		}
		if e == intBucketSize {
			if !stale && b.full() {
				g.later = append(g.later, int32(i))
				continue
			}
			if stale {
				b, e = g.m.find(k, hashes[i])
			}
			if b == nil || e == intBucketSize {
				var grew bool
				b, e, grew = g.add(k, hashes[i])
				stale = stale || grew
			}
		}
		slots[i] = b.slots[e] - 1
	}
	if len(g.later) > 0 {
		g.findLater(keys, hashes, slots)
	}
	clear(home)
}

// findLater looks up the keys g.later of FindDistinct, whose home buckets
// were full: it reads their next buckets in a prefetching loop first.
func (g *IntGroups) findLater(keys []int64, hashes []uint64, slots []int32) {
	var sum int64
	for _, i := range g.later {
		if p, b := g.m.home(hashes[i]); len(p.buckets) > 0 {
			sum += p.buckets[(b+1)&(len(p.buckets)-1)].keys[0]
		}
	}
	g.sink += sum
	for _, i := range g.later {
		b, e := g.m.find(keys[i], hashes[i])
		if b == nil {
			b, e, _ = g.add(keys[i], hashes[i])
		}
		slots[i] = b.slots[e] - 1
	}
}

// FindNull returns the slot of the NULL key, creating the group if needed.
func (g *IntGroups) FindNull() (slot int32, created bool) {
	if g.nullSlot >= 0 {
		return g.nullSlot, false
	}
	s := g.Alloc()
	g.nullSlot = s
	g.keys.Grow(int(s) + 1)
	return s, true
}

// Key returns the key of a live slot; null reports the NULL group.
func (g *IntGroups) Key(slot int32) (k int64, null bool) {
	if slot == g.nullSlot {
		return 0, true
	}
	return *g.keys.At(slot), false
}

// Delete removes the group of a live slot and frees the slot.
func (g *IntGroups) Delete(slot int32) {
	if slot == g.nullSlot {
		g.nullSlot = -1
	} else {
		g.m.delete(*g.keys.At(slot))
	}
	g.Free(slot)
}

// TableBytes returns the memory of the hash table and of the keys by slot.
func (g *IntGroups) TableBytes() int64 { return g.m.bytes() + g.keys.Bytes() }

// BytesGroups maps encoded group keys to slots: an open-addressing index
// (package probe) from each key's 64-bit hash (xxh3) to its slot, with the
// keys and hashes by slot. A Go map of strings hashed and compared every
// key again at each lookup, and grew by rehashing them.
type BytesGroups struct {
	Slots
	index  probe.Index
	keys   Column[string] // by slot
	hashes Column[uint64] // by slot
	size   int64          // total bytes of the live keys

	// FindAll's scratch.
	batchHashes []uint64
	home        []int32
	sink        int // keeps FindAll's touching loads alive
}

// NewBytesGroups returns an empty table.
func NewBytesGroups() *BytesGroups {
	return &BytesGroups{}
}

// Find returns the slot of the encoded key k, creating the group if needed.
// k is copied when a group is created, so the caller may reuse it.
func (g *BytesGroups) Find(k []byte) (slot int32, created bool) {
	return g.find(k, xxh3.Hash(k))
}

// find is Find of key k whose hash is h. A slot is matched by its key
// alone: the index holds 32 bits of each entry's hash, so another key's
// entry is compared only once in billions of probes, and reading the
// slot's hash as well was one more cache miss per lookup.
func (g *BytesGroups) find(k []byte, h uint64) (slot int32, created bool) {
	s := g.index.Find(h, func(s int32) bool { return *g.keys.At(s) == string(k) })
	if s >= 0 {
		return s, false
	}
	key := string(k)
	s = g.Alloc()
	g.keys.Grow(int(s) + 1)
	g.hashes.Grow(int(s) + 1)
	*g.keys.At(s), *g.hashes.At(s) = key, h
	g.index.Insert(h, s)
	g.size += int64(len(key))
	return s, true
}

// FindAll sets slots[i] to the slot of the i-th encoded key of buf, which
// spans buf[off[i]:off[i+1]], creating groups; len(off) is len(slots)+1.
//
// In a table larger than the caches a lookup waits on a chain of misses:
// the index slot, the candidate's key (its string header), the key's
// bytes. One lookup after another waits for each chain in turn; FindAll
// first reads every key's home slot, then every candidate's key, in loops
// whose loads do not wait on each other, so that the processor overlaps
// their misses (as IntGroups.FindDistinct does), and the lookups that
// follow find them in cache.
func (g *BytesGroups) FindAll(buf []byte, off []int, slots []int32) {
	n := len(slots)
	if cap(g.batchHashes) < n {
		g.batchHashes = make([]uint64, n)
		g.home = make([]int32, n)
	}
	hashes, home := g.batchHashes[:n], g.home[:n]
	for i := range n {
		hashes[i] = xxh3.Hash(buf[off[i]:off[i+1]])
	}
	for i, h := range hashes {
		home[i] = g.index.Peek(h)
	}
	sum := 0
	for _, s := range home {
		if s >= 0 {
			if k := *g.keys.At(s); len(k) > 0 {
				sum += int(k[len(k)-1])
			}
		}
	}
	g.sink += sum
	for i, h := range hashes {
		slots[i], _ = g.find(buf[off[i]:off[i+1]], h)
	}
}

// Key returns the encoded key of a live slot.
func (g *BytesGroups) Key(slot int32) string { return *g.keys.At(slot) }

// KeyBytes returns the total size of the live encoded keys.
func (g *BytesGroups) KeyBytes() int64 { return g.size }

// TableBytes returns the memory of the index and of the keys' headers and
// hashes by slot.
func (g *BytesGroups) TableBytes() int64 { return g.index.Bytes() + g.keys.Bytes() + g.hashes.Bytes() }

// Delete removes the group of a live slot and frees the slot.
func (g *BytesGroups) Delete(slot int32) {
	k := g.keys.At(slot)
	g.index.Remove(*g.hashes.At(slot), slot)
	g.size -= int64(len(*k))
	*k = ""
	g.Free(slot)
}
