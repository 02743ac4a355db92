package statecore

import (
	"bytes"
	"slices"
)

// An overlay is read through one of two indexes, both built only when a
// read (or Commit) needs them, never by a write:
//
//   - order, sorted's result, while the overlay took no write since
//     sorted: a frozen overlay is always read through it, and since it is
//     never written it is then only read, by any number of readers;
//   - tree, a B-tree of each key's latest record, for an overlay written
//     since: a read first adds the records written since the last read
//     (or rebuilds the tree from a sort, when they outnumber the keys it
//     holds), so that reads between writes cost O(log n) each.

// fresh reports whether order covers every write.
func (o *overlay) fresh() bool {
	return o.ordered && o.ordRecs == o.recs() && o.ordSpans == len(o.spans)
}

// sorted returns the records that decide their keys, in key order: each
// key's last write, unless a later span removed it. Once an overlay is
// frozen, sorted only reads it, so concurrent readers are safe after one
// call under the store's lock.
func (o *overlay) sorted() []int32 {
	if o.fresh() {
		return o.order
	}
	var order []int32
	if o.treeUsable() {
		o.catchUp()
		order = o.tree.all()
	} else {
		order, o.tree = latestRecords(o), nil
	}
	if len(o.spans) > 0 {
		order = slices.DeleteFunc(order, func(r int32) bool { return o.coveredAfter(o.key(r), r) })
	}
	o.order, o.ordered, o.ordRecs, o.ordSpans = order, true, o.recs(), len(o.spans)
	return order
}

// treeUsable reports whether there is a tree and no more records were
// written since it was built or last caught up than it holds keys: past
// that, a sort of the whole log costs less than inserting them.
func (o *overlay) treeUsable() bool {
	return o.tree != nil && o.recs()-o.tree.upto <= o.tree.size
}

// catchUp brings the tree up to date with the log: it adds the records
// written since, or rebuilds it when it is not usable.
func (o *overlay) catchUp() {
	if !o.treeUsable() {
		o.tree = newBTree(o, latestRecords(o))
		return
	}
	t := o.tree
	for r := t.upto; r < o.recs(); r++ {
		t.set(int32(r))
	}
	t.upto = o.recs()
}

// find returns the record that decides k, if any.
func (o *overlay) find(k []byte) (int32, bool) {
	if o.fresh() {
		i, ok := slices.BinarySearchFunc(o.order, k, o.compare)
		if !ok {
			return 0, false
		}
		return o.order[i], true
	}
	o.catchUp()
	r, ok := o.tree.get(k)
	if !ok || o.coveredAfter(k, r) {
		return 0, false
	}
	return r, true
}

// compare orders record r's key against k.
func (o *overlay) compare(r int32, k []byte) int { return bytes.Compare(o.key(r), k) }

// keysIn returns the records that decide the keys in [lo, hi), in key
// order; a nil hi means no upper bound.
func (o *overlay) keysIn(lo, hi []byte) []int32 {
	if o.fresh() {
		i, _ := slices.BinarySearchFunc(o.order, lo, o.compare)
		j := len(o.order)
		if hi != nil {
			j, _ = slices.BinarySearchFunc(o.order, hi, o.compare)
		}
		return o.order[i:max(i, j)]
	}
	o.catchUp()
	var out []int32
	o.tree.ascend(lo, hi, func(r int32) {
		if !o.coveredAfter(o.key(r), r) {
			out = append(out, r)
		}
	})
	return out
}

// sortKVs sorts kvs by key.
func sortKVs(kvs []kv) {
	slices.SortFunc(kvs, func(a, b kv) int { return bytes.Compare(a.key, b.key) })
}
