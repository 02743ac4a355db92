package agg

import (
	"slices"
	"strconv"
	"testing"
)

// TestRowLog checks that a rowLog gives back every row and integer key
// added, across chunks, that rows added earlier never move as it grows,
// and that a reset keeps its chunks for rows of the same width.
func TestRowLog(t *testing.T) {
	var l rowLog
	l.reset(3)
	n := 2*rowLogChunk + 17
	row := func(i int) []uint64 { return []uint64{uint64(i), uint64(i) * 7, ^uint64(i)} }
	for round := range 2 {
		var first *uint64
		for i := range n {
			l.add(row(i), int64(-i), i%5 == 0)
			if i == 0 {
				r, _, _ := l.at(0)
				first = &r[0]
			}
		}
		for i := range n {
			r, k, null := l.at(i)
			if !slices.Equal(r, row(i)) || k != int64(-i) || null != (i%5 == 0) {
				t.Fatalf("round %d: entry %d is %v %d %v", round, i, r, k, null)
			}
		}
		if r, _, _ := l.at(0); &r[0] != first {
			t.Fatalf("round %d: the first row moved as the log grew", round)
		}
		chunks := len(l.rows)
		l.reset(3)
		if l.n != 0 || len(l.rows) != chunks {
			t.Fatalf("round %d: after reset %d rows and %d chunks, want 0 and %d", round, l.n, len(l.rows), chunks)
		}
	}
	l.reset(5)
	if len(l.rows) != 0 || l.stride != 5 {
		t.Fatalf("a reset to rows of another width kept %d chunks of stride %d", len(l.rows), l.stride)
	}
}

// TestRowLogEncodedKeys checks that a rowLog gives back the rows and
// encoded keys added, across chunks, and that dropKeys forgets the keys
// (not to keep deleted groups' keys alive) and a reset keeps the chunks.
func TestRowLogEncodedKeys(t *testing.T) {
	var l rowLog
	l.reset(2)
	n := rowLogChunk + 5
	key := func(i int) string { return strconv.Itoa(i) + "-key" }
	for i := range n {
		l.addKey([]uint64{uint64(i), 1}, key(i))
	}
	for i := range n {
		if r, k := l.keyAt(i); !slices.Equal(r, []uint64{uint64(i), 1}) || k != key(i) {
			t.Fatalf("entry %d is %v %q", i, r, k)
		}
	}
	if len(l.keys) != 0 {
		t.Fatalf("encoded keys allocated %d chunks of integer keys", len(l.keys))
	}
	l.dropKeys(n)
	l.reset(2)
	if len(l.strs) != 2 || l.strs[0][0] != "" || l.strs[1][4] != "" {
		t.Fatalf("after reset: %d chunks of keys, first %q, last %q; want 2, both empty", len(l.strs), l.strs[0][0], l.strs[1][4])
	}
}
