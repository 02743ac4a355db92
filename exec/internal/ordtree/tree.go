package ordtree

import (
	"encoding/binary"
	"errors"
	"slices"
	"strings"
)

// ErrAbsent is returned by Tree.Add for a retraction of a key the
// tree does not hold.
var ErrAbsent = errors.New("key not held")

// Node sizes of Tree. nodeMax bounds the cost of inserting into a
// node (a copy of at most that many 32-byte entries or pointers, a few
// cache lines) while keeping the tree shallow (three levels hold a quarter
// of a million distinct rows). nodeMin is the size below which a node is
// merged with, or refilled from, a sibling, so that deletions cannot leave
// many near-empty nodes; a quarter rather than a half so that a row going
// back and forth across the threshold does not merge and split every time.
const (
	nodeMax = 64
	nodeMin = nodeMax / 4
)

// Key is a sort key with its first 8 bytes as a big-endian integer.
// Keys are compared by prefix first, which orders them as bytes.Compare
// unless the prefixes are equal (a shorter key is padded with zeros, which
// cannot put it after a longer key it is a prefix of), so that most
// comparisons in the tree read the node's own memory rather than following
// a pointer to each key's bytes.
type Key struct {
	pfx uint64
	S   string
}

// KeyOf returns the key s with its prefix.
func KeyOf(s string) Key {
	var b [8]byte
	copy(b[:], s)
	return Key{pfx: binary.BigEndian.Uint64(b[:]), S: s}
}

// Compare orders k and o as bytes.Compare orders their keys.
func (k Key) Compare(o Key) int {
	switch {
	case k.pfx < o.pfx:
		return -1
	case k.pfx > o.pfx:
		return 1
	}
	return strings.Compare(k.S, o.S)
}

// Entry is one distinct row of a partition, as its sort key, with its
// number of copies and what the tree's user keeps with it: a window
// aggregate stores the id of the row's values in its rowStore and the
// length of the key's ORDER BY prefix (rows with equal prefixes are
// peers); Top-N stores nothing there. An Entry is a view of what the tree
// holds: its key's bytes are the tree's (they never change, and stay
// valid however the tree changes later).
type Entry struct {
	Key
	N    int64
	ID   int32
	OLen int32
}

// slot is an Entry as a leaf holds it: its key's bytes are at
// [off, off+n) of its tree's key arena (Tree.keys). A slot holds no
// pointer, so the garbage collector never scans a leaf's slots nor marks
// a key per row, and moving slots within and between leaves runs no write
// barriers.
type slot struct {
	pfx    uint64
	off, n uint32
	N      int64
	ID     int32
	OLen   int32
}

// node is a node of a Tree: a leaf holds sorted entries and links
// to the next leaf; an internal node holds children, the number of copies
// under each, and separators: every key under children[i] is below seps[i],
// and every key under children[i+1] is at least seps[i].
type node struct {
	leaf     bool
	entries  []slot
	seps     []Key
	children []*node
	counts   []int64
	next     *node
}

// Tree is the ordered multiset of one partition's rows: a B+tree of
// sort keys with counts, where every internal node also counts the copies
// under each child, so that the rank of a key (the copies before it) and the
// entry at a rank are found in one descent. Every node but the root holds at
// least nodeMin items; an internal root has at least two children. The
// zero value is empty.
type Tree struct {
	root  *node
	Total int64 // copies held
	// keys is the arena of the leaves' keys, appended to and never
	// written over: a key's bytes stay where its Entry views saw them.
	// A tree's own (nil until its first key) counts the bytes of keys
	// removed, which a compaction (compactKeys) drops once they are most
	// of the arena, or a quarter of it when a new key would make it grow;
	// the partitions of an operator share one (Partitions.keys), which
	// Partitions compacts.
	keys *keyArena
	// leafCap is the room a leaf grows to first, if more than leafMin
	// (Partitions.LeafCap).
	leafCap int32
}

// ErrKeysFull is returned by Tree.Add when sort keys would pass what
// their key arena addresses: 4 GiB of a tree's own, 32 GiB of the keys an
// operator's partitions share.
var ErrKeysFull = errors.New("sort keys exceed what their arena addresses (4 GiB of a partition's own, 32 GiB shared)")

// key returns the bytes of slot e's key, a view of the arena.
func (t *Tree) key(e *slot) string {
	return t.keys.str(e.off, e.n)
}

// entry returns slot e as an Entry.
func (t *Tree) entry(e *slot) Entry {
	return Entry{Key: Key{pfx: e.pfx, S: t.key(e)}, N: e.N, ID: e.ID, OLen: e.OLen}
}

