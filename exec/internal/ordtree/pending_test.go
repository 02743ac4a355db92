package ordtree

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPendingReportsEachRowOnce notes random changes of rows of a few
// partitions, enough for the list to be compacted on the way and to end
// with a tail repeating its sorted prefix and itself, takes them with
// Begin and reads them back with Next in small steps: every row changed is
// reported exactly once, and the changes noted after Begin go to the next
// list.
func TestPendingReportsEachRowOnce(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 3))
		var c Changes
		c.Done() // tracking
		var p Pending
		for round := range 3 {
			want := map[rowKey]bool{}
			for range 200 + rng.IntN(800) {
				r := rowKey{fmt.Sprintf("p%d", rng.IntN(3)), fmt.Sprintf("k%03d", rng.IntN(150))}
				c.Note(r.part, KeyOf(r.key))
				want[r] = true
			}
			c.Begin(&p)
			c.Note("after", KeyOf("the barrier"))
			got := map[rowKey]bool{}
			for steps := 0; !p.Done(); steps++ {
				if steps > 10000 {
					t.Fatalf("seed %d round %d: no end", seed, round)
				}
				n := 1 + rng.IntN(4)
				k, err := p.Next(n, func(part string, key Key) error {
					r := rowKey{part, key.S}
					if got[r] {
						t.Fatalf("seed %d round %d: %v reported twice", seed, round, r)
					}
					got[r] = true
					return nil
				})
				if err != nil || k > n {
					t.Fatalf("Next(%d) = %d, %v", n, k, err)
				}
			}
			if !maps.Equal(got, want) {
				t.Fatalf("seed %d round %d: reported %d rows, noted %d", seed, round, len(got), len(want))
			}
			if c.Len() != 1 {
				t.Fatalf("%d changes after the barrier, want 1", c.Len())
			}
			c.Begin(&p) // the one noted after the barrier
			if k, _ := p.Next(10, func(part string, key Key) error { return nil }); k != 1 || !p.Done() {
				t.Fatalf("the change after the barrier: %d reported", k)
			}
		}
	}
}

// TestPendingStepsStayShort checks that a step of Next looks at no more
// than eight times its budget of repeated rows, so that a list whose tail
// repeats its prefix many times over is still read in short steps.
func TestPendingStepsStayShort(t *testing.T) {
	var c Changes
	c.Done()
	keys := []string{"a", "b", "c"}
	for range 100 {
		for _, k := range keys {
			c.Note("p", KeyOf(k))
		}
	}
	var p Pending
	c.Begin(&p)
	repeats := len(p.list) - len(keys) // the list's compaction left some
	var got []string
	calls := 0
	for !p.Done() {
		calls++
		if _, err := p.Next(1, func(_ string, key Key) error { got = append(got, key.S); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, keys) || repeats < 16 || calls < repeats/8 {
		t.Fatalf("reported %v in %d steps", got, calls)
	}
}
