package ordtree

import (
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"testing"
)

// TestOverAggTreeRandom adds and removes random keys of the tree a window
// aggregate keeps (Tree, with ids), with copies, and checks ranks,
// seeks, stored ids and the tree's invariants against a
// sorted reference after every change, through growth to three levels and
// shrinking back to empty.
func TestOverAggTreeRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	var tr Tree
	var g Gauge
	ref := map[string]int64{} // key → copies
	ids := map[string]int32{}
	var ks []string // the keys of ref, sorted
	check := func(step int) {
		var rank int64
		for i, k := range ks {
			r, n := tr.Find(KeyOf(k))
			if r != rank || n != ref[k] {
				t.Fatalf("step %d: find(%q) = %d, %d; want %d, %d", step, k, r, n, rank, ref[k])
			}
			if i%7 == 0 {
				leaf, idx, start := tr.seekLeaf(rank + ref[k] - 1)
				if e := tr.entry(&leaf.entries[idx]); e.S != k || start != rank || e.ID != ids[k] {
					t.Fatalf("step %d: seek(%d) = %q at %d id %d; want %q at %d id %d", step, rank, e.S, start, e.ID, k, rank, ids[k])
				}
			}
			rank += ref[k]
		}
		if tr.Total != rank || g.Rows != rank || g.Entries != int64(len(ks)) {
			t.Fatalf("step %d: total %d, gauge %d rows %d entries; want %d rows %d entries", step, tr.Total, g.Rows, g.Entries, rank, len(ks))
		}
		if tr.root != nil {
			if err := overaggCheckNode(&tr, tr.root, true); err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
		}
	}
	const n = 30000
	for step := range 2 * n {
		grow := step < n
		var k string
		if len(ks) > 0 && (!grow || rng.Intn(4) == 0) {
			k = ks[rng.Intn(len(ks))]
		} else {
			k = fmt.Sprintf("k%07d", rng.Intn(1_000_000))
		}
		w := int64(1)
		if !grow || rng.Intn(5) == 0 {
			w = -1
		}
		e, before, err := tr.Add(KeyOf(k), w, int32(step), 0, &g)
		id := e.ID
		switch {
		case ref[k]+w < 0:
			if !errors.Is(err, ErrAbsent) {
				t.Fatalf("step %d: retraction of absent %q: %v", step, k, err)
			}
			continue
		case err != nil:
			t.Fatalf("step %d: %v", step, err)
		case before != ref[k]:
			t.Fatalf("step %d: %q had %d copies, tree says %d", step, k, ref[k], before)
		}
		if ref[k] == 0 {
			ids[k] = int32(step)
			i, _ := slices.BinarySearch(ks, k)
			ks = slices.Insert(ks, i, k)
		}
		if id != ids[k] {
			t.Fatalf("step %d: %q has id %d, want %d", step, k, id, ids[k])
		}
		if ref[k] += w; ref[k] == 0 {
			delete(ref, k)
			delete(ids, k)
			i, _ := slices.BinarySearch(ks, k)
			ks = slices.Delete(ks, i, i+1)
		}
		if step%997 == 0 || step == 2*n-1 {
			check(step)
		}
	}
	for k, c := range ref {
		for range c {
			if _, _, err := tr.Add(KeyOf(k), -1, 0, 0, &g); err != nil {
				t.Fatal(err)
			}
		}
	}
	if tr.root != nil || tr.Total != 0 || g.Rows != 0 || g.Entries != 0 || g.KeyBytes != 0 {
		t.Fatalf("emptied tree: root %v, total %d, gauge %+v", tr.root, tr.Total, g)
	}
}

// overaggCheckNode checks a subtree's invariants: sorted keys, node sizes
// within bounds (the root excepted) and children's counts.
func overaggCheckNode(t *Tree, n *node, root bool) error {
	if !root && (n.size() < nodeMin || n.size() > nodeMax) {
		return fmt.Errorf("node of %d items", n.size())
	}
	if n.leaf {
		for i := 1; i < len(n.entries); i++ {
			if t.compare(&n.entries[i-1], t.entry(&n.entries[i]).Key) >= 0 {
				return fmt.Errorf("leaf keys out of order")
			}
		}
		return nil
	}
	for i, c := range n.children {
		if got := c.sum(); got != n.counts[i] {
			return fmt.Errorf("child %d holds %d copies, counted %d", i, got, n.counts[i])
		}
		if err := overaggCheckNode(t, c, false); err != nil {
			return err
		}
	}
	return nil
}