// compare orders slot e's key and k as bytes.Compare orders them.
func (t *Tree) compare(e *slot, k Key) int {
	switch {
	case e.pfx < k.pfx:
		return -1
	case e.pfx > k.pfx:
		return 1
	}
	return strings.Compare(t.key(e), k.S)
}

// Gauge sums what the trees of an operator hold, for its state metrics.
type Gauge struct {
	Rows     int64 // copies of rows held
	Entries  int64 // distinct rows held (tree entries or dedup slots)
	KeyBytes int64 // bytes of sort keys and partition keys
	Parts    int64 // partitions
}

// Estimated overheads for StateBytes: an entry is a prefix, its key's
// place in the arena, a count and its user's id and length (32 bytes) in
// nodes that are on average about three quarters full; a partition is its
// struct, a map slot and a tree root.
const (
	entryBytes     = 43
	partitionBytes = 184
)

// Bytes estimates the memory held.
func (g *Gauge) Bytes() int64 {
	return g.KeyBytes + g.Entries*entryBytes + g.Parts*partitionBytes
}

// Add adds w (non-zero) copies of key. A new entry takes id and olen. It
// returns the entry as the tree stores it (the caller's key may be a
// transient view) and the copies it had before. A retraction of more
// copies than held returns errTopNAbsent and changes nothing; an entry
// left without copies is removed.
func (t *Tree) Add(key Key, w int64, id, olen int32, g *Gauge) (Entry, int64, error) {
	if t.root == nil {
		if w < 0 {
			return Entry{}, 0, ErrAbsent
		}
		t.root = &node{leaf: true}
	}
	if t.keys == nil {
		t.keys = &keyArena{}
	}
	stored, before, err := t.root.add(t, key, w, id, olen, g)
	if err != nil {
		return Entry{}, 0, err
	}
	t.Total += w
	g.Rows += w
	switch r := t.root; {
	case r.size() > nodeMax:
		right, sep := r.split(t)
		rc := right.sum()
		t.root = &node{seps: []Key{sep}, children: []*node{r, right}, counts: []int64{t.Total - rc, rc}}
	case !r.leaf && len(r.children) == 1:
		t.root = r.children[0]
	case r.leaf && len(r.entries) == 0:
		t.root = nil
		if !t.keys.shared() {
			t.keys = nil
		}
		return stored, before, nil
	}
	if ka := t.keys; !ka.shared() && ka.dead > compactMin && 2*ka.dead > ka.a.Used() {
		t.compactKeys(0)
	}
	return stored, before, nil
}

// compactMin is the fewest dead key bytes a compaction drops, so that a
// small tree is not compacted at every removal.
const compactMin = 256

// compactKeys copies the keys held to a new arena, leaving the removed
// ones behind: a walk over the leaves, amortized over at least a third as
// many bytes of removed keys as it copies. The new arena has room for a key
// of extra bytes and then for as many bytes as it keeps, so that the keys
// that replace removed ones (a bounded Top-N's partition evicts one at each
// entry) fill it rather than grow it by a copy at once.
func (t *Tree) compactKeys(extra int) {
	keys := &keyArena{}
	keys.a.Reserve(2*(t.keys.a.Used()-t.keys.dead) + int64(extra))
	t.moveKeys(keys)
}

// Find returns the copies held below key (its rank) and of key.
func (t *Tree) Find(key Key) (rank, count int64) {
	n := t.root
	if n == nil {
		return 0, 0
	}
	for !n.leaf {
		i := n.childIndex(key)
		for _, c := range n.counts[:i] {
			rank += c
		}
		n = n.children[i]
	}
	i, found := n.search(t, key)
	for _, e := range n.entries[:i] {
		rank += e.N
	}
	if found {
		count = n.entries[i].N
	}
	return rank, count
}

// Cursor walks a tree's entries in key order, from one that seek found.
type Cursor struct {
	t    *Tree
	leaf *node
	i    int
	e    Entry // the last Entry returned
}

// Entry returns the Entry at the cursor, nil past the last one. It is the
// cursor's own: valid until the next call of Entry.
func (c *Cursor) Entry() *Entry {
	for c.leaf != nil && c.i == len(c.leaf.entries) {
		c.leaf, c.i = c.leaf.next, 0
	}
	if c.leaf == nil {
		return nil
	}
	c.e = c.t.entry(&c.leaf.entries[c.i])
	return &c.e
}

// Next moves the cursor to the Next entry.
func (c *Cursor) Next() { c.i++ }

