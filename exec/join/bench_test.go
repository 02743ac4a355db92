package join_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/join"
	"github.com/eddysql/eddy/planner/plan"
)

// benchRows is the size of the benchmarks' join side.
const benchRows = 1 << 20

// benchTypes are both inputs' columns: a BIGINT key and a VARCHAR value.
var benchTypes = []types.T{types.BigIntT, types.VarcharT}

// benchBatches returns n rows (k BIGINT, v VARCHAR) in batches of 4096,
// row i with key key(i).
func benchBatches(b *testing.B, n int, key func(i int) int64) []arrow.RecordBatch {
	alloc := memory.NewGoAllocator()
	var out []arrow.RecordBatch
	for start := 0; start < n; start += 4096 {
		rows := make([][]types.Datum, min(4096, n-start))
		for i := range rows {
			rows[i] = []types.Datum{types.IntDatum(key(start + i)), types.StringDatum(fmt.Sprintf("name-%d", start+i))}
		}
		out = append(out, types.BuildRecord(alloc, []string{"k", "v"}, benchTypes, rows))
	}
	b.Cleanup(func() {
		for _, r := range out {
			r.Release()
		}
	})
	return out
}

// benchJoin opens an inner join on the key, owning every key group.
func benchJoin(b *testing.B) *join.HashJoin {
	j := join.NewHashJoin(join.Config{Kind: plan.InnerJoin, Left: benchTypes, Right: benchTypes,
		LeftKeys: []int{0}, RightKeys: []int{0}, Names: []string{"a", "b", "c", "d"}})
	env := &exec.Env{Alloc: memory.NewGoAllocator(), Metrics: &exec.OperatorMetrics{},
		KeyGroups: exec.KeyGroupRange{Lo: 0, Hi: exec.NumKeyGroups}, Parallelism: 1}
	if err := j.Open(context.Background(), env); err != nil {
		b.Fatal(err)
	}
	return j
}

var discard = exec.EmitterFunc(func(context.Context, exec.Chunk) error { return nil })

// feed processes the batches on input in with ops (nil: inserts).
func feed(b *testing.B, j *join.HashJoin, in int, batches []arrow.RecordBatch, ops []exec.Op) {
	for _, r := range batches {
		c := exec.Chunk{Batch: r}
		if ops != nil {
			c.Ops = ops[:r.NumRows()]
		}
		if err := j.Process(context.Background(), in, c, discard); err != nil {
			b.Fatal(err)
		}
	}
}

// entries is a checkpoint held as a list, for Restore: Scan reads it in
// order of group and key, as the state store does.
type entries struct {
	groups []int
	keys   [][]byte
	values [][]byte
}

func (e *entries) Put(g int, key, value []byte) error {
	e.groups, e.keys, e.values = append(e.groups, g), append(e.keys, slices.Clone(key)), append(e.values, slices.Clone(value))
	return nil
}

func (e *entries) Delete(int, []byte) error { return nil }

func (e *entries) sort() {
	idx := make([]int, len(e.groups))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		if e.groups[a] != e.groups[b] {
			return e.groups[a] - e.groups[b]
		}
		return bytes.Compare(e.keys[a], e.keys[b])
	})
	var s entries
	for _, i := range idx {
		s.groups, s.keys, s.values = append(s.groups, e.groups[i]), append(s.keys, e.keys[i]), append(s.values, e.values[i])
	}
	*e = s
}

func (e *entries) Scan(_ context.Context, r exec.KeyGroupRange, fn func(int, []byte, []byte) error) error {
	for i, g := range e.groups {
		if r.Contains(g) {
			if err := fn(g, e.keys[i], e.values[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// BenchmarkHashJoin measures a regular inner join's side index, per row
// (ns/row; allocs/op are per run of benchRows rows):
//
//   - insert: benchRows rows into one side, distinct keys;
//   - insert-dup: the same, 16 rows per key;
//   - probe: benchRows rows of the left side, each matching one of
//     256K right rows, emitted;
//   - update: a side of 256K rows (16 per key) has each row retracted
//     and inserted again, four times (2×benchRows rows);
//   - restore: a checkpoint of benchRows rows on each side, 16 per key,
//     restored into a new join.
//
// Run it as
//
//	go test ./exec/join -run XXX -bench BenchmarkHashJoin -count 3
func BenchmarkHashJoin(b *testing.B) {
	distinct := benchBatches(b, benchRows, func(i int) int64 { return int64(i) })
	dup := benchBatches(b, benchRows, func(i int) int64 { return int64(i / 16) })
	perRow := func(b *testing.B, rows int) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rows), "ns/row")
	}
	b.Run("insert", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			j := benchJoin(b)
			feed(b, j, 1, distinct, nil)
			j.Close()
		}
		perRow(b, benchRows)
	})
	b.Run("insert-dup", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			j := benchJoin(b)
			feed(b, j, 1, dup, nil)
			j.Close()
		}
		perRow(b, benchRows)
	})
	b.Run("probe", func(b *testing.B) {
		b.ReportAllocs()
		j := benchJoin(b)
		feed(b, j, 1, distinct[:len(distinct)/4], nil)
		left := benchBatches(b, benchRows, func(i int) int64 { return int64(i % (benchRows / 4)) })
		b.ResetTimer()
		for range b.N {
			feed(b, j, 0, left, nil)
		}
		perRow(b, benchRows)
	})
	b.Run("update", func(b *testing.B) {
		b.ReportAllocs()
		// Row i of dup (key i/16) is retracted and inserted again.
		ops := make([]exec.Op, 4096)
		for i := range ops {
			ops[i] = exec.Delete
		}
		for range b.N {
			b.StopTimer()
			j := benchJoin(b)
			feed(b, j, 1, dup[:len(dup)/4], nil)
			b.StartTimer()
			for range 4 {
				feed(b, j, 1, dup[:len(dup)/4], ops)
				feed(b, j, 1, dup[:len(dup)/4], nil)
			}
			j.Close()
		}
		perRow(b, 2*benchRows) // 4 × (256K retractions and 256K inserts)
	})
	b.Run("restore", func(b *testing.B) {
		b.ReportAllocs()
		j := benchJoin(b)
		feed(b, j, 0, dup, nil)
		feed(b, j, 1, dup, nil)
		var ck entries
		if err := j.Snapshot(context.Background(), 1, &ck); err != nil {
			b.Fatal(err)
		}
		j.Close()
		ck.sort()
		b.ResetTimer()
		for range b.N {
			j := benchJoin(b)
			if err := j.Restore(context.Background(), &ck, exec.KeyGroupRange{Lo: 0, Hi: exec.NumKeyGroups}); err != nil {
				b.Fatal(err)
			}
			j.Close()
		}
		perRow(b, 2*benchRows)
	})
}
