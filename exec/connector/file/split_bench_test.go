package file

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector/conntest"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/recycle"
)

var (
	bidsOnce sync.Once
	bidsErr  error
)

// bidsFile writes, once per test binary, bids.jsonl to the benchmarks'
// directory: benchRows Nexmark-shaped bids of seven fields (auction,
// bidder, price, channel, url, date_time, extra), about 230 bytes a line.
func bidsFile(b *testing.B) string {
	dir := benchFiles(b)
	bidsOnce.Do(func() {
		f, err := os.Create(filepath.Join(dir, "bids.jsonl"))
		if err != nil {
			bidsErr = err
			return
		}
		defer f.Close()
		w := bufio.NewWriterSize(f, 1<<20)
		channels := []string{"apple", "google", "facebook", "baidu", "channel-1234", "channel-77"}
		const t0 = int64(1704067200000)
		for i := range benchRows {
			ch := channels[i%len(channels)]
			fmt.Fprintf(w, `{"auction":%d,"bidder":%d,"price":%d,"channel":"%s","url":"https://www.nexmark.com/%s/item.htm?query=1&channel_id=%d","date_time":"%s","extra":"%s"}`+"\n",
				1000+i/10, 2000+i%997, 100+i*7%100000, ch, ch, i%4096, types.FormatTimestamp(t0+int64(i)*7, 3),
				"[MPO]^U[X]_[UZ]`ZSSJTVOWXXHIU[NZ_XZY]TMU_KSU^VIZLNO]JYKVHY"[i%7:40+i%11])
		}
		bidsErr = w.Flush()
	})
	if bidsErr != nil {
		b.Fatal(bidsErr)
	}
	return dir
}

// BenchmarkJSONSplits reads a 1M-row JSON-lines file of seven-column
// bids at parallelism 1 and 2: p splits of one stage, each read to its
// end by a goroutine of its own, in rows per second of wall time.
func BenchmarkJSONSplits(b *testing.B) {
	dir := bidsFile(b)
	cs := cols(b, "auction BIGINT", "bidder BIGINT", "price BIGINT", "channel VARCHAR", "url VARCHAR",
		"date_time TIMESTAMP(3)", "extra VARCHAR")
	root := conntest.RootAt(b, dir)
	for _, recycled := range []bool{false, true} {
		for _, p := range []int{1, 2} {
			name := fmt.Sprintf("p%d", p)
			if recycled {
				name += "/recycled"
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if n := readSplitsConcurrently(b, Config{Path: "bids.jsonl", Root: root, Format: FormatJSON, Columns: cs}, p, recycled); n != benchRows {
						b.Fatalf("read %d rows, want %d", n, benchRows)
					}
				}
				b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			})
		}
	}
}

// taskPoolBytes is what a dataflow task's pool of output buffers keeps
// (exec/dataflow's own constant): the recycled variants allocate each
// split's batches from such a pool, as the engine's source tasks do.
const taskPoolBytes = 16 << 20

// readSplitsConcurrently reads cfg's file in p splits of one stage, each
// by a goroutine of its own — allocating from a pool of its own that
// recycles the buffers of the batches released, when recycled is set —
// and returns the rows they read.
func readSplitsConcurrently(b *testing.B, cfg Config, p int, recycled bool) int {
	shared := &exec.Shared{}
	rows := make([]int, p)
	errs := make([]error, p)
	var wg sync.WaitGroup
	for i := range p {
		wg.Go(func() {
			var alloc memory.Allocator = memory.NewGoAllocator()
			if recycled {
				pool := recycle.New(alloc, taskPoolBytes)
				defer pool.Close()
				alloc = pool
			}
			env := exec.NewTestEnv(alloc)
			env.Instance, env.Parallelism, env.Shared = i, p, shared
			s, err := New(cfg)
			if err == nil {
				err = s.Open(context.Background(), env)
			}
			if err == nil {
				err = exectest.Drain(context.Background(), s, func(c exec.Chunk) error { rows[i] += c.NumRows(); return nil })
			}
			if s != nil {
				s.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	n := 0
	for i := range p {
		if errs[i] != nil {
			b.Fatalf("split %d of %d: %v", i, p, errs[i])
		}
		n += rows[i]
	}
	return n
}