// SeekRank returns a cursor at the entry holding the copy at rank r
// (0 <= r < total), and the rank of the entry's first copy.
func (t *Tree) SeekRank(r int64) (Cursor, int64) {
	leaf, i, start := t.seekLeaf(r)
	return Cursor{t: t, leaf: leaf, i: i}, start
}

// seekLeaf is seek, returning the leaf and index.
func (t *Tree) seekLeaf(r int64) (leaf *node, idx int, start int64) {
	n := t.root
	for !n.leaf {
		i := 0
		for i < len(n.counts)-1 && r >= start+n.counts[i] {
			start += n.counts[i]
			i++
		}
		n = n.children[i]
	}
	for i, e := range n.entries {
		if r < start+e.N {
			return n, i, start
		}
		start += e.N
	}
	return n, len(n.entries), start
}

// Last returns the greatest entry; the tree must not be empty.
func (t *Tree) Last() Entry {
	n := t.root
	for !n.leaf {
		n = n.children[len(n.children)-1]
	}
	return t.entry(&n.entries[len(n.entries)-1])
}

// size is the number of entries of a leaf or children of an internal node.
func (n *node) size() int {
	if n.leaf {
		return len(n.entries)
	}
	return len(n.children)
}

// sum returns the copies held under n.
func (n *node) sum() int64 {
	var s int64
	if n.leaf {
		for _, e := range n.entries {
			s += e.N
		}
		return s
	}
	for _, c := range n.counts {
		s += c
	}
	return s
}

// search returns the index of key among a leaf's entries, or where it would
// be inserted, and whether it is there.
func (n *node) search(t *Tree, key Key) (int, bool) {
	lo, hi := 0, len(n.entries)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.compare(&n.entries[m], key) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(n.entries) && n.entries[lo].pfx == key.pfx && t.key(&n.entries[lo]) == key.S
}

