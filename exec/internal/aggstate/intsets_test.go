package aggstate

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// checkIntSet compares the multiset in words r with a map of counts.
func checkIntSet(t *testing.T, m *IntSets, r []uint64, want map[int64]int64) {
	t.Helper()
	keys := present(want)
	if got := m.Len(r); got != len(keys) {
		t.Fatalf("Len = %d, want %d", got, len(keys))
	}
	spilled := r[0]&spillFlag != 0
	if spilled != (len(keys) > InlineValues) && (len(keys) <= unspillAt || len(keys) > InlineValues) {
		t.Fatalf("%d values, spilled %v", len(keys), spilled)
	}
	if !spilled {
		for i, k := range keys {
			if int64(r[valuesWord+i]) != k || int64(r[countsWord+i]) != want[k] {
				t.Fatalf("inline entry %d = %d×%d, want %d×%d", i, r[valuesWord+i], r[countsWord+i], k, want[k])
			}
		}
		for i := len(keys); i < InlineValues; i++ {
			if r[valuesWord+i] != 0 || r[countsWord+i] != 0 {
				t.Fatalf("unused inline entry %d not zero", i)
			}
		}
	}
	first, ok1 := m.First(r)
	last, ok2 := m.Last(r)
	if ok1 != (len(keys) > 0) || ok2 != ok1 || (ok1 && (first != keys[0] || last != keys[len(keys)-1])) {
		t.Fatalf("First/Last = %d,%v %d,%v for %v", first, ok1, last, ok2, keys)
	}
}

func TestIntSetsRandom(t *testing.T) {
	const slots = 8
	arena := NewArena(2 + IntSetWords)
	arena.Grow(slots)
	var m IntSets
	m.Bind(arena, 2)
	for _, span := range []int64{3, 6, 12, 1000} {
		r := rand.New(rand.NewPCG(uint64(span), 2))
		want := make([]map[int64]int64, slots)
		for s := range want {
			want[s] = map[int64]int64{}
		}
		for step := range 20000 {
			s := int32(r.IntN(slots))
			// Values far apart and extreme ones, so that order is by the
			// signed value.
			v := (r.Int64N(span) - span/2) << (r.IntN(2) * 50)
			if r.IntN(50) == 0 {
				v = []int64{math.MinInt64, math.MaxInt64}[r.IntN(2)]
			}
			w := int64(1)
			if r.IntN(2) == 0 || (step > 15000 && r.IntN(3) > 0) {
				w = -1
			}
			before, err := m.Add(m.Words(s), v, w)
			if want[s][v]+w < 0 {
				if !errors.Is(err, ErrNegativeCount) || before != want[s][v] {
					t.Fatalf("retracting absent %d: %d, %v", v, before, err)
				}
				continue
			}
			if err != nil || before != want[s][v] {
				t.Fatalf("Add(%d, %d) = %d, %v; want %d", v, w, before, err, want[s][v])
			}
			want[s][v] += w
			checkIntSet(t, &m, m.Words(s), want[s])
			if arena.Row(s)[0] != 0 || arena.Row(s)[1] != 0 {
				t.Fatal("Add wrote outside its words")
			}
		}
		for s := range int32(slots) {
			if r.IntN(2) == 0 {
				m.Free(s)
				want[s] = map[int64]int64{}
			}
			for v, n := range want[s] {
				if n > 0 {
					if _, err := m.Add(m.Words(s), v, -n); err != nil {
						t.Fatal(err)
					}
				}
			}
			checkIntSet(t, &m, m.Words(s), nil)
			if r := m.Words(s); r[0] != 0 {
				t.Fatalf("empty multiset has header %x", r[0])
			}
		}
		if m.Spilled() != 0 || m.entries != 0 {
			t.Fatalf("after emptying: %d spilled, %d entries", m.Spilled(), m.entries)
		}
	}
}

