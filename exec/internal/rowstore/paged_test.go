package rowstore

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/internal/paged"
)

// TestStoreAcrossPages stores rows over several pages of the columns'
// vectors, removes most of them (compacting the string arena, whose
// offsets span every page), adds rows that reuse the freed ids, and
// checks every row gathered back, and that Bytes counts the pages.
func TestStoreAcrossPages(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	ts := []types.T{types.BigIntT, types.VarcharT}
	const n = 2*paged.PageLen + 100
	val := func(i int) string { return fmt.Sprintf("%d-%s", i, strings.Repeat("v", 40)) }
	rows := make([][]types.Datum, n)
	for i := range rows {
		rows[i] = []types.Datum{types.IntDatum(int64(i)), types.StringDatum(val(i))}
		if i%7 == 3 {
			rows[i][1] = types.NullDatum
		}
	}
	rec := types.BuildRecord(alloc, []string{"i", "s"}, ts, rows)
	defer rec.Release()
	s := New(ts)
	for i := range rows {
		if id := s.Add(rec.Columns(), i); id != int32(i) {
			t.Fatalf("row %d got id %d", i, id)
		}
	}
	// 3 pages of 8-byte ints and bools, and of 8-byte offsets and 4-byte
	// lengths, plus the directories and the arena.
	want := int64(3*paged.PageLen)*(8+1+1+8+4) + s.Cols[1].arena.Bytes()
	if got := s.Bytes(); got < want || got > want+4*3*24*4 {
		t.Fatalf("Bytes %d, want %d plus the page directories", got, want)
	}
	used := s.Cols[1].arena.Used()
	for i := range rows {
		if i%5 != 0 {
			s.Remove(int32(i))
		}
	}
	if got := s.Cols[1].arena.Used(); got > used/2 {
		t.Fatalf("no compaction: the arena holds %d bytes of the %d it held", got, used)
	}
	for i := 1; i < n; i += 5 { // reuse freed ids with other rows' values
		s.Add(rec.Columns(), i)
	}
	ids := make([]int32, n)
	for i := range ids {
		ids[i] = int32(i)
	}
	ints := s.Gather(alloc, 0, ids).(*array.Int64)
	defer ints.Release()
	strs := s.Gather(alloc, 1, ids).(*array.String)
	defer strs.Release()
	kept := map[int32]int{}
	for i := 0; i < n; i += 5 {
		kept[int32(i)] = i
	}
	for id, i := n-1, 1; i < n; i += 5 { // the free list hands out ids last freed first
		for id >= 0 && id%5 == 0 {
			id--
		}
		kept[int32(id)] = i
		id--
	}
	for id := range int32(n) {
		i, ok := kept[id]
		if !ok {
			if ints.IsValid(int(id)) || strs.IsValid(int(id)) {
				t.Fatalf("removed id %d gathers a value", id)
			}
			continue
		}
		if ints.Value(int(id)) != int64(i) {
			t.Fatalf("id %d holds %d, want %d", id, ints.Value(int(id)), i)
		}
		if null := i%7 == 3; strs.IsNull(int(id)) != null || !null && strs.Value(int(id)) != val(i) {
			t.Fatalf("id %d holds %q (null %v), want %q", id, strs.Value(int(id)), strs.IsNull(int(id)), val(i))
		}
	}
}
