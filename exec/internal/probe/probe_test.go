package probe

import (
	"math/rand/v2"
	"testing"
)

// TestIndexAgainstAMap inserts and removes entries at random, many of
// them on colliding hashes, and checks every entry is found exactly while
// indexed and not after, against a map.
func TestIndexAgainstAMap(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	hashes := map[int32]uint64{}
	hashOf := func(id int32) uint64 { return hashes[id] }
	var x Index
	next := int32(0)
	for step := range 20000 {
		if len(hashes) > 0 && r.IntN(3) == 0 {
			for id, h := range hashes { // a random entry
				x.Remove(h, id, hashOf)
				delete(hashes, id)
				break
			}
		} else {
			h := r.Uint64()
			if r.IntN(2) == 0 {
				h = uint64(r.IntN(8)) << 56 // same home slot at any size: long runs
			}
			hashes[next] = h
			x.Insert(h, next, hashOf)
			next++
		}
		if x.Len() != len(hashes) {
			t.Fatalf("step %d: Len %d, want %d", step, x.Len(), len(hashes))
		}
		if step%500 == 0 {
			for id := range next {
				h, in := hashes[id]
				if !in {
					h = uint64(id) // any hash: a removed entry is found nowhere
				}
				got := x.Find(h, func(v int32) bool { return v == id })
				if in != (got == id) {
					t.Fatalf("step %d: entry %d found %v, indexed %v", step, id, got, in)
				}
			}
		}
	}
}

// TestIndexSpreadsKeyGroups indexes hashes whose low 8 bits are within
// half their range, as those of the keys a hash exchange sends one of two
// instances (exec.KeyGroup), and checks that the probe runs stay short.
func TestIndexSpreadsKeyGroups(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var hashes []uint64
	hashOf := func(id int32) uint64 { return hashes[id] }
	var x Index
	for id := range int32(1 << 16) {
		h := r.Uint64()&^0xff | uint64(r.IntN(128))
		hashes = append(hashes, h)
		x.Insert(h, id, hashOf)
	}
	probes := 0
	for id, h := range hashes {
		x.Find(h, func(v int32) bool { probes++; return v == int32(id) })
	}
	if avg := float64(probes) / float64(len(hashes)); avg > 2 {
		t.Errorf("%.1f probes per lookup at most half full, want at most 2", avg)
	}
}

// TestIndexReserve checks that an index reserved for n entries, some
// already in it, takes the rest without growing and still finds every
// entry.
func TestIndexReserve(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var hashes []uint64
	hashOf := func(id int32) uint64 { return hashes[id] }
	var x Index
	insert := func(n int) {
		for range n {
			id := int32(len(hashes))
			hashes = append(hashes, r.Uint64())
			x.Insert(hashes[id], id, hashOf)
		}
	}
	insert(1000)
	x.Reserve(5000, hashOf)
	size := x.Bytes()
	if size != 4*16384 {
		t.Fatalf("reserved for 5000 entries: %d bytes, want %d", size, 4*16384)
	}
	insert(4000)
	if x.Bytes() != size {
		t.Errorf("grew to %d bytes within the reserved entries", x.Bytes())
	}
	x.Reserve(10, hashOf) // never shrinks
	if x.Bytes() != size {
		t.Errorf("Reserve(10) resized to %d bytes", x.Bytes())
	}
	for id, h := range hashes {
		if got := x.Find(h, func(v int32) bool { return v == int32(id) }); got != int32(id) {
			t.Fatalf("entry %d: found %d", id, got)
		}
	}
}
