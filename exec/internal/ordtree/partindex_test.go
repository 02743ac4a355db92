package ordtree

import (
	"fmt"
	"slices"
	"testing"
)

// TestPartitionIndex creates, finds and drops partitions in rounds,
// against a map: every partition is found by its key (as bytes and as a
// string), dropped ones are gone and their numbers reused, and Keys and
// Len list exactly the partitions held.
func TestPartitionIndex(t *testing.T) {
	var ps Partitions
	model := map[string]*Partition{}
	for round := range 20 {
		ps.Begin()
		for k := range 3000 {
			key := fmt.Sprintf("p%d", (k*7919+round*131)%5000)
			p := ps.Touch([]byte(key))
			if q, ok := model[key]; ok && q != p {
				t.Fatalf("round %d: %q is a new partition, not the one held", round, key)
			} else if !ok {
				if _, _, err := p.Tree.Add(KeyOf("row"), 1, 0, 0, &ps.Gauge); err != nil {
					t.Fatal(err)
				}
			}
			model[key] = p
		}
		ps.Finish()
		for key, p := range model {
			if len(key)%2 == round%2 && key[len(key)-1] < '4' {
				ps.Drop(key)
				delete(model, key)
				if ps.Get(key) != nil {
					t.Fatalf("round %d: %q found after its drop", round, key)
				}
			} else if ps.Get(key) != p {
				t.Fatalf("round %d: Get(%q) is not its partition", round, key)
			}
		}
		if ps.Len() != len(model) {
			t.Fatalf("round %d: Len %d, want %d", round, ps.Len(), len(model))
		}
		keys := ps.Keys()
		slices.Sort(keys)
		want := make([]string, 0, len(model))
		for k := range model {
			want = append(want, k)
		}
		slices.Sort(want)
		if !slices.Equal(keys, want) {
			t.Fatalf("round %d: Keys lists %d partitions, want %d", round, len(keys), len(want))
		}
		if n := len(ps.m.parts); n > 5000 {
			t.Fatalf("round %d: %d numbers for at most 5000 partitions: dropped ones are not reused", round, n)
		}
	}
}
