package rowstore

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
)

// TestCompactionKeepsEmptyStrings removes enough long strings to compact
// the arena while an empty string added late (its offset at the arena's
// end) stays: comparing and reading it afterwards must not slice past the
// compacted arena (a property-test case of a join once panicked so).
func TestCompactionKeepsEmptyStrings(t *testing.T) {
	s := New([]types.T{types.VarcharT})
	long := strings.Repeat("x", 1000)
	add := func(v string) int32 {
		rec := types.BuildRecord(memory.DefaultAllocator, []string{"s"}, []types.T{types.VarcharT}, [][]types.Datum{{types.StringDatum(v)}})
		defer rec.Release()
		return s.Add(rec.Columns(), 0)
	}
	var longs []int32
	for range 100 {
		longs = append(longs, add(long))
	}
	empty := add("")
	for _, id := range longs {
		s.Remove(id)
	}
	rec := types.BuildRecord(memory.DefaultAllocator, []string{"s"}, []types.T{types.VarcharT}, [][]types.Datum{{types.StringDatum("")}})
	defer rec.Release()
	if !s.Equal(empty, rec.Columns(), 0) {
		t.Fatal("the empty string no longer equals itself after compaction")
	}
	if got := s.Cols[0].str(empty); got != "" {
		t.Fatalf("read %q, want the empty string", got)
	}
}
