package rowset_test

import (
	"slices"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/rowset"
)

// TestKeyedOutOfOrder applies a key's changes as two parallel instances
// may deliver them: the key's new row (from the instance of its new
// partition) before its old row's insert and retraction (from the old
// one). The set must end with the new row, whatever the order; before it
// kept values apart per key it held the last inserted one.
func TestKeyedOutOfOrder(t *testing.T) {
	alloc := exectest.Alloc(t)
	ts := []types.T{types.BigIntT, types.BigIntT, types.BigIntT}
	steps := []string{
		"+I 17 1028 2", // the new partition's instance first
		"+I 17 1022 4", // then the old one's late insert ...
		"-D 17 1022 4", // ... and its retraction
		"-D 17 1020 1", // and the row before that leaves last
	}
	orders := [][]int{{0, 1, 2, 3}, {1, 0, 2, 3}, {1, 2, 0, 3}, {0, 3, 1, 2}}
	for _, order := range orders {
		s := rowset.New(ts, []int{0})
		apply := func(text string) {
			c := exectest.Chunk(t, alloc, "bigint bigint bigint\n"+text)
			defer c.Batch.Release()
			if err := s.Apply(c); err != nil {
				t.Fatalf("order %v: %v", order, err)
			}
		}
		apply("+I 17 1020 1")
		for _, k := range order {
			apply(steps[k])
		}
		rows := s.Rows()
		want := []types.Datum{types.IntDatum(17), types.IntDatum(1028), types.IntDatum(2)}
		if len(rows) != 1 || !slices.Equal(rows[0], want) {
			t.Errorf("order %v: rows %v, want only %v", order, rows, want)
		}
	}
}
