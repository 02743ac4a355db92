package rowset_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/rowkey"
	"github.com/eddysql/eddy/exec/internal/rowset"
)

// mapSet is the baseline of the benchmarks: how views stored their rows
// before Set stored columns — a Go map from each row's key encoding to its
// values as datums and its count.
type mapSet struct {
	types []types.T
	key   []int
	rows  map[string]*mapRow
	buf   []byte
}

type mapRow struct {
	vals  []types.Datum
	count int64
}

func (s *mapSet) apply(c exec.Chunk) {
	cols := c.Batch.Columns()
	keys := cols
	if s.key != nil {
		keys = nil
		for _, k := range s.key {
			keys = append(keys, cols[k])
		}
	}
	for i := range c.NumRows() {
		s.buf = rowkey.Append(s.buf[:0], keys, i)
		r, ok := s.rows[string(s.buf)]
		if !ok {
			r = &mapRow{}
			s.rows[string(s.buf)] = r
		}
		r.count += c.Op(i).Weight()
		if c.Op(i).Weight() > 0 {
			r.vals = make([]types.Datum, len(cols))
			for j, col := range cols {
				r.vals[j] = types.DatumAt(col, i, s.types[j])
			}
		}
		if r.count == 0 {
			delete(s.rows, string(s.buf))
		}
	}
}

// benchChunks makes n rows of bids (auction, bidder, price, channel,
// date_time) in chunks of exec.BatchRows; with updates, every other chunk
// replaces the prices of the previous one's auctions (a keyed view of the
// latest bid per auction).
func benchChunks(n int, updates bool) []exec.Chunk {
	ts := []types.T{types.BigIntT, types.BigIntT, types.BigIntT, types.VarcharT, types.TimestampT(3)}
	names := []string{"auction", "bidder", "price", "channel", "date_time"}
	var out []exec.Chunk
	row := func(i, price int) []types.Datum {
		return []types.Datum{types.IntDatum(int64(i)), types.IntDatum(int64(i * 7 % 1000)), types.IntDatum(int64(price)),
			{S: fmt.Sprint("channel-", i%10)}, types.IntDatum(1700000000000 + int64(i))}
	}
	for from := 0; from < n; from += exec.BatchRows {
		var rows [][]types.Datum
		var ops []exec.Op
		for i := from; i < min(from+exec.BatchRows, n); i++ {
			if updates && (i/exec.BatchRows)%2 == 1 {
				prev := i - exec.BatchRows
				rows = append(rows, row(prev, prev%997), row(prev, prev%997+1))
				ops = append(ops, exec.UpdateBefore, exec.UpdateAfter)
				continue
			}
			rows = append(rows, row(i, i%997))
			ops = append(ops, exec.Insert)
		}
		c := exec.Chunk{Batch: types.BuildRecord(memory.DefaultAllocator, names, ts, rows)}
		if updates {
			c.Ops = ops
		}
		out = append(out, c)
	}
	return out
}

// BenchmarkSetApply integrates 1M rows into a Set and into mapSet, the
// string-keyed map views used before, in the same run: append-only rows
// (a filter view) and a keyed view whose rows are updated. Run it as
//
//	go test ./exec/internal/rowset -run XXX -bench BenchmarkSetApply -count 3
func BenchmarkSetApply(b *testing.B) {
	ts := []types.T{types.BigIntT, types.BigIntT, types.BigIntT, types.VarcharT, types.TimestampT(3)}
	for _, shape := range []struct {
		name    string
		updates bool
		key     []int
	}{{"append", false, nil}, {"keyed_updates", true, []int{0}}} {
		chunks := benchChunks(1_000_000, shape.updates)
		rows := 0
		for _, c := range chunks {
			rows += c.NumRows()
		}
		b.Run(shape.name+"/columns", func(b *testing.B) {
			var bytes int64
			for b.Loop() {
				s := rowset.New(ts, shape.key)
				for _, c := range chunks {
					if err := s.Apply(c); err != nil {
						b.Fatal(err)
					}
				}
				bytes = s.Bytes() / int64(s.Len())
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(bytes), "B/row")
		})
		b.Run(shape.name+"/map", func(b *testing.B) {
			for b.Loop() {
				s := &mapSet{types: ts, key: shape.key, rows: map[string]*mapRow{}}
				for _, c := range chunks {
					s.apply(c)
				}
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkSetUpdatePauses holds 1M keyed rows and updates 4M of them
// at random, a chunk of 4,096 updates at a time, and reports the median,
// p99 and longest Apply: the pauses a view's compaction adds to the
// stream of updates, where the rows/s hide them. Run it as
//
//	go test ./exec/internal/rowset -run XXX -bench BenchmarkSetUpdatePauses -count 3
func BenchmarkSetUpdatePauses(b *testing.B) {
	ts := []types.T{types.BigIntT, types.BigIntT, types.BigIntT, types.VarcharT, types.TimestampT(3)}
	names := []string{"auction", "bidder", "price", "channel", "date_time"}
	const keys, updates = 1_000_000, 4_000_000
	row := func(i, price int) []types.Datum {
		return []types.Datum{types.IntDatum(int64(i)), types.IntDatum(int64(i * 7 % 1000)), types.IntDatum(int64(price)),
			{S: fmt.Sprint("channel-", i%10)}, types.IntDatum(1700000000000 + int64(i))}
	}
	load := benchChunks(keys, false)
	price := make([]int, keys)
	for k := range price {
		price[k] = k % 997 // as benchChunks makes them
	}
	r := rand.New(rand.NewPCG(1, 2))
	var chunks []exec.Chunk
	for from := 0; from < updates; from += exec.BatchRows {
		var rows [][]types.Datum
		var ops []exec.Op
		seen := map[int]bool{}
		for range exec.BatchRows {
			k := r.IntN(keys)
			if seen[k] {
				continue // one update of a key per chunk
			}
			seen[k] = true
			rows = append(rows, row(k, price[k]), row(k, price[k]+1))
			ops = append(ops, exec.UpdateBefore, exec.UpdateAfter)
			price[k]++
		}
		chunks = append(chunks, exec.Chunk{Batch: types.BuildRecord(memory.DefaultAllocator, names, ts, rows), Ops: ops})
	}
	var times []time.Duration
	for b.Loop() {
		b.StopTimer()
		s := rowset.New(ts, []int{0})
		for _, c := range load {
			if err := s.Apply(c); err != nil {
				b.Fatal(err)
			}
		}
		// The first update indexes the rows: not a compaction's pause.
		if err := s.Apply(chunks[0]); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		for _, c := range chunks[1:] {
			start := time.Now()
			if err := s.Apply(c); err != nil {
				b.Fatal(err)
			}
			times = append(times, time.Since(start))
		}
	}
	slices.Sort(times)
	at := func(q float64) float64 { return float64(times[int(q*float64(len(times)-1))].Microseconds()) }
	b.ReportMetric(at(0.5), "p50-µs")
	b.ReportMetric(at(0.99), "p99-µs")
	b.ReportMetric(at(1), "max-µs")
	b.ReportMetric(float64(updates)*float64(b.N)/b.Elapsed().Seconds(), "updates/s")
}
