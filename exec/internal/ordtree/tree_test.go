package ordtree

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestTopNTree checks the counted B+tree against a sorted list of copies
// through random insertions and retractions that grow it to several levels
// and shrink it back to empty.
func TestTopNTree(t *testing.T) {
	for seed := range uint64(4) {
		r := rand.New(rand.NewPCG(seed, 3))
		var tr Tree
		var g Gauge
		model := map[string]int64{}
		depth := 0
		check := func(step int) {
			t.Helper()
			checkTree(t, step, &tr, &g, model)
		}
		for step := range 40000 {
			key := fmt.Sprintf("k%05d", r.IntN(20000))
			w := int64(1)
			// Grow for the first half, then shrink.
			if r.IntN(10) < 3 || (step >= 20000 && r.IntN(10) < 7) {
				w = -1
			}
			e, _, err := tr.Add(KeyOf(key), w, 0, 0, &g)
			stored := e.Key
			if model[key]+w < 0 {
				if !errors.Is(err, ErrAbsent) {
					t.Fatalf("step %d: retracting absent %s: err %v", step, key, err)
				}
				continue
			}
			if err != nil || stored.S != key || stored != KeyOf(key) {
				t.Fatalf("step %d: add(%s, %d) = %q, %v", step, key, w, stored.S, err)
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
				if _, _, err := tr.Add(KeyOf(k), -1, 0, 0, &g); err != nil {
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
func (t *Tree) depth() int {
	d := 0
	for n := t.root; n != nil; d++ {
		if n.leaf {
			return d + 1
		}
		n = n.children[0]
	}
	return d
}

// checkTree compares tr with model: structure, counts, gauge, rank,
// seek and last.
func checkTree(t *testing.T, step int, tr *Tree, g *Gauge, model map[string]int64) {
	t.Helper()
	keys := make([]string, 0, len(model))
	var total int64
	for k, n := range model {
		keys = append(keys, k)
		total += n
	}
	slices.Sort(keys)
	if tr.Total != total || g.Rows != total || g.Entries != int64(len(keys)) {
		t.Fatalf("step %d: tree holds %d copies (gauge %d rows, %d entries), want %d copies of %d keys",
			step, tr.Total, g.Rows, g.Entries, total, len(keys))
	}
	if tr.root != nil {
		checkNode(t, tr, tr.root, true, "", "\xff\xff")
	}
	// The key arena holds the live keys and the removed ones not yet
	// compacted away, which are never most of it for long.
	var used, dead int64
	if tr.keys != nil {
		used, dead = tr.keys.a.Used(), tr.keys.dead
	}
	if live := used - dead; live != g.KeyBytes || (dead > compactMin && 2*dead > used) {
		t.Fatalf("step %d: key arena of %d bytes, %d dead; gauge %d live key bytes", step, used, dead, g.KeyBytes)
	}
	// The leaf chain lists every entry in order.
	var leaf *node
	if tr.root != nil {
		for leaf = tr.root; !leaf.leaf; leaf = leaf.children[0] {
		}
	}
	var got []string
	for ; leaf != nil; leaf = leaf.next {
		for i := range leaf.entries {
			got = append(got, tr.key(&leaf.entries[i]))
		}
	}
	if !slices.Equal(got, keys) {
		t.Fatalf("step %d: leaf chain has %d keys, want %d", step, len(got), len(keys))
	}
	var rank int64
	for _, k := range keys {
		if r, n := tr.Find(KeyOf(k)); r != rank || n != model[k] {
			t.Fatalf("step %d: find(%s) = %d, %d; want %d, %d", step, k, r, n, rank, model[k])
		}
		if r, n := tr.Find(KeyOf(k + "!")); r != rank+model[k] || n != 0 {
			t.Fatalf("step %d: find after %s = %d, %d", step, k, r, n)
		}
		for _, at := range []int64{rank, rank + model[k] - 1} {
			l, i, start := tr.seekLeaf(at)
			if got := tr.key(&l.entries[i]); got != k || start != rank {
				t.Fatalf("step %d: seek(%d) = %s from %d, want %s from %d", step, at, got, start, k, rank)
			}
		}
		rank += model[k]
	}
	if len(keys) > 0 && tr.Last().S != keys[len(keys)-1] {
		t.Fatalf("step %d: last is %s, want %s", step, tr.Last().S, keys[len(keys)-1])
	}
}

// checkNode checks a subtree's sizes, separators and counts, with its
// keys within [lo, hi), and returns its copies.
func checkNode(t *testing.T, tr *Tree, n *node, root bool, lo, hi string) int64 {
	t.Helper()
	if size := n.size(); size > nodeMax || (!root && size < nodeMin) || (root && !n.leaf && size < 2) {
		t.Fatalf("node of size %d (root %v, leaf %v)", size, root, n.leaf)
	}
	if n.leaf {
		var sum int64
		for i := range n.entries {
			e := tr.entry(&n.entries[i])
			if e.S < lo || e.S >= hi || e.pfx != KeyOf(e.S).pfx || (i > 0 && tr.key(&n.entries[i-1]) >= e.S) || e.N <= 0 {
				t.Fatalf("leaf entry %q (%d) out of order or range [%q, %q)", e.S, e.N, lo, hi)
			}
			sum += e.N
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
			clo = n.seps[i-1].S
		}
		if i < len(n.seps) {
			chi = n.seps[i].S
		}
		if got := checkNode(t, tr, c, false, clo, chi); got != n.counts[i] {
			t.Fatalf("child %d holds %d copies, counted %d", i, got, n.counts[i])
		}
		sum += n.counts[i]
	}
	return sum
}

// TestTreeKeysUnderChurn replaces the rows of a partition that holds ten,
// as a bounded Top-N does at each entry, and checks what the key arena
// costs: it stays within a small multiple of the live keys, and it
// allocates about two bytes per byte of key added, because it drops the
// removed keys rather than grow while a quarter of it is dead, and leaves
// room after a compaction (it allocated 6.5 bytes per byte before).
func TestTreeKeysUnderChurn(t *testing.T) {
	const live, rows = 10, 20000
	keys := make([]Key, rows)
	added := 0
	for i := range keys {
		keys[i] = KeyOf(fmt.Sprintf("%08d-%s", i, strings.Repeat("x", 150)))
		added += len(keys[i].S)
	}
	var tr Tree
	var g Gauge
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range rows {
		if _, _, err := tr.Add(keys[i], 1, 0, 0, &g); err != nil {
			t.Fatal(err)
		}
		if i >= live {
			if _, _, err := tr.Add(keys[i-live], -1, 0, 0, &g); err != nil {
				t.Fatal(err)
			}
		}
		if limit := 3*g.KeyBytes + 512; i > 100 && tr.keys.a.Bytes() > limit {
			t.Fatalf("row %d: the key arena holds %d bytes for %d live", i, tr.keys.a.Bytes(), g.KeyBytes)
		}
	}
	runtime.ReadMemStats(&after)
	if g.Entries != live {
		t.Fatalf("%d entries, want %d", g.Entries, live)
	}
	if perByte := float64(after.TotalAlloc-before.TotalAlloc) / float64(added); perByte > 2.5 {
		t.Errorf("allocated %.2f bytes per byte of key added, want at most 2.5", perByte)
	}
}
