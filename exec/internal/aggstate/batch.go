package aggstate

import "slices"

// BatchGroups numbers the distinct keys of one batch: the first distinct key
// is local group 0, the next 1, and so on in order of first occurrence.
// An aggregate groups a batch's rows with it before it looks anything up in
// its state, so that the state (a large table, rows out of cache) is read
// once per distinct key instead of once per row, and the per-row work lands
// in dense arrays of a batch's size that stay in the L1 or L2 cache.
//
// The table is open-addressed with linear probing and sized for the
// batch's distinct keys, not its rows: a batch of 4,096 rows over 1,000
// keys uses a 128 KB table, which fits the L2 cache. It is emptied, not
// freed, between batches.
type BatchGroups struct {
	tab    []batchEntry
	shift  uint8    // 64 - log2(len(tab))
	hashes []uint64 // by row

	// Keys are the batch's distinct keys, in order of first occurrence.
	Keys []int64
	// First are the rows of their first occurrences.
	First []int32
}

// batchEntry is one entry of the table: a key and its local group plus
// one (0 marks an empty entry).
type batchEntry struct {
	key int64
	id  int32
}

// Table shape. The smallest table, 64 entries (1 KB), costs nothing to
// clear. A table is kept at most a quarter full, counting room for a block
// of batchBlock new keys, so that few lookups collide: a collision is a
// mispredicted branch, and at half full a third of the rows had one.
// Checking for room once per block of 256 rows rather than per row made
// grouping a fifth faster.
const (
	batchMinSize = 64
	batchMaxLoad = 4
	batchBlock   = 256
)

// Group sets ids[i] to the local group of keys[i] and fills Keys and First.
// ids must be as long as keys.
func (b *BatchGroups) Group(keys []int64, ids []int32) {
	// Start at the size the previous batch ended with, assuming that
	// consecutive batches have about as many distinct keys: the table then
	// rarely grows within a batch.
	if len(b.tab) == 0 {
		b.resize(batchMinSize)
	}
	// Every row writes its key and row at position n of Keys and First,
	// which only advances past a new key: whether a row is the first of
	// its key follows no pattern, so it is counted rather than branched on.
	b.Keys = slices.Grow(b.Keys[:0], len(keys))[:len(keys)]
	b.First = slices.Grow(b.First[:0], len(keys))[:len(keys)]
	dk, df := b.Keys, b.First
	ids = ids[:len(keys)]
	// The hashes are computed first, in a loop of their own that the
	// processor pipelines freely; the probing loop then starts each row
	// with its table position a load away.
	b.hashes = slices.Grow(b.hashes[:0], len(keys))[:len(keys)]
	hashes := b.hashes
	for r, k := range keys {
		hashes[r] = Hash64(k)
	}
	n := 0
	for lo := 0; lo < len(keys); lo += batchBlock {
		hi := min(lo+batchBlock, len(keys))
		// Make room for every row of the block to be a new key, so that
		// the per-row loop has no growth check to keep in registers.
		for n+hi-lo > len(b.tab)/batchMaxLoad {
			b.Keys = dk[:n]
			b.resize(2 * len(b.tab))
		}
		n = b.groupBlock(keys[lo:hi], hashes[lo:hi], ids[lo:hi], dk, df, lo, n)
	}
	b.Keys, b.First = dk[:n], df[:n]
	b.reset()
}

// groupBlock groups rows lo.. of the batch (keys, their hashes, their ids
// to set), appending new keys at n of dk and df; it returns the new n. The
// table must have room for every row to be a new key.
func (b *BatchGroups) groupBlock(keys []int64, hashes []uint64, ids []int32, dk []int64, df []int32, lo, n int) int {
	tab, shift := b.tab, b.shift
	mask := len(tab) - 1
	hashes, ids = hashes[:len(keys)], ids[:len(keys)]
	for r, k := range keys {
		i := int(hashes[r]>>shift) & mask
		e := &tab[i]
		// The only branch is on a collision, which a table at most
		// 1/batchMaxLoad full makes rare; whether the entry is empty or
		// holds k follows no pattern, so it is computed, not branched on.
		for b2i(e.id != 0)&b2i(e.key != k) != 0 {
			i = (i + 1) & mask
			e = &tab[i]
		}
		isNew := b2i(e.id == 0)
		id := e.id | int32(n+1)&-int32(isNew)
		e.key, e.id = k, id
		ids[r] = id - 1
		dk[n], df[n] = k, int32(lo+r)
		n += isNew
	}
	return n
}

// resize replaces the table by an empty one of size entries (a power of
// two) and reinserts the keys seen so far in the batch.
func (b *BatchGroups) resize(size int) {
	if cap(b.tab) >= size {
		b.tab = b.tab[:size]
		clear(b.tab)
	} else {
		b.tab = make([]batchEntry, size)
	}
	log := 0
	for 1<<log < size {
		log++
	}
	b.shift = uint8(64 - log)
	mask := size - 1
	for id, k := range b.Keys {
		i := int(Hash64(k)>>b.shift) & mask
		for b.tab[i].id != 0 {
			i = (i + 1) & mask
		}
		b.tab[i] = batchEntry{key: k, id: int32(id) + 1}
	}
}

// reset empties the table for the next batch, shrinking it when the batch
// used less than a quarter of its capacity, so that one batch with many
// keys does not leave later ones with a table out of cache. Clearing the
// whole table (64 KB for a thousand keys) is faster than finding the
// batch's entries again.
func (b *BatchGroups) reset() {
	size := len(b.tab)
	for size > batchMinSize && 4*batchMaxLoad*len(b.Keys) < size {
		size /= 2
	}
	b.tab = b.tab[:size]
	clear(b.tab)
	log := 0
	for 1<<log < size {
		log++
	}
	b.shift = uint8(64 - log)
}

// Hash64 mixes a key (the finalizer of MurmurHash3) so that keys that
// differ only in a few bits, such as timestamps or multiples of a power of
// two, spread over every bit of the result.
func Hash64(k int64) uint64 {
	h := uint64(k)
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}
