package over

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/exec/internal/brute"
	"github.com/eddysql/eddy/exec/internal/ordtree"
	"github.com/eddysql/eddy/planner/plan"
)

// benchRows is the number of rows of a benchmark chunk, in the middle of
// the 1–8 K the runtime aims for.
const benchRows = 4096

// bench runs chunks of (partition, order, value) rows through a
// window aggregate, AVG(value) and MAX(value) over ROWS 10 PRECEDING per
// partition (q6's window), and reports input rows per second. The state is
// first filled with 100 K rows that stay; then each chunk inserts 2 K new
// rows at random places and retracts the 2 K the previous chunk inserted,
// so the state stays level.
func bench(b *testing.B, parts int) { benchWith(b, parts, false) }

// benchWith is bench; with funcs the operator computes ROW_NUMBER, RANK,
// DENSE_RANK and LAG(value) instead of the aggregates.
func benchWith(b *testing.B, parts int, funcs bool) {
	alloc := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(1, 2))
	const ring = 16
	half := benchRows / 2
	var rows [ring][3][]int64
	for k := range rows {
		for range half {
			rows[k][0] = append(rows[k][0], int64(r.IntN(parts)))
			rows[k][1] = append(rows[k][1], r.Int64N(1_000_000))
			rows[k][2] = append(rows[k][2], r.Int64N(1000))
		}
	}
	chunk := func(ins, del int) exec.Chunk {
		var cols [3][]int64
		var ops []exec.Op
		for j := range cols {
			cols[j] = append(append(cols[j], rows[ins][j]...), rows[del][j]...)
		}
		for i := range 2 * half {
			ops = append(ops, exec.Insert)
			if i >= half {
				ops[i] = exec.Delete
			}
		}
		return brute.Int64Chunk(alloc, cols[:], ops)
	}
	chunks := make([]exec.Chunk, ring)
	for k := range chunks {
		chunks[k] = chunk(k, (k+ring-1)%ring)
	}
	cfg := Config{
		Input:     []types.T{types.BigIntT, types.BigIntT, types.BigIntT},
		Partition: []int{0}, Order: []ordtree.SortKey{{Col: 1}},
		Frame: plan.Frame{Kind: plan.FrameRows, Preceding: 10},
		Aggs: []accum.Spec{
			{Func: plan.AggAvg, Arg: 2, ArgType: types.BigIntT, Type: types.DoubleT},
			{Func: plan.AggMax, Arg: 2, ArgType: types.BigIntT, Type: types.BigIntT},
		},
		Names: []string{"p", "o", "v", "avg", "max"},
	}
	if funcs {
		cfg.Frame, cfg.Aggs = plan.Frame{}, nil
		cfg.Funcs = []Func{{Kind: plan.WinRowNumber, Arg: -1, Default: -1, Type: types.BigIntT},
			{Kind: plan.WinRank, Arg: -1, Default: -1, Type: types.BigIntT},
			{Kind: plan.WinDenseRank, Arg: -1, Default: -1, Type: types.BigIntT},
			{Kind: plan.WinLag, Arg: 2, N: 1, Default: -1, Type: types.BigIntT}}
		cfg.Names = []string{"p", "o", "v", "rn", "r", "dr", "lag"}
	}
	op, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	brute.Open(b, op, alloc)
	for range 25 {
		brute.Feed(b, op, brute.ScoredChunk(alloc, r, benchRows, parts, false))
	}
	// The rows the first chunk retracts.
	brute.Feed(b, op, brute.Int64Chunk(alloc, rows[ring-1][:], nil))
	brute.Measure(b, op, chunks)
}

// BenchmarkRetract: 10 K partitions of about 10 rows (q6's sellers).
func BenchmarkRetract(b *testing.B) { bench(b, 10000) }

// BenchmarkLargePartitions: 100 partitions of about 1 K rows, so the trees
// have two levels.
func BenchmarkLargePartitions(b *testing.B) { bench(b, 100) }

// BenchmarkRankRetract: the ranking functions and LAG over 10 K partitions
// of about 10 rows.
func BenchmarkRankRetract(b *testing.B) { benchWith(b, 10000, true) }

// BenchmarkRankLargePartitions: the ranking functions and LAG over 100
// partitions of about 1 K rows: a change at a random place renumbers the
// rows after it, about half the partition.
func BenchmarkRankLargePartitions(b *testing.B) { benchWith(b, 100, true) }
