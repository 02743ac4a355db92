package over

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/brute"
	"github.com/eddysql/eddy/exec/internal/ordtree"
	"github.com/eddysql/eddy/planner/plan"
)

// TestRankingReadsNoPrefix checks that a row appended at the end of a
// large partition (a stream in event-time order) costs the ranking and
// offset functions O(log n) plus the rows around it, not a rescan of the
// partition: ROW_NUMBER, RANK, DENSE_RANK, LAG and LEAD read only the new
// row, its peers and the rows LAG and LEAD reach. Aggregates over ROWS
// UNBOUNDED PRECEDING, for contrast, read from the partition's start.
func TestRankingReadsNoPrefix(t *testing.T) {
	const n = 20000
	run := func(t *testing.T, frame plan.Frame, funcs string, aggs bool) int {
		alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
		in := []types.T{types.BigIntT, types.BigIntT, types.BigIntT}
		cfg := Config{Input: in, Partition: []int{0}, Order: []ordtree.SortKey{{Col: 1}}, Frame: frame,
			Names: []string{"p", "o", "v"}}
		if aggs {
			cfg = config(t, "bigint bigint bigint", []int{0}, "1", frame, "count *")
		}
		cfg = withFuncs(t, cfg, funcs)
		op, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		brute.Open(t, op, alloc)
		var cols [3][]int64
		for i := range n {
			cols[0] = append(cols[0], 1)
			cols[1] = append(cols[1], int64(i/2)) // pairs of peers
			cols[2] = append(cols[2], int64(i))
		}
		brute.Feed(t, op, brute.Int64Chunk(alloc, cols[:], nil))
		last := [3][]int64{{1}, {n / 2}, {-1}}
		brute.Feed(t, op, brute.Int64Chunk(alloc, last[:], []exec.Op{exec.Insert}))
		return len(op.ev.ids)
	}
	if got := run(t, plan.Frame{}, "row_number, rank, dense_rank, lag 2 3, lead 2 1", false); got > 8 {
		t.Errorf("ranking functions read %d rows for a row appended to %d", got, n)
	}
	if got := run(t, plan.Frame{Kind: plan.FrameRowsUnbounded}, "row_number", true); got <= n {
		t.Errorf("an unbounded frame read %d rows for a row appended to %d, want all", got, n)
	}
}
