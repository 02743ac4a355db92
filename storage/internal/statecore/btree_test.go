package statecore

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// checkNode checks n's invariants: at most maxItems items in key order
// within (lo, hi), a child around each, leaves all at one depth. It
// returns the depth of n's leaves and the records it holds in order.
func checkNode(t *testing.T, tr *btree, n *bnode, lo, hi []byte) (int, []int32) {
	t.Helper()
	if len(n.items) > maxItems || n.kids != nil && len(n.kids) != len(n.items)+1 {
		t.Fatalf("node of %d items and %d children", len(n.items), len(n.kids))
	}
	var out []int32
	depth := -1
	for i := 0; i <= len(n.items); i++ {
		if n.kids != nil {
			itemLo, itemHi := lo, hi
			if i > 0 {
				itemLo = tr.o.key(n.items[i-1])
			}
			if i < len(n.items) {
				itemHi = tr.o.key(n.items[i])
			}
			d, recs := checkNode(t, tr, n.kids[i], itemLo, itemHi)
			if depth >= 0 && d != depth {
				t.Fatalf("leaves at depths %d and %d", depth, d)
			}
			depth = d
			out = append(out, recs...)
		}
		if i < len(n.items) {
			k := tr.o.key(n.items[i])
			if lo != nil && string(k) <= string(lo) || hi != nil && string(k) >= string(hi) {
				t.Fatalf("key %q out of (%q, %q)", k, lo, hi)
			}
			out = append(out, n.items[i])
		}
	}
	return depth + 1, out
}

// TestBTree bulk-loads trees of many sizes, inserts into them (new keys
// and newer records of keys they hold) and checks their shape and
// contents after each step.
func TestBTree(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2, 30, 31, 32, 33, 63, 64, 100, 991, 992, 993, 1024, 31 * 32 * 32, 40000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			o := newOverlay()
			for i := range n {
				mustPut(t, o, fmt.Sprintf("%06d", 2*i), "v")
			}
			tr := newBTree(o, latestRecords(o))
			check := func() {
				t.Helper()
				if tr.root == nil {
					if tr.size != 0 {
						t.Fatalf("empty tree of size %d", tr.size)
					}
					return
				}
				_, recs := checkNode(t, tr, tr.root, nil, nil)
				if want := latestRecords(o); !slices.Equal(recs, want) || tr.size != len(want) {
					t.Fatalf("tree holds %d records (size %d), want %d", len(recs), tr.size, len(want))
				}
				if !slices.Equal(tr.all(), recs) {
					t.Fatal("all differs from the tree's records")
				}
			}
			check()
			for i := range 2000 {
				mustPut(t, o, fmt.Sprintf("%06d", rng.IntN(2*n+200)), fmt.Sprint(i))
				tr.set(int32(o.recs() - 1))
			}
			tr.upto = o.recs()
			check()
		})
	}
}
