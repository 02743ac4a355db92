package bitset

import (
	"math/rand/v2"
	"testing"
)

// TestAgainstAMap checks Set, Has, Clear, Fill and Empty against a map
// of the numbers set, over random operations on numbers that grow the
// slice and cross word boundaries.
func TestAgainstAMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var bits []uint64
	set := map[int32]bool{}
	for range 20000 {
		i := r.Int32N(1000)
		switch r.IntN(4) {
		case 0, 1:
			if got := Set(&bits, i); got != !set[i] {
				t.Fatalf("Set(%d) reported %v with the bit set %v", i, got, set[i])
			}
			set[i] = true
		case 2:
			Clear(bits, i)
			delete(set, i)
		case 3:
			n := r.Int32N(300)
			bits = Fill(bits, n)
			clear(set)
			for j := range n {
				set[j] = true
			}
		}
		for _, j := range []int32{i, i - 1, i + 1, 0, 63, 64, 999, 5000} {
			if j >= 0 && Has(bits, j) != set[j] {
				t.Fatalf("Has(%d) = %v, want %v", j, Has(bits, j), set[j])
			}
		}
		if Empty(bits) != (len(set) == 0) {
			t.Fatalf("Empty = %v with %d numbers set", Empty(bits), len(set))
		}
	}
}
