package topn

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/exec/internal/brute"
)

// discardWriter is a StateWriter that keeps nothing: a benchmark of a
// snapshot measures the operator's share of it.
type discardWriter struct{ puts, deletes int }

func (w *discardWriter) Put(int, []byte, []byte) error { w.puts++; return nil }
func (w *discardWriter) Delete(int, []byte) error      { w.deletes++; return nil }

// BenchmarkDedupSnapshot measures the snapshots of the de-duplication
// fast path (the shape of Nexmark q18) over 1M partitions (BIGINT)
// keeping their row of highest score, into a writer that keeps nothing:
// the operator's share of a snapshot. An op is one snapshot; ns/part is
// its time per partition written. "changed" is an incremental snapshot
// after 10% of the partitions, distinct and in random order, got a better
// row (untimed): a Delete of each one's old row and a Put of its new one.
// "full" is the first snapshot, a Put of every partition's row.
func BenchmarkDedupSnapshot(b *testing.B) {
	const parts, changed = 1_000_000, 100_000
	for _, mode := range []string{"changed", "full"} {
		b.Run(mode, func(b *testing.B) {
			alloc := memory.NewGoAllocator()
			op, err := New(benchConfig(1, false, true, true))
			if err != nil {
				b.Fatal(err)
			}
			brute.Open(b, op, alloc)
			cols := [][]int64{make([]int64, 0, benchRows), make([]int64, 0, benchRows), make([]int64, 0, benchRows)}
			feed := func(p, score int64, last bool) {
				cols[0], cols[1], cols[2] = append(cols[0], p), append(cols[1], score), append(cols[2], p)
				if len(cols[0]) == benchRows || last {
					brute.Feed(b, op, brute.Int64Chunk(alloc, cols, nil))
					cols[0], cols[1], cols[2] = cols[0][:0], cols[1][:0], cols[2][:0]
				}
			}
			for p := range int64(parts) {
				feed(p, 0, p == parts-1)
			}
			ctx := context.Background()
			w := &discardWriter{}
			if err := op.Snapshot(ctx, 1, w); err != nil {
				b.Fatal(err)
			}
			order := rand.New(rand.NewPCG(5, 6)).Perm(parts)
			wantPuts, wantDeletes := changed, changed
			if mode == "full" {
				wantPuts, wantDeletes = parts, 0
			}
			b.ResetTimer()
			for i := range b.N {
				b.StopTimer()
				if mode == "full" {
					forgetSnapshots(op)
				} else {
					window := order[(i%10)*changed : (i%10+1)*changed]
					for j, p := range window {
						feed(int64(p), int64(i+1), j == len(window)-1)
					}
				}
				*w = discardWriter{}
				b.StartTimer()
				if err := op.Snapshot(ctx, uint64(i+2), w); err != nil {
					b.Fatal(err)
				}
				if w.puts != wantPuts || w.deletes != wantDeletes {
					b.Fatalf("snapshot %d: %d puts and %d deletes, want %d and %d", i, w.puts, w.deletes, wantPuts, wantDeletes)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*wantPuts), "ns/part")
		})
	}
}
