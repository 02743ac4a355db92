package rowstore

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
)

// entryTypes are columns of every physical type a store holds.
var entryTypes = []types.T{types.BigIntT, types.DoubleT, types.VarcharT, types.BoolT, types.DecimalT(10, 2),
	types.DateT, types.TimestampT(3), types.IntervalT}

// entryRows are rows of entryTypes: extremes, -0, NaN, NULLs, strings.
var entryRows = [][]types.Datum{
	{types.IntDatum(math.MinInt64), types.FloatDatum(math.Copysign(0, -1)), types.StringDatum(""), types.BoolDatum(true),
		types.DecimalDatum(decimal128.FromI64(-12345)), types.IntDatum(-1), types.IntDatum(1 << 50), types.IntDatum(-7)},
	{types.NullDatum, types.FloatDatum(math.NaN()), types.StringDatum("héllo"), types.BoolDatum(false),
		types.NullDatum, types.IntDatum(19000), types.NullDatum, types.IntDatum(0)},
	{types.IntDatum(7), types.NullDatum, types.NullDatum, types.NullDatum,
		types.DecimalDatum(decimal128.New(1, 2)), types.NullDatum, types.IntDatum(0), types.NullDatum},
}

// TestEntryRoundTrip encodes rows of every type and decodes them into
// another store, which must then hold the same representation (a double's
// bits included), and checks that every truncation of an encoding is an
// error wrapping ErrDamaged, never a panic.
func TestEntryRoundTrip(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	b := types.BuildRecord(alloc, []string{"a", "b", "c", "d", "e", "f", "g", "h"}, entryTypes, entryRows)
	defer b.Release()
	src, dst := New(entryTypes), New(entryTypes)
	for i := range entryRows {
		id := src.Add(b.Columns(), i)
		enc := src.AppendRow([]byte("prefix"), id)[len("prefix"):]
		got, rest, err := dst.AddEncoded(append(slices.Clone(enc), 9, 9))
		if err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
		if !slices.Equal(rest, []byte{9, 9}) {
			t.Fatalf("row %d: %v after the row, want the 2 bytes appended", i, rest)
		}
		if !dst.Equal(got, b.Columns(), i) {
			t.Fatalf("row %d does not decode to itself", i)
		}
		for c := range dst.Cols {
			if dst.Cols[c].ValidAt(got) && !sameBits(&src.Cols[c], &dst.Cols[c], id, got) {
				t.Fatalf("row %d column %d: another representation", i, c)
			}
		}
		for n := range len(enc) {
			if _, _, err := New(entryTypes).AddEncoded(enc[:n]); !errors.Is(err, ErrDamaged) {
				t.Fatalf("row %d truncated to %d bytes: %v", i, n, err)
			}
		}
	}
	for _, bad := range [][]byte{{2}, {1, 1, 2, 3}, {0, 0, 1, 0xff}} {
		if _, _, err := New(entryTypes).AddEncoded(bad); !errors.Is(err, ErrDamaged) {
			t.Fatalf("%v: %v", bad, err)
		}
	}
}

// sameBits reports whether column a's row x and b's row y hold the same
// bits.
func sameBits(a, b *Col, x, y int32) bool {
	switch a.T.Physical() {
	case types.PhysFloat64:
		return math.Float64bits(a.Float64At(x)) == math.Float64bits(b.Float64At(y))
	case types.PhysString:
		return a.str(x) == b.str(y)
	}
	return a.Compare(x, y) == 0
}

// TestChanges checks the change tracking: nothing is tracked before the
// first Reset or Track (every row counts as changed), marked rows are
// dirty until Reset, removed ones are not, only rows a snapshot persisted
// record a deletion, under their key, group and identity, and identities
// handed out after a restore are above the restored ones.
func TestChanges(t *testing.T) {
	var c Changes
	c.Mark(3)
	c.Removed(3, 1, []byte("k"))
	if got := c.Dirty(nil); c.Tracking() || c.Clean() || len(got) != 0 {
		t.Fatalf("before the first snapshot: tracking %v, clean %v, dirty %v", c.Tracking(), c.Clean(), got)
	}
	c.Track()
	if !c.Tracking() || !c.Clean() {
		t.Fatalf("after Track: tracking %v, clean %v", c.Tracking(), c.Clean())
	}
	c.Mark(3)
	c.Mark(70)
	c.Mark(3)
	c.Removed(70, 1, []byte("k"))
	if got := c.Dirty(nil); !slices.Equal(got, []int32{3}) {
		t.Fatalf("dirty %v, want [3]", got)
	}
	if err := c.Deletions(func(int, []byte) error { t.Fatal("a deletion of a row never persisted"); return nil }); err != nil {
		t.Fatal(err)
	}
	id := c.Persist(3, 17, 1)
	c.Reset()
	if got := c.Dirty(nil); len(got) != 0 {
		t.Fatalf("dirty %v after Reset", got)
	}
	c.Mark(70) // reused
	c.Removed(3, 1, []byte("key"))
	var dels []string
	c.Deletions(func(g int, key []byte) error {
		tag, k, ident, err := SplitEntryKey(key)
		if err != nil || g != 17 || tag != 1 || string(k) != "key" || ident != id {
			t.Fatalf("deletion (%d, %q): %d %q %d %v", g, key, tag, k, ident, err)
		}
		dels = append(dels, string(key))
		return nil
	})
	if len(dels) != 1 {
		t.Fatalf("%d deletions, want 1", len(dels))
	}
	c.Restored(5, 2, 1000, true)
	if got := c.Persist(5, 2, 9); got != 1000 {
		t.Fatalf("restored row's identity %d, want 1000", got)
	}
	if got := c.Persist(70, 4, 9); got != Identity(9, 70) || got == id {
		t.Fatalf("identity %d, want %d", got, Identity(9, 70))
	}
	if _, _, _, err := SplitEntryKey(AppendEntryKey(nil, 1, "", 0)); err == nil {
		t.Fatal("identity 0 accepted")
	}
}

// TestDatumAtReadsWhatGatherGives checks DatumAt against types.DatumAt
// over the columns Gather builds, for rows of every type: extremes, -0,
// NaN, NULLs, strings.
func TestDatumAtReadsWhatGatherGives(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	b := types.BuildRecord(alloc, []string{"a", "b", "c", "d", "e", "f", "g", "h"}, entryTypes, entryRows)
	defer b.Release()
	s := New(entryTypes)
	var ids []int32
	for i := range entryRows {
		ids = append(ids, s.Add(b.Columns(), i))
	}
	for c := range s.Cols {
		col := s.Gather(alloc, c, ids)
		for i, id := range ids {
			got, want := s.Cols[c].DatumAt(id), types.DatumAt(col, i, entryTypes[c])
			if got.Null != want.Null || got.I != want.I || got.S != want.S || got.D != want.D ||
				math.Float64bits(got.F) != math.Float64bits(want.F) {
				t.Errorf("row %d column %d: %+v, want %+v", i, c, got, want)
			}
		}
		col.Release()
	}
}
