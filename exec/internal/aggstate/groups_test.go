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

func TestBatchGroupsAndFindDistinct(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	g := NewIntGroups()
	var bg BatchGroups
	want := map[int64]int32{}
	for batch := range 300 {
		// Batch sizes vary widely so that the batch table grows within a
		// batch and shrinks after one; some keys are far apart.
		n := 1 + r.IntN(300)
		if batch%50 == 7 {
			n = 5000
		}
		keys := make([]int64, n)
		for i := range keys {
			keys[i] = r.Int64N(int64(50+batch*20)) << (r.IntN(2) * 40)
		}
		ids := make([]int32, n)
		bg.Group(keys, ids)
		var wantKeys []int64
		var wantFirst []int32
		local := map[int64]int32{}
		for i, k := range keys {
			id, ok := local[k]
			if !ok {
				id = int32(len(wantKeys))
				local[k] = id
				wantKeys = append(wantKeys, k)
				wantFirst = append(wantFirst, int32(i))
			}
			if ids[i] != id {
				t.Fatalf("batch %d: row %d (key %d) in local group %d, want %d", batch, i, k, ids[i], id)
			}
		}
		if !slices.Equal(bg.Keys, wantKeys) || !slices.Equal(bg.First, wantFirst) {
			t.Fatalf("batch %d: distinct keys or first rows differ", batch)
		}
		slots := make([]int32, len(bg.Keys))
		g.FindDistinct(bg.Keys, slots)
		for j, k := range bg.Keys {
			s, ok := want[k]
			if !ok {
				s = slots[j]
				want[k] = s
			}
			if slots[j] != s {
				t.Fatalf("batch %d: key %d in slot %d, want %d", batch, k, slots[j], s)
			}
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
	for k, s := range want {
		if got, ok := g.m.get(k); !ok || got != s {
			t.Fatalf("get(%d) = %d,%v; want %d", k, got, ok, s)
		}
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
}

// BenchmarkBatchGroups groups batches of 4,096 rows over 1,000 distinct keys
// in random order, the shape of the hash aggregate's resident benchmark.
func BenchmarkBatchGroups(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	batches := make([][]int64, 64)
	for i := range batches {
		distinct := make([]int64, 1000)
		for j := range distinct {
			distinct[j] = r.Int64N(1 << 20)
		}
		keys := make([]int64, 4096)
		for j := range keys {
			keys[j] = distinct[j%len(distinct)]
		}
		r.Shuffle(len(keys), func(x, y int) { keys[x], keys[y] = keys[y], keys[x] })
		batches[i] = keys
	}
	var g BatchGroups
	ids := make([]int32, 4096)
	b.ResetTimer()
	for i := range b.N {
		g.Group(batches[i%len(batches)], ids)
	}
}
