package exec

import (
	"slices"
	"strings"
)

// Node sizes of overaggTree, as topnTree's and for the same reasons: an
// insertion copies at most overaggNodeMax entries of a node, three levels
// hold about a quarter of a million distinct rows, and a node is merged or
// refilled only below a quarter full so that a row going back and forth
// does not merge and split every time.
const (
	overaggNodeMax = 64
	overaggNodeMin = overaggNodeMax / 4
)

// overaggEntry is one distinct row of a partition: its sort key (with the
// 8-byte prefix that speeds up comparisons, see topnKey), its number of
// copies, the id of its values in the operator's rowStore, and the length
// of the key's ORDER BY prefix (rows with equal prefixes are peers).
type overaggEntry struct {
	topnKey
	n    int64
	id   int32
	olen int32
}

// overaggNode is a node of an overaggTree: a leaf holds sorted entries and
// links to the next leaf; an internal node holds children, the copies under
// each, and separators: every key under children[i] is below seps[i], and
// every key under children[i+1] is at least seps[i].
type overaggNode struct {
	leaf     bool
	entries  []overaggEntry
	seps     []topnKey
	children []*overaggNode
	counts   []int64
	next     *overaggNode
}

// overaggTree is the ordered multiset of one partition's rows: a B+tree of
// sort keys with counts, each internal node counting the copies under each
// child, so that a key's rank (the copies before it) and the entry at a
// rank are found in one descent, and a range of ranks is read by walking
// the leaves. The zero value is empty.
type overaggTree struct {
	root  *overaggNode
	total int64 // copies held
}

// add adds w (non-zero) copies of key. A new entry takes the row id id and
// ORDER BY prefix length olen. It returns the entry's id and the copies it
// had before; a retraction of more copies than held returns errTopNAbsent
// and changes nothing. An entry left without copies is removed.
func (t *overaggTree) add(key topnKey, w int64, id, olen int32, g *topnGauge) (int32, int64, error) {
	if t.root == nil {
		if w < 0 {
			return 0, 0, errTopNAbsent
		}
		t.root = &overaggNode{leaf: true}
	}
	got, before, err := t.root.add(key, w, id, olen, g)
	if err != nil {
		return 0, 0, err
	}
	t.total += w
	g.rows += w
	switch r := t.root; {
	case r.size() > overaggNodeMax:
		right, sep := r.split()
		rc := right.sum()
		t.root = &overaggNode{seps: []topnKey{sep}, children: []*overaggNode{r, right}, counts: []int64{t.total - rc, rc}}
	case !r.leaf && len(r.children) == 1:
		t.root = r.children[0]
	case r.leaf && len(r.entries) == 0:
		t.root = nil
	}
	return got, before, nil
}

// find returns the copies held below key (its rank) and of key.
func (t *overaggTree) find(key topnKey) (rank, count int64) {
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
func (t *overaggTree) seek(r int64) (leaf *overaggNode, idx int, start int64) {
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

// size is the number of entries of a leaf or children of an internal node.
func (n *overaggNode) size() int {
	if n.leaf {
		return len(n.entries)
	}
	return len(n.children)
}

// sum returns the copies held under n.
func (n *overaggNode) sum() int64 {
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
func (n *overaggNode) search(key topnKey) (int, bool) {
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
func (n *overaggNode) childIndex(key topnKey) int {
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
func (n *overaggNode) add(key topnKey, w int64, id, olen int32, g *topnGauge) (int32, int64, error) {
	if n.leaf {
		return n.addLeaf(key, w, id, olen, g)
	}
	i := n.childIndex(key)
	c := n.children[i]
	got, before, err := c.add(key, w, id, olen, g)
	if err != nil {
		return 0, 0, err
	}
	n.counts[i] += w
	switch size := c.size(); {
	case size > overaggNodeMax:
		n.splitChild(i)
	case size < overaggNodeMin && len(n.children) > 1:
		n.rebalance(i)
	}
	return got, before, nil
}

// addLeaf adds w copies of key to a leaf, inserting or removing its entry.
func (n *overaggNode) addLeaf(key topnKey, w int64, id, olen int32, g *topnGauge) (int32, int64, error) {
	i, found := n.search(key)
	if !found {
		if w <= 0 {
			return 0, 0, errTopNAbsent
		}
		stored := topnKey{pfx: key.pfx, key: strings.Clone(key.key)}
		n.entries = slices.Insert(n.entries, i, overaggEntry{topnKey: stored, n: w, id: id, olen: olen})
		g.entries++
		g.keyBytes += int64(len(stored.key))
		return id, 0, nil
	}
	e := &n.entries[i]
	got, before := e.id, e.n
	if e.n+w < 0 {
		return 0, 0, errTopNAbsent
	}
	if e.n += w; e.n == 0 {
		g.keyBytes -= int64(len(e.key))
		g.entries--
		n.entries = slices.Delete(n.entries, i, i+1)
	}
	return got, before, nil
}

// split moves the upper half of an overflowing node into a new right
// sibling and returns it with the separator between the two.
func (n *overaggNode) split() (*overaggNode, topnKey) {
	if n.leaf {
		mid := len(n.entries) / 2
		right := &overaggNode{leaf: true, entries: slices.Clone(n.entries[mid:]), next: n.next}
		clear(n.entries[mid:])
		n.entries = n.entries[:mid]
		n.next = right
		return right, right.entries[0].topnKey
	}
	mid := len(n.children) / 2
	right := &overaggNode{
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
func (n *overaggNode) splitChild(i int) {
	right, sep := n.children[i].split()
	rc := right.sum()
	n.children = slices.Insert(n.children, i+1, right)
	n.seps = slices.Insert(n.seps, i, sep)
	n.counts = slices.Insert(n.counts, i+1, rc)
	n.counts[i] -= rc
}

// rebalance merges children[i], which underflowed, with a neighbour if both
// fit in one node, and otherwise shares their items evenly.
func (n *overaggNode) rebalance(i int) {
	if i == len(n.children)-1 {
		i--
	}
	l, r := n.children[i], n.children[i+1]
	if l.size()+r.size() <= overaggNodeMax {
		if l.leaf {
			l.entries = append(l.entries, r.entries...)
			l.next = r.next
		} else {
			l.seps = append(append(l.seps, n.seps[i]), r.seps...)
			l.children = append(l.children, r.children...)
			l.counts = append(l.counts, r.counts...)
		}
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

// share splits the items of n and its right sibling r (separated by sep)
// evenly between them and returns their new separator.
func (n *overaggNode) share(r *overaggNode, sep topnKey) topnKey {
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
