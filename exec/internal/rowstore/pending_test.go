package rowstore

import (
	"slices"
	"testing"

	"github.com/eddysql/eddy/exec/internal/bitset"
)

// TestPendingTakesTheChanges checks Changes.Begin and Pending: the
// pending rows are the marked ones still held (before tracking, those the
// caller lists); identities are the epoch's and the row's id, whatever the
// order rows are written in; the deletions move to the pending snapshot;
// and the changes start afresh, clean.
func TestPendingTakesTheChanges(t *testing.T) {
	var c Changes
	var p Pending
	c.Begin(&p, 1, []int32{4, 2}) // before tracking: every row held
	if got := p.Next(nil, 10, 10); !slices.Equal(got, []int32{4, 2}) || !p.Done() || !c.Tracking() {
		t.Fatalf("first snapshot's rows %v (done %v, tracking %v), want [4 2]", got, p.Done(), c.Tracking())
	}
	id4, id2 := c.Persist(4, 7, p.Epoch()), c.Persist(2, 7, p.Epoch())
	if id4 != Identity(1, 4) || id2 != Identity(1, 2) || id4 == id2 {
		t.Fatalf("identities %d, %d", id4, id2)
	}

	c.Mark(5)
	c.Mark(2) // held already: keeps its identity
	c.Mark(9)
	c.Mark(3)
	c.Removed(9, 0, []byte("k")) // marked, then gone: not pending
	c.Removed(4, 0, []byte("k")) // held: its deletion is recorded
	c.Begin(&p, 2, nil)
	if !c.Clean() {
		t.Fatal("changes left after Begin")
	}
	if p.Has(9) || p.Has(4) || !p.Has(5) || !p.Has(2) {
		t.Fatal("pending rows")
	}
	if !p.Take(3) || p.Has(3) || p.Take(3) {
		t.Fatal("Take of a pending row")
	}
	if got := c.Persist(3, 1, p.Epoch()); got != Identity(2, 3) {
		t.Fatalf("identity %d", got)
	}
	c.Mark(3) // changed after the barrier: the next snapshot's
	var dels []string
	n, err := p.Deletions(5, func(g int, key []byte) error {
		dels = append(dels, string(key))
		return nil
	})
	if err != nil || n != 1 || len(dels) != 1 {
		t.Fatalf("deletions %q (%d, %v)", dels, n, err)
	}
	if _, key, ident, err := SplitEntryKey([]byte(dels[0])); err != nil || string(key) != "k" || ident != id4 {
		t.Fatalf("deleted %q: key %q, identity %d, %v", dels[0], key, ident, err)
	}
	if got := p.Next(nil, 1, 8); !slices.Equal(got, []int32{5}) {
		t.Fatalf("next %v, want [5]", got)
	}
	if p.Done() || p.RowsDone() {
		t.Fatal("done with row 2 left")
	}
	if got := p.Next(nil, 8, 8); !slices.Equal(got, []int32{2}) || !p.Done() {
		t.Fatalf("next %v (done %v), want [2]: 9 gone, 3 taken", got, p.Done())
	}
	if c.Persist(2, 7, p.Epoch()) != id2 {
		t.Fatal("a row written again got another identity")
	}
	c.Begin(&p, 3, nil)
	if got := p.Next(nil, 8, 8); !slices.Equal(got, []int32{3}) || !bitset.Empty(c.dirty) || !bitset.Empty(c.gone) {
		t.Fatalf("third snapshot's rows %v, want [3], and clear bits for the next", got)
	}
}

// TestPendingNextScansBoundedly checks that Next looks at no more than
// its scan bound when the rows it passes were taken already, and goes on
// from there.
func TestPendingNextScansBoundedly(t *testing.T) {
	var c Changes
	var p Pending
	rows := []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	c.Begin(&p, 1, rows)
	for _, id := range rows[:6] {
		p.Take(id)
	}
	if got := p.Next(nil, 2, 4); len(got) != 0 || p.RowsDone() {
		t.Fatalf("next %v after 4 taken rows, want none yet", got)
	}
	if got := p.Next(nil, 2, 4); !slices.Equal(got, []int32{6, 7}) {
		t.Fatalf("next %v, want [6 7]", got)
	}
	if got := p.Next(nil, 5, 5); !slices.Equal(got, []int32{8, 9}) || !p.Done() {
		t.Fatalf("next %v, want [8 9] and done", got)
	}
}
