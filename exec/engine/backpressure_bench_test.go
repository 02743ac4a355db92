package engine

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"
)

var (
	bpDuration = flag.Duration("bp.duration", 60*time.Second, "how long BenchmarkThrottledSink runs")
	bpRate     = flag.Int("bp.rate", 200_000, "the source rate of BenchmarkThrottledSink, events/s (the sink takes a tenth)")
	bpBudget   = flag.Int64("bp.budget", 64<<20, "the buffer budget of BenchmarkThrottledSink, bytes")
	bpLimit    = flag.Bool("bp.memlimit", true, "set the Go memory limit to the base RSS plus the budget")
)

// BenchmarkThrottledSink runs a nexmark bid stream at -bp.rate events/s
// into a blackhole sink limited to a tenth of that, for -bp.duration, with
// a buffer budget of -bp.budget bytes, and samples the process's resident
// memory (VmRSS) and the bytes queued between the query's stages every
// second. The slow sink fills the buffers and then holds the source back,
// so memory stays bounded: the figures reported are the peak RSS above
// what the process held before the query started, and the peak queued
// bytes, both against the budget. Run it as
//
//	go test ./exec/engine -run XXX -bench BenchmarkThrottledSink -benchtime 1x -cpu 2
func BenchmarkThrottledSink(b *testing.B) {
	for i := 0; i < b.N; i++ {
		e := openEngine(b, Config{Parallelism: 2, BufferBytes: *bpBudget})
		s := e.NewSession(SessionOptions{})
		runtime.GC()
		base := rss()
		if *bpLimit {
			// The Go heap's soft limit (eddy --memory-limit): the base plus
			// 85% of the budget, the rest left for what is not heap (stacks,
			// the runtime's own), so the collector returns garbage before
			// the heap doubles.
			defer debug.SetMemoryLimit(debug.SetMemoryLimit(base + *bpBudget*85/100))
		}
		run(b, s, fmt.Sprintf("CREATE STREAM bid WITH (connector = 'nexmark', table = 'bid', rate = '%d')", *bpRate))
		run(b, s, fmt.Sprintf("CREATE SINK slow AS SELECT * FROM bid WITH (connector = 'blackhole', rate_limit = '%d')", *bpRate/10))
		e.mu.Lock()
		job := e.queries["slow"].job
		e.mu.Unlock()
		var peakRSS, peakQueued int64
		start := time.Now()
		for time.Since(start) < *bpDuration {
			time.Sleep(time.Second)
			peakRSS = max(peakRSS, rss())
			peakQueued = max(peakQueued, job.Buffers().Queued)
		}
		elapsed := time.Since(start)
		var in, out int64
		for _, st := range job.Stats() {
			if st.Source {
				in += st.RowsOut
			} else {
				out = max(out, st.RowsIn)
			}
		}
		buffers := job.Buffers()
		run(b, s, "DROP SINK slow")
		if err := e.Close(); err != nil {
			b.Fatal(err)
		}
		mb := func(v int64) float64 { return float64(v) / (1 << 20) }
		b.ReportMetric(mb(base), "base-rss-MiB")
		b.ReportMetric(mb(peakRSS), "peak-rss-MiB")
		b.ReportMetric(mb(peakRSS-base), "rss-growth-MiB")
		b.ReportMetric(mb(*bpBudget), "budget-MiB")
		b.ReportMetric(mb(peakQueued), "peak-queued-MiB")
		b.ReportMetric(mb(buffers.Peak), "inbox-peaks-MiB")
		b.ReportMetric(float64(in)/elapsed.Seconds(), "source-rows/s")
		b.ReportMetric(float64(out)/elapsed.Seconds(), "sink-rows/s")
	}
}

// rss returns the process's resident set size in bytes (Linux), or 0.
func rss() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}
