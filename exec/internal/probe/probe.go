// Package probe is an open-addressing index from 64-bit hashes to entry
// numbers, with linear probing and backward-shift deletion (so lookups
// never meet tombstones), for operators that keep their entries in a
// slice of their own and want no map per row: exec/dedup's exact set,
// exec/setop's counts and exec/join's buckets of rows by join key. The index holds entry numbers only; the operator
// says what an entry's hash is (hashOf) and whether it matches a key.
package probe

// MinSize is the smallest index: 256 slots, 1 KB.
const MinSize = 256

// Index maps hashes to entry numbers.
type Index struct {
	slots []int32 // entry number + 1; 0 is empty
	mask  uint64
	n     int
}

// home returns the first slot of h's probe sequence. Its low bits are
// folded with its high ones: the hashes an operator indexes are often
// exec.HashRows's, whose low bits (the key group) are alike in one
// instance — a hash exchange sent it the keys of its key groups — and
// would otherwise leave most slots without an entry at home and make
// long runs of the others.
func (x *Index) home(h uint64) uint64 { return (h ^ h>>32) & x.mask }

// Len returns the number of entries indexed.
func (x *Index) Len() int { return x.n }

// Find returns the first entry number along h's probe sequence for which
// match is true, or -1.
func (x *Index) Find(h uint64, match func(id int32) bool) int32 {
	if x.n == 0 {
		return -1
	}
	for i := x.home(h); ; i = (i + 1) & x.mask {
		v := x.slots[i]
		if v == 0 {
			return -1
		}
		if match(v - 1) {
			return v - 1
		}
	}
}

// Insert indexes entry id of hash h, doubling the index (hashOf gives
// each indexed entry's hash) when it would be more than half full.
func (x *Index) Insert(h uint64, id int32, hashOf func(id int32) uint64) {
	if 2*(x.n+1) > len(x.slots) {
		x.grow(hashOf)
	}
	x.place(h, id)
	x.n++
}

// place puts id in the first empty slot of h's probe sequence.
func (x *Index) place(h uint64, id int32) {
	i := x.home(h)
	for x.slots[i] != 0 {
		i = (i + 1) & x.mask
	}
	x.slots[i] = id + 1
}

// Reserve sizes the index for n entries in all (at most half full), so
// that inserting up to n grows it at most once, now, rather than doubling
// it repeatedly: a restore knows how many entries it is about to insert.
func (x *Index) Reserve(n int, hashOf func(id int32) uint64) {
	size := max(len(x.slots), MinSize)
	for size < 2*n {
		size *= 2
	}
	if size > len(x.slots) {
		x.resize(size, hashOf)
	}
}

// grow doubles the index (or makes the first) and places every entry
// again.
func (x *Index) grow(hashOf func(id int32) uint64) {
	x.resize(max(2*len(x.slots), MinSize), hashOf)
}

// resize makes the index size slots (a power of two) and places every
// entry again.
func (x *Index) resize(size int, hashOf func(id int32) uint64) {
	old := x.slots
	x.slots = make([]int32, size)
	x.mask = uint64(size - 1)
	for _, v := range old {
		if v != 0 {
			x.place(hashOf(v-1), v-1)
		}
	}
}

// Remove drops entry id of hash h, which must be indexed. The entries
// after it in its probe run move back into the hole when their home slot
// allows (backward-shift deletion).
func (x *Index) Remove(h uint64, id int32, hashOf func(id int32) uint64) {
	i := x.home(h)
	for x.slots[i] != id+1 {
		i = (i + 1) & x.mask
	}
	for j := (i + 1) & x.mask; x.slots[j] != 0; j = (j + 1) & x.mask {
		home := x.home(hashOf(x.slots[j] - 1))
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
func (x *Index) Bytes() int64 { return int64(cap(x.slots)) * 4 }
