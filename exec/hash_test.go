package exec

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
)

func TestHashRowsIsValueBased(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	ints := types.BuildArray(alloc, types.BigIntT, []types.Datum{types.IntDatum(7), types.NullDatum, types.IntDatum(7), types.IntDatum(8)})
	defer ints.Release()
	strs := types.BuildArray(alloc, types.VarcharT, []types.Datum{types.StringDatum("a"), types.StringDatum("a"), types.StringDatum("a"), types.StringDatum("a")})
	defer strs.Release()
	h := make([]uint64, 4)
	if err := HashRows([]arrow.Array{ints, strs}, h); err != nil {
		t.Fatal(err)
	}
	if h[0] != h[2] {
		t.Errorf("equal rows hash differently")
	}
	if h[0] == h[1] || h[0] == h[3] {
		t.Errorf("different rows collide: %x", h)
	}
	// A sliced array hashes its own values, not the parent's.
	sl := arraySlice(ints, 2, 4)
	defer sl.Release()
	h2 := make([]uint64, 2)
	if err := HashRows([]arrow.Array{sl}, h2); err != nil {
		t.Fatal(err)
	}
	h3 := make([]uint64, 4)
	if err := HashRows([]arrow.Array{ints}, h3); err != nil {
		t.Fatal(err)
	}
	if h2[0] != h3[2] || h2[1] != h3[3] {
		t.Errorf("sliced array hashes differ")
	}
}

func TestKeyGroupsSpreadEvenly(t *testing.T) {
	counts := make([]int, 4)
	for kg := 0; kg < NumKeyGroups; kg++ {
		counts[InstanceForKeyGroup(kg, 4)]++
	}
	for i, c := range counts {
		if c != NumKeyGroups/4 {
			t.Errorf("instance %d owns %d key groups, want %d", i, c, NumKeyGroups/4)
		}
	}
}

func arraySlice(a arrow.Array, i, j int64) arrow.Array {
	return array.NewSlice(a, i, j)
}

// TestKeyGroupsOf: an instance's key groups are exactly those the exchange
// routes to it, and the ranges of a stage's instances tile all groups.
func TestKeyGroupsOf(t *testing.T) {
	for p := 1; p <= 2*NumKeyGroups; p++ {
		next := 0
		for inst := 0; inst < p; inst++ {
			r := KeyGroupsOf(inst, p)
			if r.Lo != next || r.Hi < r.Lo {
				t.Fatalf("p=%d instance %d: range %+v does not follow %d", p, inst, r, next)
			}
			for g := r.Lo; g < r.Hi; g++ {
				if got := InstanceForKeyGroup(g, p); got != inst {
					t.Fatalf("p=%d: group %d is in instance %d's range but routed to %d", p, g, inst, got)
				}
			}
			next = r.Hi
		}
		if next != NumKeyGroups {
			t.Fatalf("p=%d: ranges end at %d, not %d", p, next, NumKeyGroups)
		}
	}
}

// TestRowKeyGroups: the key group of each row is KeyGroup of its hash, and
// the scratch hashes are resized to the rows, shrinking or growing.
func TestRowKeyGroups(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	var vals []types.Datum
	for i := range 100 {
		vals = append(vals, types.IntDatum(int64(i)))
	}
	ints := types.BuildArray(alloc, types.BigIntT, vals)
	defer ints.Release()
	want := make([]uint64, len(vals))
	if err := HashRows([]arrow.Array{ints}, want); err != nil {
		t.Fatal(err)
	}
	for _, scratch := range [][]uint64{nil, make([]uint64, 3), make([]uint64, 500)} {
		groups := make([]int, len(vals))
		hashes, err := RowKeyGroups([]arrow.Array{ints}, scratch, groups)
		if err != nil {
			t.Fatal(err)
		}
		if len(hashes) != len(vals) {
			t.Fatalf("%d hashes for %d rows", len(hashes), len(vals))
		}
		for i, g := range groups {
			if g != KeyGroup(want[i]) {
				t.Fatalf("row %d: key group %d, want %d", i, g, KeyGroup(want[i]))
			}
		}
	}
}

// TestIntKeyGroupIsRowKeyGroups checks IntKeyGroup against RowKeyGroups
// over one column of each integer-like type, with NULLs and negative
// values.
func TestIntKeyGroupIsRowKeyGroups(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	for _, typ := range []types.T{types.BigIntT, types.DateT, types.TimestampT(3), types.IntervalT, types.BoolT} {
		var vals []types.Datum
		var want []int64
		for i := range 2000 {
			v := int64(i*7919) - 5000000
			switch typ.Kind {
			case types.Date:
				v = int64(int32(v))
			case types.Boolean:
				v = int64(i % 2)
			case types.BigInt:
				v *= 1 << 40
			}
			if i%97 == 0 {
				vals, want = append(vals, types.NullDatum), append(want, 0)
				continue
			}
			d := types.IntDatum(v)
			if typ.Kind == types.Boolean {
				d = types.BoolDatum(v == 1)
			}
			vals, want = append(vals, d), append(want, v)
		}
		col := types.BuildArray(alloc, typ, vals)
		groups := make([]int, len(vals))
		if _, err := RowKeyGroups([]arrow.Array{col}, nil, groups); err != nil {
			t.Fatal(err)
		}
		for i, g := range groups {
			if got := IntKeyGroup(want[i], col.IsNull(i)); got != g {
				t.Fatalf("%s row %d (%d, null %v): IntKeyGroup %d, RowKeyGroups %d", typ, i, want[i], col.IsNull(i), got, g)
			}
		}
		col.Release()
	}
}

// TestHashRowsDoublesAsGroupByDoes checks that doubles GROUP BY holds equal
// hash equally, so that the exchange sends their rows to one instance:
// -0 and 0, and NaNs of any payload; and that RowHash combines a double
// as HashRows does.
func TestHashRowsDoublesAsGroupByDoes(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	vals := []float64{0, math.Copysign(0, -1), math.NaN(), math.Float64frombits(0x7ff8000000000abc), math.Float64frombits(0xfff0000000000001), 2.5}
	b := array.NewFloat64Builder(alloc)
	b.AppendValues(vals, nil)
	col := b.NewArray()
	defer col.Release()
	b.Release()
	hashes := make([]uint64, len(vals))
	if err := HashRows([]arrow.Array{col}, hashes); err != nil {
		t.Fatal(err)
	}
	if hashes[0] != hashes[1] {
		t.Errorf("-0 and 0 hash apart")
	}
	if hashes[2] != hashes[3] || hashes[2] != hashes[4] {
		t.Errorf("NaNs hash apart: %x %x %x", hashes[2], hashes[3], hashes[4])
	}
	for i, f := range vals {
		if got := NewRowHash().Float(f); uint64(got) != hashes[i] {
			t.Errorf("%v: RowHash %x, HashRows %x", f, got, hashes[i])
		}
	}
}
