package statecore

import (
	"cmp"
	"encoding/binary"
	"math/bits"
	"slices"
)

// sortItem is a record being sorted by key: its number and, at the depth
// being sorted, the chunk of its key there (the next 8 bytes, big-endian,
// zero-padded) and rem, how many of its bytes are left from there (9 for
// more than 8).
type sortItem struct {
	chunk uint64
	idx   int32
	rem   uint8
	dup   bool // a write of a key written again later
}

// chunkAt returns the chunk and rem of k at depth.
func chunkAt(k []byte, depth int) (uint64, uint8) {
	k = k[depth:]
	if len(k) >= 8 {
		return binary.BigEndian.Uint64(k), uint8(min(len(k), 9))
	}
	var b [8]byte
	copy(b[:], k)
	return binary.BigEndian.Uint64(b[:]), uint8(len(k))
}

// less orders items by key within the chunk: by chunk, then the shorter
// key first (when the chunks are equal, the shorter key is a prefix of
// the longer one).
func (a sortItem) less(b sortItem) bool {
	return a.chunk < b.chunk || a.chunk == b.chunk && a.rem < b.rem
}

// latestRecords returns the last record of each of o's keys, in key order.
//
// It sorts the records by key with a most-significant-digit radix sort
// over 8-byte chunks of the keys: one pass reads each key's chunk, then
// the sort moves 16-byte items that hold it, never touching the keys
// again, and only keys that agree on a whole chunk are read again for the
// next. Comparing keys instead (slices.SortFunc on record numbers) reads
// two keys from all over the slab at each of its n log n comparisons, and
// takes ten times as long for a million writes. Every step is stable, so
// the writes of one key stay in the order made and the last one wins.
func latestRecords(o *overlay) []int32 {
	items := make([]sortItem, o.recs())
	for i := range items {
		items[i].idx = int32(i)
	}
	sortDepth(o, items, make([]sortItem, len(items)), 0)
	order := make([]int32, 0, len(items))
	for _, it := range items {
		if !it.dup {
			order = append(order, it.idx)
		}
	}
	return order
}

// sortDepth sorts items, whose keys agree on their first depth bytes, by
// key, and marks every write of a key but the last as a dup. tmp is
// scratch space as long as items.
func sortDepth(o *overlay, items, tmp []sortItem, depth int) {
	for i := range items {
		items[i].chunk, items[i].rem = chunkAt(o.key(items[i].idx), depth)
	}
	sortChunks(items, tmp)
	for i := 0; i < len(items); {
		j := i + 1
		for j < len(items) && items[j].chunk == items[i].chunk && items[j].rem == items[i].rem {
			j++
		}
		switch {
		case j-i == 1:
		case items[i].rem > 8:
			// Keys that go on past the chunk, alike so far.
			sortDepth(o, items[i:j], tmp[i:j], depth+8)
		default:
			// Writes of one key, in the order made.
			for k := i; k < j-1; k++ {
				items[k].dup = true
			}
		}
		i = j
	}
}

// smallSort is the size of run that sortChunks sorts by insertion: a
// radix pass has to clear and add up 256 counters whatever the run's
// size, more work than insertion sort does on a run this small.
const smallSort = 32

// sortChunks sorts items by (chunk, rem), stably, with tmp as scratch.
func sortChunks(items, tmp []sortItem) {
	if len(items) <= smallSort {
		for i := 1; i < len(items); i++ {
			for j := i; j > 0 && items[j].less(items[j-1]); j-- {
				items[j], items[j-1] = items[j-1], items[j]
			}
		}
		return
	}
	// Skip the bytes all the chunks share: sort on the first byte where
	// they differ, then within each bucket on the bytes after it.
	var diff uint64
	first := items[0].chunk
	for i := range items {
		diff |= items[i].chunk ^ first
	}
	if diff == 0 {
		byRem := func(a, b sortItem) int { return cmp.Compare(a.rem, b.rem) }
		if !slices.IsSortedFunc(items, byRem) {
			slices.SortStableFunc(items, byRem)
		}
		return
	}
	shift := uint(63-bits.LeadingZeros64(diff)) &^ 7
	var starts [257]int
	for i := range items {
		starts[int(byte(items[i].chunk>>shift))+1]++
	}
	for d := 1; d < len(starts); d++ {
		starts[d] += starts[d-1]
	}
	next := starts
	for i := range items {
		d := byte(items[i].chunk >> shift)
		tmp[next[d]] = items[i]
		next[d]++
	}
	copy(items, tmp)
	for d := range 256 {
		if lo, hi := starts[d], starts[d+1]; hi-lo > 1 {
			sortChunks(items[lo:hi], tmp[lo:hi])
		}
	}
}
