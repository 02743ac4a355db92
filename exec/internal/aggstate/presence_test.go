package aggstate

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestPresenceSetMatchesMap marks random values as seen by random
// aggregates (hashed badly on purpose, so that probe runs collide and
// wrap around the table) and checks the set against a map.
func TestPresenceSetMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var s PresenceSet[string]
	want := map[string]uint32{}
	hash := func(v string) uint64 { return uint64(len(v)) * 0x9e3779b97f4a7c15 >> 60 }
	for step := range 20000 {
		v := fmt.Sprint("v", r.IntN(3000))
		bits := uint32(1 + r.IntN(1<<5-1))
		if before := s.Add(v, hash(v), bits, nil); before != want[v] {
			t.Fatalf("step %d: Add(%s, %b) found %b, want %b", step, v, bits, before, want[v])
		}
		want[v] |= bits
		if s.Len() != len(want) {
			t.Fatalf("step %d: Len %d, want %d", step, s.Len(), len(want))
		}
	}
	got := map[string]uint32{}
	s.Each(func(v string, bits uint32) { got[v] = bits })
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Each: %v, want %v", got, want)
	}
	s.Reset()
	if s.Len() != 0 || s.Bytes() != 0 {
		t.Fatalf("after Reset: %d values, %d bytes", s.Len(), s.Bytes())
	}
}
