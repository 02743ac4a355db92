package exec

import (
	"encoding/binary"
	"errors"
	"slices"
	"strings"
)

// errTopNAbsent is returned by topnTree.add for a retraction of a key the
// tree does not hold.
var errTopNAbsent = errors.New("key not held")

// Node sizes of topnTree. topnNodeMax bounds the cost of inserting into a
// node (a copy of at most that many 32-byte entries or pointers, a few
// cache lines) while keeping the tree shallow (three levels hold a quarter
// of a million distinct rows). topnNodeMin is the size below which a node is
// merged with, or refilled from, a sibling, so that deletions cannot leave
// many near-empty nodes; a quarter rather than a half so that a row going
// back and forth across the threshold does not merge and split every time.
const (
	topnNodeMax = 64
	topnNodeMin = topnNodeMax / 4
)

// topnKey is a sort key with its first 8 bytes as a big-endian integer.
// Keys are compared by prefix first, which orders them as bytes.Compare
// unless the prefixes are equal (a shorter key is padded with zeros, which
// cannot put it after a longer key it is a prefix of), so that most
// comparisons in the tree read the node's own memory rather than following
// a pointer to each key's bytes.
type topnKey struct {
	pfx uint64
	key string
}

// topnKeyOf returns the key s with its prefix.
func topnKeyOf(s string) topnKey {
	var b [8]byte
	copy(b[:], s)
	return topnKey{pfx: binary.BigEndian.Uint64(b[:]), key: s}
}

// compare orders k and o as bytes.Compare orders their keys.
func (k topnKey) compare(o topnKey) int {
	switch {
	case k.pfx < o.pfx:
		return -1
	case k.pfx > o.pfx:
		return 1
	}
	return strings.Compare(k.key, o.key)
}

// topnEntry is one distinct row of a partition, as its sort key, with its
// number of copies and what the tree's user keeps with it: a window
// aggregate stores the id of the row's values in its rowStore and the
// length of the key's ORDER BY prefix (rows with equal prefixes are
// peers); Top-N stores nothing there.
type topnEntry struct {
	topnKey
	n    int64
	id   int32
	olen int32
}

// topnNode is a node of a topnTree: a leaf holds sorted entries and links
// to the next leaf; an internal node holds children, the number of copies
// under each, and separators: every key under children[i] is below seps[i],
// and every key under children[i+1] is at least seps[i].
type topnNode struct {
	leaf     bool
	entries  []topnEntry
	seps     []topnKey
	children []*topnNode
	counts   []int64
	next     *topnNode
}

// topnTree is the ordered multiset of one partition's rows: a B+tree of
// sort keys with counts, where every internal node also counts the copies
// under each child, so that the rank of a key (the copies before it) and the
// entry at a rank are found in one descent. Every node but the root holds at
// least topnNodeMin items; an internal root has at least two children. The
// zero value is empty.
type topnTree struct {
	root  *topnNode
	total int64 // copies held
}

// topnGauge sums what the trees of an operator hold, for its state metrics.
type topnGauge struct {
	rows     int64 // copies of rows held
	entries  int64 // distinct rows held (tree entries or dedup slots)
	keyBytes int64 // bytes of sort keys and partition keys
	parts    int64 // partitions
}

// Estimated overheads for StateBytes: an entry is a prefix, a string
// header, a count and its user's id and length (40 bytes) in nodes that
// are on average about three quarters full; a partition is its struct, a
// map slot and a tree root.
const (
	topnEntryBytes     = 54
	topnPartitionBytes = 160
)

// bytes estimates the memory held.
func (g *topnGauge) bytes() int64 {
	return g.keyBytes + g.entries*topnEntryBytes + g.parts*topnPartitionBytes
}

// add adds w (non-zero) copies of key. A new entry takes id and olen. It
// returns the entry as the tree stores it (the caller's key may be a
// transient view) and the copies it had before. A retraction of more
// copies than held returns errTopNAbsent and changes nothing; an entry
// left without copies is removed.
func (t *topnTree) add(key topnKey, w int64, id, olen int32, g *topnGauge) (topnEntry, int64, error) {
	if t.root == nil {
		if w < 0 {
			return topnEntry{}, 0, errTopNAbsent
		}
		t.root = &topnNode{leaf: true}
	}
	stored, before, err := t.root.add(key, w, id, olen, g)
	if err != nil {
		return topnEntry{}, 0, err
	}
	t.total += w
	g.rows += w
	switch r := t.root; {
	case r.size() > topnNodeMax:
		right, sep := r.split()
		rc := right.sum()
		t.root = &topnNode{seps: []topnKey{sep}, children: []*topnNode{r, right}, counts: []int64{t.total - rc, rc}}
	case !r.leaf && len(r.children) == 1:
		t.root = r.children[0]
	case r.leaf && len(r.entries) == 0:
		t.root = nil
	}
	return stored, before, nil
}

// find returns the copies held below key (its rank) and of key.
func (t *topnTree) find(key topnKey) (rank, count int64) {
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
	i, found := n.search(key)
	for _, e := range n.entries[:i] {
		rank += e.n
	}
	if found {
		count = n.entries[i].n
	}
	return rank, count
}

// seek returns the leaf and index of the entry holding the copy at rank r
// (0 <= r < total), and the rank of the entry's first copy.
func (t *topnTree) seek(r int64) (leaf *topnNode, idx int, start int64) {
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
		if r < start+e.n {
			return n, i, start
		}
		start += e.n
	}
	return n, len(n.entries), start
}