// childIndex returns the child of an internal node that holds key: the
// number of separators at or below key.
func (n *node) childIndex(key Key) int {
	lo, hi := 0, len(n.seps)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if key.Compare(n.seps[m]) < 0 {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// add adds w copies of key under n, then splits or rebalances the child it
// descended into if that child overflowed or underflowed.
func (n *node) add(t *Tree, key Key, w int64, id, olen int32, g *Gauge) (Entry, int64, error) {
	if n.leaf {
		return n.addLeaf(t, key, w, id, olen, g)
	}
	i := n.childIndex(key)
	c := n.children[i]
	stored, before, err := c.add(t, key, w, id, olen, g)
	if err != nil {
		return Entry{}, 0, err
	}
	n.counts[i] += w
	switch size := c.size(); {
	case size > nodeMax:
		n.splitChild(t, i)
	case size < nodeMin && len(n.children) > 1:
		n.rebalance(t, i)
	}
	return stored, before, nil
}

// addLeaf adds w copies of key to a leaf, inserting or removing its entry.
func (n *node) addLeaf(t *Tree, key Key, w int64, id, olen int32, g *Gauge) (Entry, int64, error) {
	i, found := n.search(t, key)
	if !found {
		if w <= 0 {
			return Entry{}, 0, ErrAbsent
		}
		if t.keys.full(len(key.S)) {
			return Entry{}, 0, ErrKeysFull
		}
		if ka := t.keys; !ka.shared() && len(key.S) > ka.a.Room() && ka.dead > 0 && 4*ka.dead >= ka.a.Used() {
			// The arena would grow, by a copy of its first block, and
			// a quarter of it is dead: drop those bytes instead.
			t.compactKeys(len(key.S))
		}
		e := slot{pfx: key.pfx, off: t.keys.add(key.S), n: uint32(len(key.S)), N: w, ID: id, OLen: olen}
		if len(n.entries) == cap(n.entries) {
			n.entries = growLeaf(n.entries, int(t.leafCap))
		}
		n.entries = slices.Insert(n.entries, i, e)
		g.Entries++
		g.KeyBytes += int64(e.n)
		return t.entry(&e), 0, nil
	}
	e := &n.entries[i]
	stored, before := t.entry(e), e.N
	if e.N+w < 0 {
		return Entry{}, 0, ErrAbsent
	}
	if e.N += w; e.N == 0 {
		t.keys.dead += t.keys.span(int(e.n))
		n.entries = slices.Delete(n.entries, i, i+1)
		g.Entries--
		g.KeyBytes -= int64(len(stored.S))
	}
	return stored, before, nil
}

// leafMin is the capacity of a new leaf's entries: a partition of a few
// rows (the usual) grows its only leaf a few times rather than at every
// power of two from one.
const leafMin = 4

// MaxLeafCap is the most room a leaf holds: it splits past it.
const MaxLeafCap = nodeMax + 1

// growLeaf returns a leaf's entries, which are at their capacity, with
// room for more: twice as many, or first what the tree expects (least, at
// least leafMin), but never more than a leaf holds before it splits
// (MaxLeafCap), so that a full leaf is not grown to twice nodeMax just
// before its split halves it.
func growLeaf(es []slot, least int) []slot {
	grown := make([]slot, len(es), max(min(max(2*len(es), leafMin, least), MaxLeafCap), len(es)+1))
	copy(grown, es)
	return grown
}

// split moves the upper half of an overflowing node into a new right
// sibling and returns it with the separator between the two.
func (n *node) split(t *Tree) (*node, Key) {
	if n.leaf {
		mid := len(n.entries) / 2
		// Both halves keep room up to a split (the left its array of
		// nodeMax+1), as a leaf mostly fills again from there.
		right := &node{leaf: true, entries: append(make([]slot, 0, nodeMax+1), n.entries[mid:]...), next: n.next}
		n.entries = n.entries[:mid]
		n.next = right
		return right, t.sep(&right.entries[0])
	}
	mid := len(n.children) / 2
	right := &node{
		seps:     slices.Clone(n.seps[mid:]),
		children: slices.Clone(n.children[mid:]),
		counts:   slices.Clone(n.counts[mid:]),
	}
	sep := n.seps[mid-1]
	clear(n.seps[mid-1:])
	clear(n.children[mid:])
	n.seps, n.children, n.counts = n.seps[:mid-1], n.children[:mid], n.counts[:mid]
	return right, sep
}

// sep returns slot e's key as a separator: a copy, so that separators do
// not keep an arena alive once it is compacted.
func (t *Tree) sep(e *slot) Key {
	return Key{pfx: e.pfx, S: strings.Clone(t.key(e))}
}

// splitChild splits children[i], which overflowed.
func (n *node) splitChild(t *Tree, i int) {
	right, sep := n.children[i].split(t)
	rc := right.sum()
	n.children = slices.Insert(n.children, i+1, right)
	n.seps = slices.Insert(n.seps, i, sep)
	n.counts = slices.Insert(n.counts, i+1, rc)
	n.counts[i] -= rc
}

// rebalance merges children[i], which underflowed, with a neighbour if
// both fit in one node, and otherwise shares their items evenly.
func (n *node) rebalance(t *Tree, i int) {
	if i == len(n.children)-1 {
		i--
	}
	l, r := n.children[i], n.children[i+1]
	if l.size()+r.size() <= nodeMax {
		l.absorb(r, n.seps[i])
		n.counts[i] += n.counts[i+1]
		n.children = slices.Delete(n.children, i+1, i+2)
		n.counts = slices.Delete(n.counts, i+1, i+2)
		n.seps = slices.Delete(n.seps, i, i+1)
		return
	}
	n.seps[i] = l.share(t, r, n.seps[i])
	n.counts[i] = l.sum()
	n.counts[i+1] = r.sum()
}

// absorb appends the items of its right sibling r (separated by sep) to n.
func (n *node) absorb(r *node, sep Key) {
	if n.leaf {
		n.entries = append(n.entries, r.entries...)
		n.next = r.next
		return
	}
	n.seps = append(append(n.seps, sep), r.seps...)
	n.children = append(n.children, r.children...)
	n.counts = append(n.counts, r.counts...)
}

// share splits the items of n and its right sibling r (separated by sep)
// evenly between them and returns their new separator.
func (n *node) share(t *Tree, r *node, sep Key) Key {
	if n.leaf {
		all := slices.Concat(n.entries, r.entries)
		half := len(all) / 2
		n.entries, r.entries = slices.Clip(all[:half]), slices.Clone(all[half:])
		return t.sep(&r.entries[0])
	}
	seps := slices.Concat(n.seps, []Key{sep}, r.seps)
	children := slices.Concat(n.children, r.children)
	counts := slices.Concat(n.counts, r.counts)
	half := len(children) / 2
	n.seps, n.children, n.counts = slices.Clip(seps[:half-1]), slices.Clip(children[:half]), slices.Clip(counts[:half])
	r.seps, r.children, r.counts = slices.Clone(seps[half:]), slices.Clone(children[half:]), slices.Clone(counts[half:])
	return seps[half-1]
}