func TestIntSetsSpillAndShrink(t *testing.T) {
	arena := NewArena(IntSetWords)
	arena.Grow(2)
	var m IntSets
	m.Bind(arena, 0)
	r := m.Words(1)
	for v := range int64(InlineValues) {
		if _, err := m.Add(r, 10*v, 2); err != nil {
			t.Fatal(err)
		}
	}
	if r[0] != InlineValues || m.Spilled() != 0 {
		t.Fatalf("header %x, %d spilled", r[0], m.Spilled())
	}
	if _, err := m.Add(r, 5, 1); err != nil || r[0]&spillFlag == 0 || m.Spilled() != 1 {
		t.Fatalf("a fifth value did not spill: %v, header %x", err, r[0])
	}
	if last, _ := m.Last(r); last != 10*(InlineValues-1) {
		t.Fatalf("Last = %d after spilling", last)
	}
	if m.Bytes() <= 0 {
		t.Fatal("spilled values not counted")
	}
	// Shrinking to InlineValues keeps the multiset spilled; to unspillAt
	// brings it back, counts intact.
	for _, v := range []int64{5, 0} {
		if _, err := m.Add(r, v, -1); err != nil {
			t.Fatal(err)
		}
	}
	if r[0]&spillFlag == 0 {
		t.Fatal("moved back inline too early")
	}
	if _, err := m.Add(r, 0, -1); err != nil {
		t.Fatal(err)
	}
	if r[0]&spillFlag == 0 || m.Len(r) != 3 {
		t.Fatalf("three values left: header %x, Len %d", r[0], m.Len(r))
	}
	if _, err := m.Add(r, 10, -2); err != nil {
		t.Fatal(err)
	}
	if r[0] != unspillAt || m.Spilled() != 0 {
		t.Fatalf("did not move back inline: header %x, %d spilled", r[0], m.Spilled())
	}
	checkIntSet(t, &m, r, map[int64]int64{20: 2, 30: 2})
	// The pool entry is reused by the next spill.
	for _, v := range []int64{1, 2, 3} {
		if _, err := m.Add(r, v, 1); err != nil {
			t.Fatal(err)
		}
	}
	if len(m.pool) != 1 || m.Spilled() != 1 {
		t.Fatalf("pool of %d, %d spilled", len(m.pool), m.Spilled())
	}
	if _, err := m.Add(r, 99, -1); !errors.Is(err, ErrNegativeCount) {
		t.Fatalf("retracting an absent value from a spilled multiset: %v", err)
	}
	m.Free(1)
	if r[0] != 0 || m.Spilled() != 0 || m.entries != 0 {
		t.Fatalf("Free left header %x, %d spilled, %d entries", r[0], m.Spilled(), m.entries)
	}
	if m.Words(0)[0] != 0 {
		t.Fatal("slot 0 touched")
	}
}

// TestIntSetsAddRows checks the batch loop against Add row by row,
// including its fast path (a held value whose count stays positive), spills
// within a batch and the error that stops it.
func TestIntSetsAddRows(t *testing.T) {
	const groups = 6
	r := rand.New(rand.NewPCG(5, 6))
	fast, slow := NewArena(1+IntSetWords), NewArena(1+IntSetWords)
	fast.Grow(groups)
	slow.Grow(groups)
	var mf, ms IntSets
	mf.Bind(fast, 1)
	ms.Bind(slow, 1)
	rows := make([][]uint64, groups)
	for g := range rows {
		rows[g] = fast.Row(int32(g))
	}
	for batch := range 500 {
		n := 1 + r.IntN(40)
		ids, vals, w := make([]int32, n), make([]int64, n), make([]int64, n)
		for i := range ids {
			ids[i] = int32(r.IntN(groups))
			vals[i] = r.Int64N(int64(2 + batch%9))
			w[i] = []int64{1, 1, -1, 0}[r.IntN(4)]
		}
		// Retractions of absent values fail in both, at the same row.
		var want error
		for i, g := range ids {
			if w[i] == 0 {
				continue
			}
			if _, err := ms.Add(ms.Words(g), vals[i], w[i]); err != nil {
				want = err
				break
			}
		}
		got := mf.AddRows(rows, 1, ids, vals, w)
		if !errors.Is(got, want) && got != want {
			t.Fatalf("batch %d: AddRows error %v, Add error %v", batch, got, want)
		}
		for g := range int32(groups) {
			if !slices.Equal(fast.Row(g), slow.Row(g)) {
				t.Fatalf("batch %d: group %d differs: %v vs %v", batch, g, fast.Row(g), slow.Row(g))
			}
			if mf.Len(mf.Words(g)) != ms.Len(ms.Words(g)) {
				t.Fatalf("batch %d: group %d has %d values, want %d", batch, g, mf.Len(mf.Words(g)), ms.Len(ms.Words(g)))
			}
			a, _ := mf.Last(mf.Words(g))
			b, _ := ms.Last(ms.Words(g))
			if a != b {
				t.Fatalf("batch %d: group %d Last %d, want %d", batch, g, a, b)
			}
		}
		if want != nil {
			// Start over from empty multisets.
			for g := range int32(groups) {
				mf.Free(g)
				ms.Free(g)
			}
		}
	}
	if mf.entries != ms.entries {
		t.Fatalf("entries %d, want %d", mf.entries, ms.entries)
	}
}
