package aggstate

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestCountSetMatchesMap applies random additions and removals of a few
// hundred values (hashed badly on purpose, so that probe runs collide and
// removals shift entries back) and checks the set against a map.
func TestCountSetMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var s CountSet[string]
	want := map[string]int64{}
	hash := func(v string) uint64 { return uint64(len(v)) * 0x9e3779b97f4a7c15 >> 60 }
	for step := range 20000 {
		v := fmt.Sprint("v", r.IntN(300))
		w := int64(1 + r.IntN(2))
		if r.IntN(2) == 0 {
			w = -w
		}
		before, err := s.Add(v, hash(v), w, nil)
		switch {
		case want[v]+w < 0:
			if err != ErrNegativeCount || before != want[v] {
				t.Fatalf("step %d: removing %d of %d held: %d, %v", step, -w, want[v], before, err)
			}
			continue
		case err != nil || before != want[v]:
			t.Fatalf("step %d: Add(%s, %d) = %d, %v; held %d", step, v, w, before, err, want[v])
		}
		if want[v] += w; want[v] == 0 {
			delete(want, v)
		}
		if s.Len() != len(want) {
			t.Fatalf("step %d: Len %d, want %d", step, s.Len(), len(want))
		}
	}
	got := map[string]int64{}
	s.Each(func(v string, n int64) { got[v] = n })
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Each: %v, want %v", got, want)
	}
}
