package runs

import (
	"bytes"
	"slices"
	"sort"
)

// Fetch returns block no of a run, as it was emitted, in dst's storage
// when it has room (a cursor reads its blocks into one buffer, which a
// scan of a large state would otherwise allocate block by block).
type Fetch func(no uint32, dst []byte) ([]byte, error)

// Run is a stored run: its owner's salt, its id, its index and where its
// blocks come from.
type Run struct {
	Salt  uint32
	ID    uint64
	Index *Index
	Fetch Fetch
}

// Entry is a mutation not (yet) in a run: Key set to Val, or deleted.
type Entry struct {
	Key, Val []byte
	Delete   bool
}

// Merge calls fn, in key order, for the entries in [lo, hi) (nil hi: no
// bound) of runs (oldest first) and top (sorted, each key once; newer
// than every run), the newest deciding each key. Deletions are passed to
// fn only when keepDeletes is set (a merge into a run that older runs
// will stay under); otherwise a deleted key is skipped. key and val are
// valid only until fn returns. An error from fn is returned as is.
func Merge(runs []Run, top []Entry, lo, hi []byte, keepDeletes bool, fn func(key, val []byte, del bool) error) error {
	h := make(mergeHeap, 0, len(runs)+1)
	for i, r := range runs {
		c := &runCursor{run: r, hi: hi}
		if err := c.seek(lo); err != nil {
			return err
		}
		if k, ok := c.key(); ok {
			h = append(h, mergeHead{c: c, key: k, age: i})
		}
	}
	if len(top) > 0 {
		i := sort.Search(len(top), func(i int) bool { return bytes.Compare(top[i].Key, lo) >= 0 })
		c := &entryCursor{entries: top, i: i, hi: hi}
		if k, ok := c.key(); ok {
			h = append(h, mergeHead{c: c, key: k, age: len(runs)})
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
	var last []byte
	for len(h) > 0 {
		// The smallest head, the newest among equal keys, decides its key;
		// then every cursor at that key moves on, the decided one first.
		val, del := h[0].c.value()
		if !del || keepDeletes {
			if err := fn(h[0].key, val, del); err != nil {
				return err
			}
		}
		last = append(last[:0], h[0].key...) // the head's key goes when its cursor moves
		for len(h) > 0 && bytes.Equal(h[0].key, last) {
			if err := h.next(); err != nil {
				return err
			}
		}
	}
	return nil
}

// mergeHead is a cursor of a merge and its head's key; age is its place
// among the merge's sources, the newest last.
type mergeHead struct {
	c   cursor
	key []byte
	age int
}

// mergeHeap is a merge's cursors not ended, a binary heap by head key,
// the newest first among equal keys. A merge's output is each key's
// newest entry: with k cursors, a heap compares O(log k) keys for it, where
// a look at every cursor compared k.
type mergeHeap []mergeHead

// before reports whether head i goes before head j.
func (h mergeHeap) before(i, j int) bool {
	if c := bytes.Compare(h[i].key, h[j].key); c != 0 {
		return c < 0
	}
	return h[i].age > h[j].age
}

// down moves head i down to its place.
func (h mergeHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h.before(r, l) {
			m = r
		}
		if !h.before(m, i) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// next moves the first head's cursor on, putting it back in its place, or
// dropping it when it ends.
func (h *mergeHeap) next() error {
	first := &(*h)[0]
	if err := first.c.next(); err != nil {
		return err
	}
	k, ok := first.c.key()
	if ok {
		first.key = k
	} else {
		n := len(*h) - 1
		(*h)[0] = (*h)[n]
		*h = (*h)[:n]
	}
	h.down(0)
	return nil
}

// Get returns the value of key in runs (oldest first): found reports
// whether a run decides key, and ok whether it is set there (not
// deleted). val is a copy.
func Get(runs []Run, key []byte) (val []byte, ok, found bool, err error) {
	for i := len(runs) - 1; i >= 0; i-- {
		r := runs[i]
		if r.Index.Blocks() == 0 || bytes.Compare(key, r.Index.First[0]) < 0 {
			continue
		}
		no := uint32(r.Index.BlockFor(key))
		block, err := r.Fetch(no, nil)
		if err != nil {
			return nil, false, false, err
		}
		var hit, del bool
		err = DecodeBlock(r.Salt, r.ID, no, block, func(k, v []byte, d bool) error {
			if c := bytes.Compare(k, key); c == 0 {
				hit, del, val = true, d, bytes.Clone(v)
				return errStop
			} else if c > 0 {
				return errStop
			}
			return nil
		})
		if err != nil && err != errStop {
			return nil, false, false, err
		}
		if hit {
			return val, !del, true, nil
		}
	}
	return nil, false, false, nil
}

// errStop ends a block's decoding early.
var errStop = stopError{}

type stopError struct{}

func (stopError) Error() string { return "stop" }

// cursor walks a sorted source of entries.
type cursor interface {
	key() ([]byte, bool)
	value() (val []byte, del bool)
	next() error
}

// runCursor walks a run from a key on, a block at a time.
type runCursor struct {
	run   Run
	hi    []byte
	no    int      // the block decoded
	keys  []byte   // the block's keys back to back
	ends  []int    // where each key ends in keys
	vals  [][]byte // aliasing the block
	block []byte   // the block's bytes: the buffer the next one is read into
	dels  []bool
	i     int // the head's position in the block
	ended bool
}

// seek positions c on the first entry at or after lo.
func (c *runCursor) seek(lo []byte) error {
	if c.run.Index.Blocks() == 0 {
		c.ended = true
		return nil
	}
	if err := c.load(c.run.Index.BlockFor(lo)); err != nil {
		return err
	}
	for !c.ended {
		k, _ := c.head()
		if bytes.Compare(k, lo) >= 0 {
			break
		}
		if err := c.next(); err != nil {
			return err
		}
	}
	c.checkHi()
	return nil
}

// load decodes block no (ending the cursor past the last block).
func (c *runCursor) load(no int) error {
	c.keys, c.ends, c.vals, c.dels, c.i = c.keys[:0], c.ends[:0], c.vals[:0], c.dels[:0], 0
	for ; no < c.run.Index.Blocks(); no++ {
		c.no = no
		// The head's key and value, which the merge may still hold, are
		// in keys and vals of the block before: the buffer is free to
		// take the next block.
		block, err := c.run.Fetch(uint32(no), c.block[:0])
		if err != nil {
			return err
		}
		c.block = block
		n := c.run.Index.Counts[no]
		c.ends, c.vals, c.dels = slices.Grow(c.ends, n), slices.Grow(c.vals, n), slices.Grow(c.dels, n)
		c.keys = slices.Grow(c.keys, len(block))
		err = DecodeBlock(c.run.Salt, c.run.ID, uint32(no), block, func(k, v []byte, del bool) error {
			c.keys = append(c.keys, k...)
			c.ends = append(c.ends, len(c.keys))
			c.vals = append(c.vals, v)
			c.dels = append(c.dels, del)
			return nil
		})
		if err != nil {
			return err
		}
		if len(c.ends) > 0 {
			return nil
		}
	}
	c.ended = true
	return nil
}

func (c *runCursor) head() ([]byte, bool) {
	start := 0
	if c.i > 0 {
		start = c.ends[c.i-1]
	}
	return c.keys[start:c.ends[c.i]], true
}

func (c *runCursor) checkHi() {
	if c.ended || c.hi == nil {
		return
	}
	if k, _ := c.head(); bytes.Compare(k, c.hi) >= 0 {
		c.ended = true
	}
}

func (c *runCursor) key() ([]byte, bool) {
	if c.ended {
		return nil, false
	}
	return c.head()
}

func (c *runCursor) value() ([]byte, bool) { return c.vals[c.i], c.dels[c.i] }

func (c *runCursor) next() error {
	if c.ended {
		return nil
	}
	c.i++
	if c.i == len(c.ends) {
		if err := c.load(c.no + 1); err != nil {
			return err
		}
	}
	c.checkHi()
	return nil
}

// entryCursor walks a sorted slice of entries.
type entryCursor struct {
	entries []Entry
	i       int
	hi      []byte
}

func (c *entryCursor) key() ([]byte, bool) {
	if c.i >= len(c.entries) {
		return nil, false
	}
	k := c.entries[c.i].Key
	if c.hi != nil && bytes.Compare(k, c.hi) >= 0 {
		return nil, false
	}
	return k, true
}

func (c *entryCursor) value() ([]byte, bool) { return c.entries[c.i].Val, c.entries[c.i].Delete }

func (c *entryCursor) next() error {
	c.i++
	return nil
}
