package statecore

import (
	"cmp"
	"encoding/binary"
	"math/bits"
	"slices"
)

// sortWords is how many 8-byte words of each key a sort item holds: one
// pass over the log in its own order (memory read in sequence) copies that
// much of every key, past the prefix all the keys share, into the items,
// and the sort then moves items without reading the keys again, except
// for keys that agree on all of those bytes.
const sortWords = 3

// sortSpan is the number of key bytes a sort item holds.
const sortSpan = 8 * sortWords

// sortItem is a record being sorted by key: its number and, at the depth
// being sorted, the next sortSpan bytes of its key there (big-endian
// words, zero-padded) and rem, how many of its bytes are left from there
// (sortSpan+1 for more than sortSpan).
type sortItem struct {
	w   [sortWords]uint64
	idx int32
	rem uint8
	dup bool // a write of a key written again later
}

// wordsAt sets it's words and rem from key k at depth.
func (it *sortItem) wordsAt(k []byte, depth int) {
	k = k[depth:]
	it.rem = uint8(min(len(k), sortSpan+1))
	for i := range sortWords {
		if len(k) >= 8 {
			it.w[i] = binary.BigEndian.Uint64(k)
			k = k[8:]
			continue
		}
		var b [8]byte
		copy(b[:], k)
		it.w[i] = binary.BigEndian.Uint64(b[:])
		k = nil
	}
}

// latestRecords returns the last record of each of o's keys, in key order.
//
// It sorts the records by key with a most-significant-digit radix sort on
// the items of sortDepth. Comparing keys instead (slices.SortFunc on
// record numbers) reads two keys from all over the log at each of its
// n log n comparisons, and takes ten times as long for a million writes.
// Every step is stable, so the writes of one key stay in the order made
// and the last one wins.
func latestRecords(o *overlay) []int32 {
	n := o.recs()
	items := make([]sortItem, n)
	for i := range items {
		items[i].idx = int32(i)
	}
	sortDepth(o, items, make([]sortItem, n), sharedPrefix(o))
	order := make([]int32, 0, n)
	for _, it := range items {
		if !it.dup {
			order = append(order, it.idx)
		}
	}
	return order
}

// sharedPrefix returns the length of the prefix all of o's keys share (a
// table's prefix, at least, when one table took all the writes), read in
// the log's order.
func sharedPrefix(o *overlay) int {
	if o.recs() == 0 {
		return 0
	}
	first := o.key(0)
	n := len(first)
	for r := range int32(o.recs()) {
		k := o.key(r)
		n = min(n, len(k))
		if n == 0 {
			break
		}
		// Most keys share it all: compare the prefix whole first.
		if string(k[:n]) != string(first[:n]) {
			n = commonPrefix(first[:n], k[:n])
		}
	}
	return n
}

// commonPrefix returns the length of the common prefix of a and b, which
// are as long.
func commonPrefix(a, b []byte) int {
	i := 0
	for i+8 <= len(a) && binary.LittleEndian.Uint64(a[i:]) == binary.LittleEndian.Uint64(b[i:]) {
		i += 8
	}
	for i < len(a) && a[i] == b[i] {
		i++
	}
	return i
}

// sortDepth sorts items, whose keys agree on their first depth bytes, by
// key, and marks every write of a key but the last as a dup. tmp is
// scratch space as long as items.
func sortDepth(o *overlay, items, tmp []sortItem, depth int) {
	for i := range items {
		items[i].wordsAt(o.key(items[i].idx), depth)
	}
	sortWord(items, tmp, 0)
	for i := 0; i < len(items); {
		j := i + 1
		for j < len(items) && items[j].w == items[i].w && items[j].rem == items[i].rem {
			j++
		}
		switch {
		case j-i == 1:
		case items[i].rem > sortSpan:
			// Keys that go on past the span, alike so far.
			sortDepth(o, items[i:j], tmp[i:j], depth+sortSpan)
		default:
			// Writes of one key, in the order made.
			for k := i; k < j-1; k++ {
				items[k].dup = true
			}
		}
		i = j
	}
}

// smallSort is the size of run that sortWord sorts by insertion: a radix
// pass has to clear and add up 256 counters whatever the run's size, more
// work than insertion sort does on a run this small.
const smallSort = 32

// less orders items by their words from word w on, then the shorter key
// first (when the words are equal, the shorter key is a prefix of the
// longer one).
func (a *sortItem) less(b *sortItem, w int) bool {
	for ; w < sortWords; w++ {
		if a.w[w] != b.w[w] {
			return a.w[w] < b.w[w]
		}
	}
	return a.rem < b.rem
}

// sortWord sorts items, whose words before w are equal, by their words
// from w on, then rem, stably, with tmp as scratch.
func sortWord(items, tmp []sortItem, w int) {
	if len(items) <= smallSort {
		for i := 1; i < len(items); i++ {
			for j := i; j > 0 && items[j].less(&items[j-1], w); j-- {
				items[j], items[j-1] = items[j-1], items[j]
			}
		}
		return
	}
	if w == sortWords {
		byRem := func(a, b sortItem) int { return cmp.Compare(a.rem, b.rem) }
		if !slices.IsSortedFunc(items, byRem) {
			slices.SortStableFunc(items, byRem)
		}
		return
	}
	// Skip the bytes of the word all the items share: sort on the first
	// byte where they differ, then within each bucket on the bytes after
	// it (the next word once this one is done).
	var diff uint64
	first := items[0].w[w]
	for i := range items {
		diff |= items[i].w[w] ^ first
	}
	if diff == 0 {
		sortWord(items, tmp, w+1)
		return
	}
	shift := uint(63-bits.LeadingZeros64(diff)) &^ 7
	var starts [257]int
	for i := range items {
		starts[int(byte(items[i].w[w]>>shift))+1]++
	}
	for d := 1; d < len(starts); d++ {
		starts[d] += starts[d-1]
	}
	next := starts
	for i := range items {
		d := byte(items[i].w[w] >> shift)
		tmp[next[d]] = items[i]
		next[d]++
	}
	copy(items, tmp)
	for d := range 256 {
		if lo, hi := starts[d], starts[d+1]; hi-lo > 1 {
			sortWord(items[lo:hi], tmp[lo:hi], w)
		}
	}
}
