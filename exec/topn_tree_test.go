package exec

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestTopNTree checks the counted B+tree against a sorted list of copies
// through random insertions and retractions that grow it to several levels
// and shrink it back to empty.
func TestTopNTree(t *testing.T) {
	for seed := range uint64(4) {
		r := rand.New(rand.NewPCG(seed, 3))
		var tr topnTree
		var g topnGauge
		model := map[string]int64{}
		depth := 0
		check := func(step int) {
			t.Helper()
			topnCheckTree(t, step, &tr, &g, model)
		}
		for step := range 40000 {
			key := fmt.Sprintf("k%05d", r.IntN(20000))
			w := int64(1)
			// Grow for the first half, then shrink.
			if r.IntN(10) < 3 || (step >= 20000 && r.IntN(10) < 7) {
				w = -1
			}
			e, _, err := tr.add(topnKeyOf(key), w, 0, 0, &g)
			stored := e.topnKey
			if model[key]+w < 0 {
				if !errors.Is(err, errTopNAbsent) {
					t.Fatalf("step %d: retracting absent %s: err %v", step, key, err)
				}
				continue
			}
			if err != nil || stored.key != key || stored != topnKeyOf(key) {
				t.Fatalf("step %d: add(%s, %d) = %q, %v", step, key, w, stored.key, err)
			}
			if model[key] += w; model[key] == 0 {
				delete(model, key)
			}
			if step%500 == 0 {
				check(step)
				depth = max(depth, tr.depth())
			}
		}
		for k, n := range model {
			for range n {
				if _, _, err := tr.add(topnKeyOf(k), -1, 0, 0, &g); err != nil {
					t.Fatal(err)
				}
			}
			delete(model, k)
		}
		check(-1)
		if depth < 3 {
			t.Errorf("seed %d: the tree grew to %d levels, want at least 3", seed, depth)
		}
	}
}

// depth returns the number of levels of the tree.
func (t *topnTree) depth() int {
	d := 0
	for n := t.root; n != nil; d++ {
		if n.leaf {
			return d + 1
		}
		n = n.children[0]
	}
	return d
}

// topnCheckTree compares tr with model: structure, counts, gauge, rank,
// seek and last.
func topnCheckTree(t *testing.T, step int, tr *topnTree, g *topnGauge, model map[string]int64) {
	t.Helper()
	keys := make([]string, 0, len(model))
	var total int64
	for k, n := range model {
		keys = append(keys, k)
		total += n
	}
	slices.Sort(keys)
	if tr.total != total || g.rows != total || g.entries != int64(len(keys)) {
		t.Fatalf("step %d: tree holds %d copies (gauge %d rows, %d entries), want %d copies of %d keys",
			step, tr.total, g.rows, g.entries, total, len(keys))
	}
	if tr.root != nil {
		topnCheckNode(t, tr.root, true, "", "\xff\xff")
	}
	// The leaf chain lists every entry in order.
	var leaf *topnNode
	if tr.root != nil {
		for leaf = tr.root; !leaf.leaf; leaf = leaf.children[0] {
		}
	}
	var got []string
	for ; leaf != nil; leaf = leaf.next {
		for _, e := range leaf.entries {
			got = append(got, e.key)
		}
	}
	if !slices.Equal(got, keys) {
		t.Fatalf("step %d: leaf chain has %d keys, want %d", step, len(got), len(keys))
	}
	var rank int64
	for _, k := range keys {
		if r, n := tr.find(topnKeyOf(k)); r != rank || n != model[k] {
			t.Fatalf("step %d: find(%s) = %d, %d; want %d, %d", step, k, r, n, rank, model[k])
		}
		if r, n := tr.find(topnKeyOf(k + "!")); r != rank+model[k] || n != 0 {
			t.Fatalf("step %d: find after %s = %d, %d", step, k, r, n)
		}
		for _, at := range []int64{rank, rank + model[k] - 1} {
			l, i, start := tr.seek(at)
			if l.entries[i].key != k || start != rank {
				t.Fatalf("step %d: seek(%d) = %s from %d, want %s from %d", step, at, l.entries[i].key, start, k, rank)
			}
		}
		rank += model[k]
	}
	if len(keys) > 0 && tr.last().key != keys[len(keys)-1] {
		t.Fatalf("step %d: last is %s, want %s", step, tr.last().key, keys[len(keys)-1])
	}
}

// topnCheckNode checks a subtree's sizes, separators and counts, with its
// keys within [lo, hi), and returns its copies.
func topnCheckNode(t *testing.T, n *topnNode, root bool, lo, hi string) int64 {
	t.Helper()
	if size := n.size(); size > topnNodeMax || (!root && size < topnNodeMin) || (root && !n.leaf && size < 2) {
		t.Fatalf("node of size %d (root %v, leaf %v)", size, root, n.leaf)
	}
	if n.leaf {
		var sum int64
		for i, e := range n.entries {
			if e.key < lo || e.key >= hi || e.pfx != topnKeyOf(e.key).pfx || (i > 0 && n.entries[i-1].key >= e.key) || e.n <= 0 {
				t.Fatalf("leaf entry %q (%d) out of order or range [%q, %q)", e.key, e.n, lo, hi)
			}
			sum += e.n
		}
		return sum
	}
	if len(n.seps) != len(n.children)-1 || len(n.counts) != len(n.children) {
		t.Fatalf("internal node with %d children, %d separators, %d counts", len(n.children), len(n.seps), len(n.counts))
	}
	var sum int64
	for i, c := range n.children {
		clo, chi := lo, hi
		if i > 0 {
			clo = n.seps[i-1].key
		}
		if i < len(n.seps) {
			chi = n.seps[i].key
		}
		if got := topnCheckNode(t, c, false, clo, chi); got != n.counts[i] {
			t.Fatalf("child %d holds %d copies, counted %d", i, got, n.counts[i])
		}
		sum += n.counts[i]
	}
	return sum
}
