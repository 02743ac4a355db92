package statecore

import (
	"bytes"
	"slices"
)

// maxItems is the most records a B-tree node holds. A node is then a
// 124-byte array of record numbers searched by binary search, which
// keeps the tree four levels deep for a million keys; nodes far larger
// would make each insert's shifting cost more than its search saves.
const maxItems = 31

// btree indexes an overlay's records by key: for each key, the latest of
// the records it was given. It only grows; a newer record of a key
// replaces the one it holds. The keys themselves stay in the overlay's
// chunks.
type btree struct {
	o    *overlay
	root *bnode
	size int // the keys it holds
	upto int // the records it was given: the overlay's first upto
}

// bnode is a node of a btree: items in key order and, unless it is a
// leaf, len(items)+1 children around them.
type bnode struct {
	items []int32
	kids  []*bnode
}

// newBTree returns the tree of o's records, given the latest record of
// each key in key order.
func newBTree(o *overlay, order []int32) *btree {
	t := &btree{o: o, size: len(order), upto: o.recs()}
	if len(order) == 0 {
		return t
	}
	// The leaves: as few as hold order with one item between each two
	// (which goes up a level), the items shared out evenly.
	nl := (len(order) + maxItems + 1) / (maxItems + 1)
	inLeaves := len(order) - (nl - 1)
	var nodes []*bnode
	var seps []int32 // the items between nodes
	rest := order
	for i := range nl {
		take := inLeaves*(i+1)/nl - inLeaves*i/nl
		nodes = append(nodes, &bnode{items: grown(rest[:take])})
		rest = rest[take:]
		if i < nl-1 {
			seps = append(seps, rest[0])
			rest = rest[1:]
		}
	}
	// Each level above: as few nodes as hold the children below, each
	// with the items between its children; the items between two of
	// them go up.
	for len(nodes) > 1 {
		c := len(nodes)
		np := (c + maxItems) / (maxItems + 1)
		var up []*bnode
		var upSeps []int32
		lo := 0
		for j := range np {
			hi := c * (j + 1) / np
			n := &bnode{items: grown(seps[lo : hi-1]), kids: make([]*bnode, hi-lo, maxItems+1)}
			copy(n.kids, nodes[lo:hi])
			up = append(up, n)
			if j < np-1 {
				upSeps = append(upSeps, seps[hi-1])
			}
			lo = hi
		}
		nodes, seps = up, upSeps
	}
	t.root = nodes[0]
	return t
}

// grown returns a copy of items with room for a full node.
func grown(items []int32) []int32 {
	out := make([]int32, len(items), maxItems)
	copy(out, items)
	return out
}

// search returns where k is or would be among n's items.
func (t *btree) search(n *bnode, k []byte) (int, bool) {
	return slices.BinarySearchFunc(n.items, k, t.o.compare)
}

// get returns the record of k.
func (t *btree) get(k []byte) (int32, bool) {
	for n := t.root; n != nil; {
		i, ok := t.search(n, k)
		if ok {
			return n.items[i], true
		}
		if n.kids == nil {
			break
		}
		n = n.kids[i]
	}
	return 0, false
}

// set adds record r, replacing the record of its key if the tree holds
// one. Full nodes on the way down are split first, so that a leaf has
// room for r.
func (t *btree) set(r int32) {
	if t.root == nil {
		t.root = &bnode{items: grown([]int32{r})}
		t.size++
		return
	}
	if len(t.root.items) == maxItems {
		mid, right := t.root.split()
		kids := make([]*bnode, 2, maxItems+1)
		kids[0], kids[1] = t.root, right
		t.root = &bnode{items: grown([]int32{mid}), kids: kids}
	}
	k := t.o.key(r)
	n := t.root
	for {
		i, ok := t.search(n, k)
		if ok {
			n.items[i] = r
			return
		}
		if n.kids == nil {
			n.items = slices.Insert(n.items, i, r)
			t.size++
			return
		}
		if len(n.kids[i].items) == maxItems {
			mid, right := n.kids[i].split()
			n.items = slices.Insert(n.items, i, mid)
			n.kids = slices.Insert(n.kids, i+1, right)
			switch c := bytes.Compare(k, t.o.key(mid)); {
			case c == 0:
				n.items[i] = r
				return
			case c > 0:
				i++
			}
		}
		n = n.kids[i]
	}
}

// split moves the upper half of n's items (and children) to a new node
// and returns it with the item between the halves.
func (n *bnode) split() (int32, *bnode) {
	h := len(n.items) / 2
	mid := n.items[h]
	right := &bnode{items: grown(n.items[h+1:])}
	n.items = n.items[:h]
	if n.kids != nil {
		right.kids = make([]*bnode, len(n.kids)-(h+1), maxItems+1)
		copy(right.kids, n.kids[h+1:])
		clear(n.kids[h+1:])
		n.kids = n.kids[:h+1]
	}
	return mid, right
}

// ascend calls fn for the records of the keys in [lo, hi) in key order;
// a nil hi means no upper bound.
func (t *btree) ascend(lo, hi []byte, fn func(r int32)) {
	if t.root != nil {
		t.ascendNode(t.root, lo, hi, fn)
	}
}

// ascendNode is ascend within n; it reports false once it reached hi.
func (t *btree) ascendNode(n *bnode, lo, hi []byte, fn func(r int32)) bool {
	i, _ := t.search(n, lo)
	for ; i <= len(n.items); i++ {
		if n.kids != nil && !t.ascendNode(n.kids[i], lo, hi, fn) {
			return false
		}
		if i == len(n.items) {
			break
		}
		r := n.items[i]
		if hi != nil && bytes.Compare(t.o.key(r), hi) >= 0 {
			return false
		}
		fn(r)
	}
	return true
}

// all returns every record the tree holds, in key order.
func (t *btree) all() []int32 {
	out := make([]int32, 0, t.size)
	t.ascend(nil, nil, func(r int32) { out = append(out, r) })
	return out
}
