package rowstore

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
)

// stringBatch builds a one-column VARCHAR batch of vs.
func stringBatch(alloc memory.Allocator, vs []string) arrow.RecordBatch {
	rows := make([][]types.Datum, len(vs))
	for i, v := range vs {
		rows[i] = []types.Datum{types.StringDatum(v)}
	}
	return types.BuildRecord(alloc, []string{"s"}, []types.T{types.VarcharT}, rows)
}

// url returns the k-th of a few long values, as a channel's URL repeats
// in every bid of the channel.
func url(k int) string {
	return fmt.Sprintf("https://www.nexmark.com/channel-%04d/item.htm?query=1&channel_id=%d", k, k)
}

// storeStrings stores vs in a new one-column store and returns it with
// the rows' ids.
func storeStrings(vs []string) (*Store, []int32) {
	rec := stringBatch(memory.DefaultAllocator, vs)
	defer rec.Release()
	s := New([]types.T{types.VarcharT})
	ids := make([]int32, len(vs))
	for i := range vs {
		ids[i] = s.Add(rec.Columns(), i)
	}
	return s, ids
}

// checkStrings checks that rows ids of s hold want, by Gather and by
// Equal, and that ArrowBytes counts exactly their bytes.
func checkStrings(t *testing.T, s *Store, ids []int32, want []string) {
	t.Helper()
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	got := s.Gather(alloc, 0, ids).(*array.String)
	defer got.Release()
	var bytes int64
	for i, w := range want {
		if got.Value(i) != w {
			t.Fatalf("row %d holds %q, want %q", ids[i], got.Value(i), w)
		}
		bytes += int64(len(w))
	}
	live := int64(s.Live())
	if live != int64(len(ids)) {
		t.Fatalf("%d rows live, want %d", live, len(ids))
	}
	if want, got := (live+7)/8+4*(live+1)+bytes, s.ArrowBytes(); got != want {
		t.Errorf("ArrowBytes = %d, want %d", got, want)
	}
}

// TestRepeatedStringsShareBytes stores many rows of a few long values:
// the arena holds each value about once, and every row reads back its own.
func TestRepeatedStringsShareBytes(t *testing.T) {
	vs := make([]string, 50_000)
	for i := range vs {
		vs[i] = url(i % 40)
	}
	s, ids := storeStrings(vs)
	checkStrings(t, s, ids, vs)
	logical := int64(len(vs) * len(vs[0])) // within a few bytes
	if used := s.Cols[0].arena.Used(); used > logical/20 {
		t.Errorf("the arena holds %d bytes of %d given: the repeated values were not shared", used, logical)
	}
}

// TestUniqueStringsStopLookups stores values that never repeat: once its
// cache has grown to the largest, the column stops looking them up; each
// value is stored once.
func TestUniqueStringsStopLookups(t *testing.T) {
	vs := make([]string, 5*trialValues)
	for i := range vs {
		vs[i] = fmt.Sprintf("order-%012d-padding", i)
	}
	s, ids := storeStrings(vs)
	in := &s.Cols[0].intern
	if len(in.slots) != maxSlots || in.skip == 0 {
		t.Errorf("after %d unique values the cache has %d slots and skips %d lookups; want %d slots, lookups skipped",
			len(vs), len(in.slots), in.skip, maxSlots)
	}
	if in.shared != 0 {
		t.Errorf("%d bytes shared among unique values", in.shared)
	}
	checkStrings(t, s, ids, vs)
}

// TestInternerGrows stores values that repeat but outnumber the first
// cache: the cache grows, and more values find their earlier copy.
func TestInternerGrows(t *testing.T) {
	const distinct = 6_000
	vs := make([]string, 20*trialValues)
	for i := range vs {
		vs[i] = url((i * 7919) % distinct)
	}
	s, ids := storeStrings(vs)
	if n := len(s.Cols[0].intern.slots); n <= firstSlots {
		t.Errorf("the cache kept %d slots for %d distinct values", n, distinct)
	}
	checkStrings(t, s, ids, vs)
	var logical int64
	for _, v := range vs {
		logical += int64(len(v))
	}
	if used := s.Cols[0].arena.Used(); used > logical/3 {
		t.Errorf("the arena holds %d bytes of %d given", used, logical)
	}
}

// TestCompactionKeepsSharing removes most rows of a column whose rows
// share values: compaction reclaims the removed rows' own bytes, the
// rows left still share theirs (the arena does not grow), and a value
// added afterwards is shared again.
func TestCompactionKeepsSharing(t *testing.T) {
	vs := make([]string, 40_000)
	for i := range vs {
		if i%2 == 0 {
			vs[i] = url(i % 10)
		} else {
			vs[i] = strings.Repeat(fmt.Sprintf("unique-%08d|", i), 4)
		}
	}
	s, ids := storeStrings(vs)
	before := s.Cols[0].arena.Used()
	var keptIDs []int32
	var kept []string
	for i, id := range ids {
		if i%10 < 2 {
			keptIDs, kept = append(keptIDs, id), append(kept, vs[i])
		} else {
			s.Remove(id)
		}
	}
	c := &s.Cols[0]
	if used := c.arena.Used(); used >= before/2 {
		t.Errorf("the compacted arena holds %d bytes, of %d before", used, before)
	}
	checkStrings(t, s, keptIDs, kept)

	more := stringBatch(memory.DefaultAllocator, []string{url(0), url(0)})
	defer more.Release()
	used := c.arena.Used()
	keptIDs = append(keptIDs, s.Add(more.Columns(), 0), s.Add(more.Columns(), 1))
	kept = append(kept, url(0), url(0))
	if grew := c.arena.Used() - used; grew > int64(len(url(0))) {
		t.Errorf("two rows of one value took %d new bytes", grew)
	}
	checkStrings(t, s, keptIDs, kept)
}

// TestRestoredStringsShareBytes restores rows from their checkpoint
// encoding: repeated values share bytes there too.
func TestRestoredStringsShareBytes(t *testing.T) {
	vs := make([]string, 10_000)
	for i := range vs {
		vs[i] = url(i % 3)
	}
	rec := stringBatch(memory.DefaultAllocator, vs)
	defer rec.Release()
	src, dst := New([]types.T{types.VarcharT}), New([]types.T{types.VarcharT})
	ids := make([]int32, len(vs))
	for i := range vs {
		enc := src.AppendRow(nil, src.Add(rec.Columns(), i))
		id, _, err := dst.AddEncoded(enc)
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = id
	}
	checkStrings(t, dst, ids, vs)
	if used := dst.Cols[0].arena.Used(); used > int64(100*len(vs[0])) {
		t.Errorf("the restored arena holds %d bytes for 3 distinct values", used)
	}
}
