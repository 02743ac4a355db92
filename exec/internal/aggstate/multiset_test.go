package aggstate

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// present returns, in order, the values whose count in want is positive.
func present(want map[int64]int64) []int64 {
	var keys []int64
	for k, n := range want {
		if n > 0 {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// checkMultiset compares m with a map of counts and checks the bucket
// invariants.
func checkMultiset(t *testing.T, m *Multiset[int64], want map[int64]int64) {
	t.Helper()
	keys := present(want)
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
	if m.big != nil && (m.small != nil || len(m.big.buckets) < 2) {
		t.Fatalf("both representations in use: %d small, %d buckets", len(m.small), len(m.big.buckets))
	}
	if len(m.small) > bucketMax {
		t.Fatalf("small multiset of %d values", len(m.small))
	}
	var buckets [][]Entry[int64]
	if m.big != nil {
		buckets = m.big.buckets
	}
	for i, b := range buckets {
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
