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

// TestDeadlineGrain checks the rounding of a windowed join side's
// deadlines: a 64th of the bound, a power of two, exact for a padded side
// or a narrow bound.
func TestDeadlineGrain(t *testing.T) {
	for _, tc := range []struct {
		span   int64
		padded bool
		want   int64
	}{
		{0, false, 1}, {63, false, 1}, {128, false, 2}, {512, false, 8}, {1100, false, 16},
		{10_000, false, 128}, {10_000, true, 1}, {3_600_000, false, 32768},
	} {
		if got := deadlineGrain(tc.span, tc.padded); got != tc.want {
			t.Errorf("deadlineGrain(%d, %v) = %d, want %d", tc.span, tc.padded, got, tc.want)
		}
	}
	// A side rounds its rows' deadlines up to the grain: rows of nearby
	// times share a bucket, and none is freed before its exact deadline.
	s := &side{offset: 10, grain: 128}
	for id, ts := range []int64{0, 1, 100, 117, 119, 500} {
		s.track(int32(id), ts)
	}
	if got := len(s.deadline.heap); got != 3 {
		t.Errorf("%d buckets for deadlines 10..510 at a grain of 128, want 3", got)
	}
	if ids := s.popDue(128, nil); len(ids) != 0 {
		t.Errorf("freed %v below 128, the first rounded deadline", ids)
	}
	if ids := s.popDue(129, nil); len(ids) != 4 {
		t.Errorf("freed %v once past 128, want the four rows of times 0..117", ids)
	}
}
