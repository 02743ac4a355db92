package probe

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkIndex measures an index of 4M entries whose hashes live in a
// slice of their own, as an operator's do: finding entries held, finding
// absent ones, and replacing entries (a remove and an insert). Each
// lookup's match reads the entry's hash, a cache miss at this size, as an
// operator's match reads its entry.
func BenchmarkIndex(b *testing.B) {
	const n = 4 << 20
	r := rand.New(rand.NewPCG(1, 2))
	hashes := make([]uint64, n)
	var x Index
	for id := range hashes {
		hashes[id] = r.Uint64()
		x.Insert(hashes[id], int32(id))
	}
	probes := make([]uint64, 1<<16)
	for i := range probes {
		probes[i] = r.Uint64()
	}
	b.Run("hit", func(b *testing.B) {
		for i := range b.N {
			id := int32(probes[i&(len(probes)-1)] % n)
			h := hashes[id]
			if x.Find(h, func(v int32) bool { return hashes[v] == h }) != id {
				b.Fatal("not found")
			}
		}
	})
	b.Run("miss", func(b *testing.B) {
		for i := range b.N {
			h := probes[i&(len(probes)-1)]
			if x.Find(h, func(v int32) bool { return hashes[v] == h }) >= 0 {
				b.Fatal("found")
			}
		}
	})
	b.Run("replace", func(b *testing.B) {
		for i := range b.N {
			p := probes[i&(len(probes)-1)]
			id := int32(p % n)
			x.Remove(hashes[id], id)
			hashes[id] = p ^ uint64(i)
			x.Insert(hashes[id], id)
		}
	})
}
