package probe

import (
	"math/rand/v2"
	"testing"
)

// TestIndexAgainstAMap inserts, removes and renumbers entries at random,
// many of them on colliding hashes, and checks every entry is found
// exactly while indexed and not after, against a map.
func TestIndexAgainstAMap(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	hashes := map[int32]uint64{}
	var x Index
	next := int32(0)
	for step := range 20000 {
		if len(hashes) > 0 && r.IntN(8) == 0 {
			for id, h := range hashes { // a random entry moves
				x.Renumber(h, id, next)
				delete(hashes, id)
				hashes[next] = h
				next++
				break
			}
		} else if len(hashes) > 0 && r.IntN(3) == 0 {
			for id, h := range hashes { // a random entry
				x.Remove(h, id)
				delete(hashes, id)
				break
			}
		} else {
			h := r.Uint64()
			if r.IntN(2) == 0 {
				h = uint64(r.IntN(8))<<56 | uint64(r.IntN(4)) // same home slot at any size, and the same high bits: long runs
			}
			hashes[next] = h
			x.Insert(h, next)
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
	var x Index
	for id := range int32(1 << 16) {
		h := r.Uint64()&^0xff | uint64(r.IntN(128))
		hashes = append(hashes, h)
		x.Insert(h, id)
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
	var x Index
	insert := func(n int) {
		for range n {
			id := int32(len(hashes))
			hashes = append(hashes, r.Uint64())
			x.Insert(hashes[id], id)
		}
	}
	insert(1000)
	x.Reserve(5000)
	size := x.Bytes()
	if size != 8*16384 {
		t.Fatalf("reserved for 5000 entries: %d bytes, want %d", size, 8*16384)
	}
	insert(4000)
	if x.Bytes() != size {
		t.Errorf("grew to %d bytes within the reserved entries", x.Bytes())
	}
	x.Reserve(10) // never shrinks
	if x.Bytes() != size {
		t.Errorf("Reserve(10) resized to %d bytes", x.Bytes())
	}
	for id, h := range hashes {
		if got := x.Find(h, func(v int32) bool { return v == int32(id) }); got != int32(id) {
			t.Fatalf("entry %d: found %d", id, got)
		}
	}
}

// TestIndexFiltersByHighBits checks that a lookup asks about only the
// entries whose hash shares its high 32 bits, and still finds entries
// whose hashes differ only in their low bits.
func TestIndexFiltersByHighBits(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	var x Index
	var hashes []uint64
	for id := range int32(1 << 12) {
		h := r.Uint64()
		if id%2 == 1 {
			h = hashes[id-1] ^ 1 // the high bits of the entry before
		}
		hashes = append(hashes, h)
		x.Insert(h, id)
	}
	for id, h := range hashes {
		asked := 0
		got := x.Find(h, func(v int32) bool { asked++; return v == int32(id) })
		if got != int32(id) {
			t.Fatalf("entry %d: found %d", id, got)
		}
		if asked > 2 {
			t.Fatalf("entry %d: asked about %d entries, want at most the two of its high bits", id, asked)
		}
	}
	for id := int32(0); id < int32(len(hashes)); id += 2 {
		x.Remove(hashes[id], id)
	}
	for id, h := range hashes {
		want := int32(id)
		if id%2 == 0 {
			want = -1
		}
		if got := x.Find(h, func(v int32) bool { return v == int32(id) }); got != want {
			t.Fatalf("after removing the even entries, entry %d: found %d", id, got)
		}
	}
}
