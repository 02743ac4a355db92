package ordtree

import (
	"fmt"
	"testing"
	"unsafe"
)

// TestLeafCapSizesANewPartitionsLeaf adds eleven rows to a partition of
// Partitions with LeafCap 11, as a Top-10 does: its leaf gets room for
// eleven entries at the first row and never moves; without LeafCap the
// leaf grows from four.
func TestLeafCapSizesANewPartitionsLeaf(t *testing.T) {
	for _, tc := range []struct{ leafCap, first int }{{11, 11}, {0, leafMin}, {500, MaxLeafCap}} {
		ps := Partitions{LeafCap: tc.leafCap}
		p := ps.Touch([]byte("auction-1"))
		var moves int
		var at *slot
		for i := range 11 {
			if _, _, err := p.Tree.Add(KeyOf(fmt.Sprintf("row-%02d", i)), 1, 0, 0, &ps.Gauge); err != nil {
				t.Fatal(err)
			}
			es := p.Tree.root.entries
			if i == 0 && cap(es) != tc.first {
				t.Errorf("LeafCap %d: the first leaf has room for %d, want %d", tc.leafCap, cap(es), tc.first)
			}
			if p := unsafe.SliceData(es); p != at {
				moves, at = moves+1, p
			}
		}
		if tc.leafCap == 11 && moves != 1 {
			t.Errorf("LeafCap 11: the leaf moved %d times for 11 rows", moves-1)
		}
		if p.Tree.Total != 11 {
			t.Fatalf("the tree holds %d rows", p.Tree.Total)
		}
	}
}
