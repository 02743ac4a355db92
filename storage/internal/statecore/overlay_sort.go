package statecore

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math/bits"
	"slices"
	"sync"
	"unsafe"

	"github.com/eddysql/eddy/internal/giveway"
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

// wordsAt sets the item's words and rem from key k at depth.
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
// the items of sortDepth, table by table when the overlay knows every
// record's table (byTable): a table's records, in the log's order, share
// a longer prefix than all the records do, so the bytes the items hold
// are the ones that tell its keys apart. Comparing keys instead
// (slices.SortFunc on record numbers) reads two keys from all over the
// log at each of its n log n comparisons, and takes ten times as long for
// a million writes. Every step is stable, so the writes of one key stay
// in the order made and the last one wins.
func latestRecords(o *overlay) []int32 {
	n := o.recs()
	buf := takeSortScratch(2 * n)
	defer putSortScratch(buf)
	items, tmp := buf[:n], buf[n:]
	if tables := byTable(o, items); tables != nil {
		for _, t := range tables {
			end := t.start + t.n
			its := items[t.start:end]
			sortDepth(o, its, tmp[t.start:end], sharedPrefix(o, its, len(t.pre)))
		}
	} else {
		for i := range items {
			items[i] = sortItem{idx: int32(i)}
		}
		sortDepth(o, items, tmp, sharedPrefix(o, items, 0))
	}
	order := make([]int32, 0, n)
	for _, it := range items {
		if !it.dup {
			order = append(order, it.idx)
		}
	}
	return order
}

// The scratch space of the last sort, kept for the next. A commit sorts
// every write of its epoch, and the next commit about as many: reusing the
// items spares each commit the page faults of fresh memory (see
// kvlog.PoolBytes). Scratch larger than maxSortScratch is not kept.
var sortScratch struct {
	mu  sync.Mutex
	buf []sortItem
}

// maxSortScratch bounds the items sortScratch keeps: 256 MiB of them.
const maxSortScratch = (256 << 20) / int(unsafe.Sizeof(sortItem{}))

// takeSortScratch returns n items of scratch: the kept ones when they are
// enough, fresh ones otherwise, the kept ones then staying kept (for a
// commit's gather, which makes do with less; see gather). Their contents
// are undefined.
func takeSortScratch(n int) []sortItem {
	sortScratch.mu.Lock()
	buf := sortScratch.buf
	if cap(buf) < n {
		sortScratch.mu.Unlock()
		return make([]sortItem, n)
	}
	sortScratch.buf = nil
	sortScratch.mu.Unlock()
	return buf[:n]
}

// putSortScratch keeps buf for the next sort, unless it is larger than
// maxSortScratch or smaller than the scratch kept already.
func putSortScratch(buf []sortItem) {
	if cap(buf) > maxSortScratch {
		return
	}
	sortScratch.mu.Lock()
	if cap(buf) > cap(sortScratch.buf) {
		sortScratch.buf = buf
	}
	sortScratch.mu.Unlock()
}

// tableItems are the items of one table's records in latestRecords: from
// start to the next table's.
type tableItems struct {
	pre   []byte
	start int
	n     int // records
}

// byTable fills items with o's record numbers grouped by table, the
// tables in the order of their prefixes and each table's records in the
// log's order, and returns where each table's begin; or it returns nil
// when a segment's prefix is unknown or one prefix is a prefix of another
// (which tables' are not), and the caller sorts the log as one.
func byTable(o *overlay, items []sortItem) []tableItems {
	// A job has a few tables: each segment finds its own among them by a
	// look down the list, most often at its slice's address.
	var tables []tableItems
	segTable := make([]int32, len(o.segs))
	for i, sg := range o.segs {
		if len(sg.pre) == 0 {
			return nil
		}
		t := slices.IndexFunc(tables, func(t tableItems) bool { return samePrefix(t.pre, sg.pre) })
		if t < 0 {
			t = len(tables)
			tables = append(tables, tableItems{pre: sg.pre})
		}
		tables[t].n += o.segEnd(i) - int(sg.start)
		segTable[i] = int32(t)
	}
	byPrefix := make([]int, len(tables))
	for i := range byPrefix {
		byPrefix[i] = i
	}
	slices.SortFunc(byPrefix, func(a, b int) int { return bytes.Compare(tables[a].pre, tables[b].pre) })
	start := 0
	for i, t := range byPrefix {
		if i > 0 && bytes.HasPrefix(tables[t].pre, tables[byPrefix[i-1]].pre) {
			return nil // sorted, a prefix of another comes right before it
		}
		tables[t].start = start
		start += tables[t].n
	}
	next := make([]int, len(tables))
	for t := range tables {
		next[t] = tables[t].start
	}
	for i, sg := range o.segs {
		at := next[segTable[i]]
		for r := int(sg.start); r < o.segEnd(i); r++ {
			items[at] = sortItem{idx: int32(r)}
			at++
		}
		next[segTable[i]] = at
	}
	sorted := make([]tableItems, len(tables))
	for i, t := range byPrefix {
		sorted[i] = tables[t]
	}
	return sorted
}

// sharedPrefix returns the length of the prefix the keys of items share,
// which is at least from bytes long, reading them in the items' order (the
// log's).
func sharedPrefix(o *overlay, items []sortItem, from int) int {
	if len(items) == 0 {
		return from
	}
	first := o.key(items[0].idx)
	n := len(first)
	for _, it := range items {
		k := o.key(it.idx)
		n = min(n, len(k))
		if n <= from {
			return from
		}
		// Most keys share it all: compare the prefix whole first.
		if string(k[from:n]) != string(first[from:n]) {
			n = from + commonPrefix(first[from:n], k[from:n])
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
		if i&(paceItems-1) == paceItems-1 {
			o.pace.Step(1)
		}
	}
	sortWord(items, tmp, 0, o.pace)
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

// paceItems is how many items a sort handles between two steps of its
// pacer: tens of microseconds of work.
const paceItems = 4096

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
// from w on, then rem, stably, with tmp as scratch. A pass over
// paceItems items or more is a step of pace (nil: none).
func sortWord(items, tmp []sortItem, w int, pace *giveway.Pacer) {
	if len(items) >= paceItems {
		pace.Step(1)
	}
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
		sortWord(items, tmp, w+1, pace)
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
			sortWord(items[lo:hi], tmp[lo:hi], w, pace)
		}
	}
}
