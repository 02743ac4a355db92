package topn

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/brute"
	"github.com/eddysql/eddy/exec/internal/ordtree"
)

// benchRows is the number of rows of a benchmark chunk, in the middle
// of the 1–8 K the runtime aims for.
const benchRows = 4096

// bench runs chunks through a Top-N and reports rows per second.
func bench(b *testing.B, cfg Config, parts int, retract bool) {
	alloc := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(1, 2))
	chunks := make([]exec.Chunk, 16)
	for i := range chunks {
		chunks[i] = brute.ScoredChunk(alloc, r, benchRows, parts, retract)
	}
	op, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	brute.Open(b, op, alloc)
	if retract {
		// Fill the state with 100 K rows that stay, so that the trees the
		// measured rows enter and leave are deep.
		for range 25 {
			brute.Feed(b, op, brute.ScoredChunk(alloc, r, benchRows, parts, false))
		}
	}
	brute.Measure(b, op, chunks)
}

func benchConfig(limit int64, rowNumber, appendOnly bool, desc bool) Config {
	names := []string{"p", "score", "id"}
	if rowNumber {
		names = append(names, "rn")
	}
	return Config{
		Input:     []types.T{types.BigIntT, types.BigIntT, types.BigIntT},
		Partition: []int{0}, Order: []ordtree.SortKey{{Col: 1, Desc: desc}},
		Limit: limit, RowNumber: rowNumber, AppendOnly: appendOnly, Names: names,
	}
}

func BenchmarkAppendOnly(b *testing.B) {
	bench(b, benchConfig(10, true, true, true), 1000, false)
}

func BenchmarkDedup(b *testing.B) {
	bench(b, benchConfig(1, false, true, false), 10000, false)
}

func BenchmarkRetract(b *testing.B) {
	bench(b, benchConfig(10, false, false, true), 100, true)
}

func BenchmarkRetractRowNumber(b *testing.B) {
	bench(b, benchConfig(10, true, false, true), 100, true)
}

// BenchmarkDedupNewPartitions runs chunks whose every row starts a new
// partition through the de-duplication fast path (the rows of Nexmark
// q18 mostly do): the cost of creating partitions, among them their key
// groups for checkpoints.
func BenchmarkDedupNewPartitions(b *testing.B) {
	alloc := memory.NewGoAllocator()
	op, err := New(benchConfig(1, false, true, true))
	if err != nil {
		b.Fatal(err)
	}
	brute.Open(b, op, alloc)
	cols := [][]int64{make([]int64, benchRows), make([]int64, benchRows), make([]int64, benchRows)}
	var rows int64
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		for j := range benchRows {
			cols[0][j], cols[1][j], cols[2][j] = int64(i*benchRows+j), int64(j), int64(j)
		}
		c := brute.Int64Chunk(alloc, cols, nil)
		b.StartTimer()
		brute.Feed(b, op, c)
		rows += benchRows
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}
