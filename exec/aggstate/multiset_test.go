package aggstate

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// checkMultiset compares m with a map of counts and checks the bucket
// invariants.
func checkMultiset(t *testing.T, m *Multiset[int64], want map[int64]int64) {
	t.Helper()
	var keys []int64
	for k, n := range want {
		if n > 0 {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var got []int64
	m.Each(func(v int64, n int64) {
		if n != want[v] {
			t.Fatalf("count of %d: got %d, want %d", v, n, want[v])
		}
		got = append(got, v)
	})
	if !slices.Equal(got, keys) || m.Len() != len(keys) {
		t.Fatalf("values: got %d (len %d), want %d", len(got), m.Len(), len(keys))
	}
	first, ok1 := m.First()
	last, ok2 := m.Last()
	if ok1 != (len(keys) > 0) || ok2 != ok1 || (ok1 && (first != keys[0] || last != keys[len(keys)-1])) {
		t.Fatalf("First/Last = %d,%v %d,%v for %d values", first, ok1, last, ok2, len(keys))
	}
	if m.big != nil && (m.small != nil || len(m.big) < 2) {
		t.Fatalf("both representations in use: %d small, %d buckets", len(m.small), len(m.big))
	}
	if len(m.small) > bucketMax {
		t.Fatalf("small multiset of %d values", len(m.small))
	}
	for i, b := range m.big {
		if len(b) == 0 || len(b) > bucketMax {
			t.Fatalf("bucket %d has %d entries", i, len(b))
		}
	}
}

func TestMultisetRandom(t *testing.T) {
	for _, span := range []int64{10, 1000, 100000} {
		r := rand.New(rand.NewPCG(uint64(span), 1))
		var m Multiset[int64]
		want := map[int64]int64{}
		for step := range 20000 {
			v := r.Int64N(span)
			w := int64(1)
			if r.IntN(3) == 0 || (step > 15000 && r.IntN(2) == 0) {
				w = -1
			}
			before, err := m.Add(v, w, nil)
			if want[v]+w < 0 {
				if !errors.Is(err, ErrNegativeCount) {
					t.Fatalf("retracting absent %d: err %v", v, err)
				}
				continue
			}
			if err != nil || before != want[v] {
				t.Fatalf("Add(%d, %d) = %d, %v; want %d", v, w, before, err, want[v])
			}
			want[v] += w
			if step%1000 == 0 {
				checkMultiset(t, &m, want)
			}
		}
		checkMultiset(t, &m, want)
		for v, n := range want {
			if n > 0 {
				if _, err := m.Add(v, -n, nil); err != nil {
					t.Fatal(err)
				}
				want[v] = 0
			}
		}
		checkMultiset(t, &m, want)
		if m.big != nil || m.small != nil {
			t.Fatalf("empty multiset keeps memory")
		}
	}
}

func TestMultisetClonesKeptStrings(t *testing.T) {
	buf := []byte("abc")
	var m Multiset[string]
	cloned := 0
	clone := func(s string) string { cloned++; return strings.Clone(s) }
	if _, err := m.Add(string(buf[:2]), 1, clone); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Add("ab", 1, clone); err != nil || cloned != 1 {
		t.Fatalf("second Add: %v, %d clones", err, cloned)
	}
	if n := m.Count("ab"); n != 2 {
		t.Fatalf("Count(ab) = %d", n)
	}
	if _, err := m.Add("zz", -1, clone); !errors.Is(err, ErrNegativeCount) {
		t.Fatalf("got %v", err)
	}
	if v, _ := m.Last(); v != "ab" {
		t.Fatalf("Last = %q", v)
	}
	m.Reset()
	if m.Len() != 0 {
		t.Fatal("Reset left values")
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

func TestIntTableRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	var tb intTable
	want := map[int64]int32{}
	for step := range 200000 {
		// Few distinct keys with clustered values so probe runs collide.
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
		tb.put(k, int32(step))
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
