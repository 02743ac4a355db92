package aggstate

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestIntTableRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	var tb intTable
	want := map[int64]int32{}
	for step := range 200000 {
		// Few distinct keys, some far apart, so buckets overflow and
		// deletions shift entries back.
		k := r.Int64N(5000) << (r.IntN(3) * 20)
		if s, ok := want[k]; ok {
			if got, ok := tb.get(k); !ok || got != s {
				t.Fatalf("get(%d) = %d,%v; want %d", k, got, ok, s)
			}
			if r.IntN(2) == 0 {
				tb.delete(k)
				delete(want, k)
			}
			continue
		}
		if _, ok := tb.get(k); ok {
			t.Fatalf("get(%d) found a deleted key", k)
		}
		tb.put(k, intHash(k), int32(step))
		want[k] = int32(step)
	}
	if tb.n != len(want) {
		t.Fatalf("n = %d, want %d", tb.n, len(want))
	}
	for k, s := range want {
		if got, ok := tb.get(k); !ok || got != s {
			t.Fatalf("get(%d) = %d,%v; want %d", k, got, ok, s)
		}
	}
}

func TestIntGroupsFindAll(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	g := NewIntGroups()
	want := map[int64]int32{}
	for batch := range 300 {
		keys := make([]int64, 1+r.IntN(300))
		for i := range keys {
			keys[i] = r.Int64N(int64(50 + batch*20))
		}
		slots := make([]int32, len(keys))
		first := g.FindAll(keys, slots, []int32{-1})[1:]
		var wantFirst []int32
		seen := map[int64]bool{}
		for i, k := range keys {
			if !seen[k] {
				seen[k] = true
				wantFirst = append(wantFirst, int32(i))
			}
			s, ok := want[k]
			if !ok {
				s = slots[i]
				want[k] = s
			}
			if slots[i] != s {
				t.Fatalf("batch %d: key %d in slot %d, want %d", batch, k, slots[i], s)
			}
		}
		if !slices.Equal(first, wantFirst) {
			t.Fatalf("batch %d: first rows %v, want %v", batch, first, wantFirst)
		}
		// Delete a few groups; their slots are reused.
		for k, s := range want {
			if r.IntN(4) == 0 {
				g.Delete(s)
				delete(want, k)
			}
		}
	}
	if g.Live() != len(want) {
		t.Fatalf("%d live groups, want %d", g.Live(), len(want))
	}
	// A wrapped-around mark clears the old ones.
	g.mark = ^uint32(0)
	keys := []int64{1, 2, 1}
	if first := g.FindAll(keys, make([]int32, 3), nil); len(first) != 2 {
		t.Fatalf("after the mark wrapped: first rows %v", first)
	}
}

func TestGroupTables(t *testing.T) {
	g := NewIntGroups()
	a, created := g.Find(7)
	b, _ := g.Find(-7)
	n, _ := g.FindNull()
	if !created || a == b || n == a || n == b {
		t.Fatalf("slots %d %d %d", a, b, n)
	}
	if s, created := g.Find(7); s != a || created {
		t.Fatal("Find(7) again created a group")
	}
	if k, null := g.Key(n); !null || k != 0 {
		t.Fatal("NULL group lost")
	}
	g.Delete(a)
	g.Delete(n)
	if g.Live() != 1 || g.High() != 3 {
		t.Fatalf("live %d high %d", g.Live(), g.High())
	}
	c, _ := g.Find(8)
	d, _ := g.FindNull()
	if g.High() != 3 || (c != a && c != n) || (d != a && d != n) {
		t.Fatalf("freed slots not reused: %d %d, high %d", c, d, g.High())
	}
	if k, null := g.Key(c); null || k != 8 {
		t.Fatalf("Key(%d) = %d, %v", c, k, null)
	}

	bg := NewBytesGroups()
	key := []byte("xy")
	s, _ := bg.Find(key)
	key[0] = 'z'
	if bg.Key(s) != "xy" || bg.KeyBytes() != 2 {
		t.Fatalf("key not copied: %q", bg.Key(s))
	}
	if s2, created := bg.Find([]byte("xy")); s2 != s || created {
		t.Fatal("lookup failed")
	}
	bg.Delete(s)
	if bg.Live() != 0 || bg.KeyBytes() != 0 {
		t.Fatal("Delete left state")
	}
}

func TestColumnAndArena(t *testing.T) {
	var c Column[string]
	c.Grow(1)
	c.Grow(chunkSlots + 1)
	if c.Len() != 2*chunkSlots {
		t.Fatalf("Len = %d", c.Len())
	}
	*c.At(chunkSlots) = "x"
	p := c.At(chunkSlots)
	c.Grow(10 * chunkSlots)
	if *c.At(chunkSlots) != "x" || c.At(chunkSlots) != p {
		t.Fatal("Grow moved or lost an element")
	}
	for _, tc := range []struct{ words, stride int }{{1, 1}, {3, 4}, {5, 8}, {8, 8}, {9, 16}, {17, 24}} {
		if got := NewArena(tc.words).Stride(); got != tc.stride {
			t.Errorf("NewArena(%d).Stride() = %d, want %d", tc.words, got, tc.stride)
		}
	}
	a := NewArena(3)
	a.Grow(3 * chunkSlots)
	a.Row(5)[2] = 42
	a.Row(chunkSlots + 5)[0] = 7
	if a.Row(5)[2] != 42 || a.Row(chunkSlots + 5)[0] != 7 || a.Row(6)[0] != 0 {
		t.Fatal("rows overlap")
	}
	a.Clear(5)
	if a.Row(5)[2] != 0 || a.Bytes() != int64(3*chunkSlots*4*8) {
		t.Fatal("Clear or Bytes wrong")
	}
	if got := a.Chunks()[(chunkSlots+5)>>ChunkBits][((chunkSlots+5)&ChunkMask)*a.Stride()]; got != 7 {
		t.Fatalf("Chunks layout: %d", got)
	}
}
