package rowstore

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
)

// TestArrowBytes: the Arrow size of the rows held counts each column's
// validity bitmap and values, a string's offset and bytes, and follows
// removals and reused ids.
func TestArrowBytes(t *testing.T) {
	ts := []types.T{types.BigIntT, types.VarcharT, types.BoolT}
	s := New(ts)
	rows := [][]types.Datum{
		{types.IntDatum(1), types.StringDatum("a"), types.BoolDatum(true)},
		{types.IntDatum(2), types.StringDatum("bb"), types.BoolDatum(false)},
		{types.IntDatum(3), types.NullDatum, types.NullDatum},
	}
	rec := types.BuildRecord(memory.DefaultAllocator, []string{"i", "s", "b"}, ts, rows)
	defer rec.Release()
	var ids []int32
	for i := range rows {
		ids = append(ids, s.Add(rec.Columns(), i))
	}
	// Three rows: BIGINT 1 + 24, VARCHAR 1 + 4·4 + 3, BOOLEAN 1 + 1.
	if got, want := s.ArrowBytes(), int64(25+20+2); got != want {
		t.Fatalf("3 rows: %d bytes, want %d", got, want)
	}
	s.Remove(ids[1])
	// Two rows: BIGINT 1 + 16, VARCHAR 1 + 4·3 + 1, BOOLEAN 1 + 1.
	if got, want := s.ArrowBytes(), int64(17+14+2); got != want {
		t.Fatalf("after a removal: %d bytes, want %d", got, want)
	}
	s.Add(rec.Columns(), 1) // takes the removed row's id
	if got, want := s.ArrowBytes(), int64(25+20+2); got != want {
		t.Fatalf("after reusing the id: %d bytes, want %d", got, want)
	}
}
