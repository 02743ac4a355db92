package join

// deadlines orders a windowed join side's rows by the watermark that
// frees them, in buckets of one deadline each: the distinct deadlines held
// are a binary min-heap, and each bucket lists its rows. A window join's
// rows share few deadlines (a window's end, whichever of its rows), an
// interval join's as many as its rows have distinct times within the
// bound; either way a row is added by appending to its bucket (the one of
// the row before, as rows of a batch mostly share theirs, else a map
// lookup), not by sifting through a heap of every row, and the rows due
// leave a bucket at a time.
//
// An entry is stale once its row was retracted: the row id may since hold
// another row, with a deadline of its own. Each tracked row gets a new
// generation (side.gen), and an entry frees its row only if it carries the
// row's current one.
type deadlines struct {
	heap    []int64         // the deadlines of the buckets, a min-heap
	buckets map[int64]int32 // a deadline's bucket: its index in lists
	lists   [][]deadlineEntry
	free    []int32 // lists no deadline uses, emptied, for reuse
	// The bucket of the last entry added (valid while lastOK).
	last    int64
	lastIdx int32
	lastOK  bool
	n       int // entries held, stale ones too
}

// deadlineEntry is a row of a bucket: its id, and the generation of id it
// was added for.
type deadlineEntry struct {
	id  int32
	gen uint32
}

// len returns the number of entries held, stale ones too.
func (d *deadlines) len() int { return d.n }

// push adds row id, of generation gen, under deadline at.
func (d *deadlines) push(at int64, id int32, gen uint32) {
	b := d.lastIdx
	if !d.lastOK || at != d.last {
		var ok bool
		if b, ok = d.buckets[at]; !ok {
			b = d.newBucket(at)
		}
		d.last, d.lastIdx, d.lastOK = at, b, true
	}
	d.lists[b] = append(d.lists[b], deadlineEntry{id: id, gen: gen})
	d.n++
}

// newBucket makes the bucket of deadline at and returns its index.
func (d *deadlines) newBucket(at int64) int32 {
	if d.buckets == nil {
		d.buckets = map[int64]int32{}
	}
	var b int32
	if k := len(d.free); k > 0 {
		b, d.free = d.free[k-1], d.free[:k-1]
	} else {
		b = int32(len(d.lists))
		d.lists = append(d.lists, nil)
	}
	d.buckets[at] = b
	d.heap = append(d.heap, at)
	d.up(len(d.heap) - 1)
	return b
}

// popDue calls fn for each entry of a deadline below wm, a bucket at a
// time in deadline order, and removes them.
func (d *deadlines) popDue(wm int64, fn func(deadlineEntry)) {
	for len(d.heap) > 0 && d.heap[0] < wm {
		at := d.heap[0]
		b := d.buckets[at]
		for _, e := range d.lists[b] {
			fn(e)
		}
		d.n -= len(d.lists[b])
		d.dropBucket(at, b)
		last := len(d.heap) - 1
		d.heap[0] = d.heap[last]
		d.heap = d.heap[:last]
		if last > 0 {
			d.down(0)
		}
	}
}

// dropBucket forgets bucket b, of deadline at, whose entries are gone; its
// deadline is left in the heap for the caller.
func (d *deadlines) dropBucket(at int64, b int32) {
	delete(d.buckets, at)
	d.lists[b] = d.lists[b][:0]
	d.free = append(d.free, b)
	if d.lastOK && d.last == at {
		d.lastOK = false
	}
}

// filter keeps the entries keep accepts, dropping the buckets left empty:
// linear in the entries held.
func (d *deadlines) filter(keep func(deadlineEntry) bool) {
	emptied := false
	for at, b := range d.buckets {
		list := d.lists[b]
		kept := list[:0]
		for _, e := range list {
			if keep(e) {
				kept = append(kept, e)
			}
		}
		d.n -= len(list) - len(kept)
		d.lists[b] = kept
		if len(kept) == 0 {
			d.dropBucket(at, b)
			emptied = true
		}
	}
	if emptied {
		d.heap = d.heap[:0]
		for at := range d.buckets {
			d.heap = append(d.heap, at)
		}
		for i := len(d.heap)/2 - 1; i >= 0; i-- {
			d.down(i)
		}
	}
}

// each calls fn for every entry held, stale ones too, in no order.
func (d *deadlines) each(fn func(at int64, e deadlineEntry)) {
	for at, b := range d.buckets {
		for _, e := range d.lists[b] {
			fn(at, e)
		}
	}
}

// up and down keep the heap of deadlines, written for its one type:
// container/heap's interface calls were a sixth of q7's CPU when it
// ordered every row.
func (d *deadlines) up(i int) {
	h := d.heap
	at := h[i]
	for i > 0 {
		p := (i - 1) / 2
		if h[p] <= at {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = at
}

func (d *deadlines) down(i int) {
	h := d.heap
	n := len(h)
	at := h[i]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && h[r] < h[c] {
			c = r
		}
		if at <= h[c] {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = at
}