// last returns the greatest entry; the tree must not be empty.
func (t *topnTree) last() topnEntry {
	n := t.root
	for !n.leaf {
		n = n.children[len(n.children)-1]
	}
	return n.entries[len(n.entries)-1]
}

// size is the number of entries of a leaf or children of an internal node.
func (n *topnNode) size() int {
	if n.leaf {
		return len(n.entries)
	}
	return len(n.children)
}

// sum returns the copies held under n.
func (n *topnNode) sum() int64 {
	var s int64
	if n.leaf {
		for _, e := range n.entries {
			s += e.n
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
func (n *topnNode) search(key topnKey) (int, bool) {
	lo, hi := 0, len(n.entries)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if n.entries[m].compare(key) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(n.entries) && n.entries[lo].pfx == key.pfx && n.entries[lo].key == key.key
}

// childIndex returns the child of an internal node that holds key: the
// number of separators at or below key.
func (n *topnNode) childIndex(key topnKey) int {
	lo, hi := 0, len(n.seps)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if key.compare(n.seps[m]) < 0 {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// add adds w copies of key under n, then splits or rebalances the child it
// descended into if that child overflowed or underflowed.
func (n *topnNode) add(key topnKey, w int64, id, olen int32, g *topnGauge) (topnEntry, int64, error) {
	if n.leaf {
		return n.addLeaf(key, w, id, olen, g)
	}
	i := n.childIndex(key)
	c := n.children[i]
	stored, before, err := c.add(key, w, id, olen, g)
	if err != nil {
		return topnEntry{}, 0, err
	}
	n.counts[i] += w
	switch size := c.size(); {
	case size > topnNodeMax:
		n.splitChild(i)
	case size < topnNodeMin && len(n.children) > 1:
		n.rebalance(i)
	}
	return stored, before, nil
}

// addLeaf adds w copies of key to a leaf, inserting or removing its entry.
func (n *topnNode) addLeaf(key topnKey, w int64, id, olen int32, g *topnGauge) (topnEntry, int64, error) {
	i, found := n.search(key)
	if !found {
		if w <= 0 {
			return topnEntry{}, 0, errTopNAbsent
		}
		e := topnEntry{topnKey: topnKey{pfx: key.pfx, key: strings.Clone(key.key)}, n: w, id: id, olen: olen}
		n.entries = slices.Insert(n.entries, i, e)
		g.entries++
		g.keyBytes += int64(len(e.key))
		return e, 0, nil
	}
	e := &n.entries[i]
	stored, before := *e, e.n
	if e.n+w < 0 {
		return topnEntry{}, 0, errTopNAbsent
	}
	if e.n += w; e.n == 0 {
		n.entries = slices.Delete(n.entries, i, i+1)
		g.entries--
		g.keyBytes -= int64(len(stored.key))
	}
	return stored, before, nil
}

// split moves the upper half of an overflowing node into a new right
// sibling and returns it with the separator between the two.
func (n *topnNode) split() (*topnNode, topnKey) {
	if n.leaf {
		mid := len(n.entries) / 2
		right := &topnNode{leaf: true, entries: slices.Clone(n.entries[mid:]), next: n.next}
		clear(n.entries[mid:])
		n.entries = n.entries[:mid]
		n.next = right
		return right, right.entries[0].topnKey
	}
	mid := len(n.children) / 2
	right := &topnNode{
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

// splitChild splits children[i], which overflowed.
func (n *topnNode) splitChild(i int) {
	right, sep := n.children[i].split()
	rc := right.sum()
	n.children = slices.Insert(n.children, i+1, right)
	n.seps = slices.Insert(n.seps, i, sep)
	n.counts = slices.Insert(n.counts, i+1, rc)
	n.counts[i] -= rc
}

// rebalance merges children[i], which underflowed, with a neighbour if
// both fit in one node, and otherwise shares their items evenly.
func (n *topnNode) rebalance(i int) {
	if i == len(n.children)-1 {
		i--
	}
	l, r := n.children[i], n.children[i+1]
	if l.size()+r.size() <= topnNodeMax {
		l.absorb(r, n.seps[i])
		n.counts[i] += n.counts[i+1]
		n.children = slices.Delete(n.children, i+1, i+2)
		n.counts = slices.Delete(n.counts, i+1, i+2)
		n.seps = slices.Delete(n.seps, i, i+1)
		return
	}
	n.seps[i] = l.share(r, n.seps[i])
	n.counts[i] = l.sum()
	n.counts[i+1] = r.sum()
}

// absorb appends the items of its right sibling r (separated by sep) to n.
func (n *topnNode) absorb(r *topnNode, sep topnKey) {
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
func (n *topnNode) share(r *topnNode, sep topnKey) topnKey {
	if n.leaf {
		all := slices.Concat(n.entries, r.entries)
		half := len(all) / 2
		n.entries, r.entries = slices.Clip(all[:half]), slices.Clone(all[half:])
		return r.entries[0].topnKey
	}
	seps := slices.Concat(n.seps, []topnKey{sep}, r.seps)
	children := slices.Concat(n.children, r.children)
	counts := slices.Concat(n.counts, r.counts)
	half := len(children) / 2
	n.seps, n.children, n.counts = slices.Clip(seps[:half-1]), slices.Clip(children[:half]), slices.Clip(counts[:half])
	r.seps, r.children, r.counts = slices.Clone(seps[half:]), slices.Clone(children[half:]), slices.Clone(counts[half:])
	return seps[half-1]
}
