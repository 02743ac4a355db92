package join

import (
	"math/rand/v2"
	"testing"
)

// TestDeadlinesOrder pushes random deadlines, few distinct and shared by
// runs of rows as a batch's are, pops those due between pushes and drops
// some with filter, and checks that every entry comes out once, when its
// deadline is due and not before, buckets in deadline order.
func TestDeadlinesOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var d deadlines
	held := map[int32]int64{} // id → deadline, of the entries pushed and not yet out
	wm := int64(0)
	pop := func() {
		t.Helper()
		prev := int64(-1 << 63)
		d.popDue(wm, func(e deadlineEntry) {
			at, ok := held[e.id]
			switch {
			case !ok:
				t.Fatalf("entry %d came out twice, or was filtered out", e.id)
			case at >= wm:
				t.Fatalf("entry %d of deadline %d came out at watermark %d", e.id, at, wm)
			case at < prev:
				t.Fatalf("deadline %d came out after %d", at, prev)
			}
			prev = at
			delete(held, e.id)
		})
		for id, at := range held {
			if at < wm {
				t.Fatalf("entry %d of deadline %d still held at watermark %d", id, at, wm)
			}
		}
	}
	id := int32(0)
	for i := range 3000 {
		at := wm + int64(r.IntN(50))
		for k := 1 + r.IntN(8); k > 0; k-- {
			d.push(at, id, uint32(i))
			held[id] = at
			id++
		}
		switch r.IntN(10) {
		case 0:
			wm += int64(r.IntN(30))
			pop()
		case 1:
			d.filter(func(e deadlineEntry) bool {
				if e.id%3 == 0 {
					delete(held, e.id)
					return false
				}
				return true
			})
		}
		if d.len() != len(held) {
			t.Fatalf("%d entries held, want %d", d.len(), len(held))
		}
	}
	wm = 1 << 62
	pop()
	if d.len() != 0 || len(held) != 0 || len(d.heap) != 0 || len(d.buckets) != 0 {
		t.Fatalf("after the last watermark: %d entries, %d deadlines, %d buckets", d.len(), len(d.heap), len(d.buckets))
	}
}
