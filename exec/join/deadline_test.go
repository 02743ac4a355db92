package join

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestDeadlineHeapOrders pushes random deadlines, pops some between
// pushes and the rest after a rebuild (init), and checks that they come
// out in order.
func TestDeadlineHeapOrders(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var h deadlineHeap
	var want, got []int64
	for i := range 5000 {
		at := int64(r.IntN(1000))
		h.push(deadlineItem{at: at, id: int32(i)})
		want = append(want, at)
		if r.IntN(4) == 0 {
			got = append(got, h.pop().at)
			slices.Sort(want)
			if got[len(got)-1] != want[0] {
				t.Fatalf("pop %d: got %d, want the least, %d", len(got), got[len(got)-1], want[0])
			}
			want = want[1:]
		}
	}
	r.Shuffle(len(h.items), func(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] })
	h.init()
	got = got[:0]
	for len(h.items) > 0 {
		got = append(got, h.pop().at)
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("after init, %d entries popped out of order", len(got))
	}
}
