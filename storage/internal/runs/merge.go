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
	curs := make([]cursor, 0, len(runs)+1)
	for _, r := range runs {
		c := &runCursor{run: r, hi: hi}
		if err := c.seek(lo); err != nil {
			return err
		}
		curs = append(curs, c)
	}
	if len(top) > 0 {
		i := sort.Search(len(top), func(i int) bool { return bytes.Compare(top[i].Key, lo) >= 0 })
		curs = append(curs, &entryCursor{entries: top, i: i, hi: hi})
	}
	for {
		// The smallest head; among equal keys the newest cursor's entry.
		best := -1
		var key []byte
		for i, c := range curs {
			k, ok := c.key()
			if !ok {
				continue
			}
			if best < 0 || bytes.Compare(k, key) <= 0 {
				best, key = i, k
			}
		}
		if best < 0 {
			return nil
		}
		val, del := curs[best].value()
		if !del || keepDeletes {
			if err := fn(key, val, del); err != nil {
				return err
			}
		}
		// Advance every cursor at this key (key aliases the best cursor's
		// head, so it is compared before that cursor moves).
		for i, c := range curs {
			if i == best {
				continue
			}
			if k, ok := c.key(); ok && bytes.Equal(k, key) {
				if err := c.next(); err != nil {
					return err
				}
			}
		}
		if err := curs[best].next(); err != nil {
			return err
		}
	}
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
