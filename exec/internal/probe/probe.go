// Package probe is an open-addressing index from 64-bit hashes to entry
// numbers, with linear probing and backward-shift deletion (so lookups
// never meet tombstones), for operators that keep their entries in a
// slice of their own and want no map per row: exec/dedup's exact set,
// exec/setop's counts and exec/join's buckets of rows by join key. The
// index holds entry numbers only; the operator says whether an entry
// matches a key.
//
// Each slot also holds the high 32 bits of its entry's hash, which place
// the entry (its home slot) and filter a lookup: an entry whose bits
// differ is passed over without reading the operator's entry, a cache
// miss in a large state, and the index grows and deletes without asking
// the operator for any entry's hash.
package probe

import "github.com/eddysql/eddy/internal/hugepage"

// MinSize is the smallest index: 256 slots, 2 KB.
const MinSize = 256

// Index maps hashes to entry numbers.
type Index struct {
	// slots hold the high 32 bits of an entry's hash above its entry
	// number + 1; 0 is empty.
	slots []uint64
	mask  uint64
	n     int
}

// slotOf returns the slot of entry id of hash h.
func slotOf(h uint64, id int32) uint64 { return h&^0xffffffff | uint64(uint32(id+1)) }

// home returns the first slot of the probe sequence of a hash whose high
// 32 bits are hi (the high half of h, or of a slot). They are independent
// of the low bits, which for exec.HashRows's hashes are the key group and
// alike in one instance (a hash exchange sent it the keys of its key
// groups). An index has at most 2^32 slots.
func (x *Index) home(hi uint64) uint64 { return hi >> 32 & x.mask }

// Len returns the number of entries indexed.
func (x *Index) Len() int { return x.n }

// Find returns the first entry number along h's probe sequence whose hash
// shares h's high 32 bits and for which match is true, or -1.
func (x *Index) Find(h uint64, match func(id int32) bool) int32 {
	if x.n == 0 {
		return -1
	}
	tag := h &^ 0xffffffff
	for i := x.home(h); ; i = (i + 1) & x.mask {
		v := x.slots[i]
		if v == 0 {
			return -1
		}
		if v&^0xffffffff == tag {
			if id := int32(uint32(v)) - 1; match(id) {
				return id
			}
		}
	}
}

// Peek reads the home slot of hash h and returns the entry number it
// holds, or -1 when it is empty, so that a caller about to look up many
// hashes can first touch their slots in a loop whose loads do not wait on
// each other: in an index larger than the caches each is a miss, and the
// processor overlaps independent misses where lookups, one after the
// other, each wait for theirs. The entry need not be h's.
func (x *Index) Peek(h uint64) int32 {
	if x.n == 0 {
		return -1
	}
	return int32(uint32(x.slots[x.home(h)])) - 1
}

// Insert indexes entry id of hash h, doubling the index when it would be
// more than half full.
func (x *Index) Insert(h uint64, id int32) {
	if 2*(x.n+1) > len(x.slots) {
		x.resize(max(2*len(x.slots), MinSize))
	}
	x.place(slotOf(h, id))
	x.n++
}

// place puts slot value v in the first empty slot of its probe sequence.
func (x *Index) place(v uint64) {
	i := x.home(v)
	for x.slots[i] != 0 {
		i = (i + 1) & x.mask
	}
	x.slots[i] = v
}

// Reserve sizes the index for n entries in all (at most half full), so
// that inserting up to n grows it at most once, now, rather than doubling
// it repeatedly: a restore knows how many entries it is about to insert.
func (x *Index) Reserve(n int) {
	size := max(len(x.slots), MinSize)
	for size < 2*n {
		size *= 2
	}
	if size > len(x.slots) {
		x.resize(size)
	}
}

// resize makes the index size slots (a power of two) and places every
// entry again.
func (x *Index) resize(size int) {
	old := x.slots
	x.slots = hugepage.Make[uint64](size)
	x.mask = uint64(size - 1)
	for _, v := range old {
		if v != 0 {
			x.place(v)
		}
	}
}

// Remove drops entry id of hash h, which must be indexed. The entries
// after it in its probe run move back into the hole when their home slot
// allows (backward-shift deletion).
func (x *Index) Remove(h uint64, id int32) {
	v := slotOf(h, id)
	i := x.home(h)
	for x.slots[i] != v {
		i = (i + 1) & x.mask
	}
	for j := (i + 1) & x.mask; x.slots[j] != 0; j = (j + 1) & x.mask {
		home := x.home(x.slots[j])
		// The entry at j may fill the hole at i if its home is not in the
		// cyclic range (i, j].
		if (j > i && (home <= i || home > j)) || (j < i && home <= i && home > j) {
			x.slots[i] = x.slots[j]
			i = j
		}
	}
	x.slots[i] = 0
	x.n--
}

// Bytes returns the memory of the index.
func (x *Index) Bytes() int64 { return int64(cap(x.slots)) * 8 }

// Renumber makes entry id of hash h, which must be indexed, entry to: an
// entry that moved keeps its slot, found along its probe sequence.
func (x *Index) Renumber(h uint64, id, to int32) {
	v := slotOf(h, id)
	i := x.home(h)
	for x.slots[i] != v {
		i = (i + 1) & x.mask
	}
	x.slots[i] = slotOf(h, to)
}
