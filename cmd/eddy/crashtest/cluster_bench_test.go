package crashtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// benchBids is how many bids BenchmarkClusterThroughput reads.
const benchBids = 400_000

// benchRuns numbers the benchmark's clusters, each of its own name.
var benchRuns int

// BenchmarkClusterThroughput measures how fast a cluster of 1 and of 2
// members builds the windowed aggregate over benchBids bids already in a
// 12-partition topic: from CREATE MATERIALIZED VIEW to the view counting
// every bid, on one member's pull queries. The baseline, in the same
// run, is one process (no cluster) doing the same, FLUSH included.
//
//	go test ./cmd/eddy/crashtest -run '^$' -bench ClusterThroughput -benchtime 1x -count 3
func BenchmarkClusterThroughput(b *testing.B) {
	bin := buildEddy(b)
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(12, "bids", "auctions"))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	brokers := strings.Join(c.ListenAddrs(), ",")
	produceBenchBids(b, brokers)
	with := "connector = 'kafka', brokers = '" + brokers + "'"
	view := `CREATE MATERIALIZED VIEW per_window AS
  SELECT auction, window_start, COUNT(*) AS n, SUM(price) AS total
  FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(date_time), INTERVAL '10' SECOND))
  GROUP BY auction, window_start, window_end;`
	stream := fmt.Sprintf(`CREATE STREAM bids (auction BIGINT, price BIGINT, date_time TIMESTAMP(3),
  WATERMARK FOR date_time AS date_time - INTERVAL '1' HOUR) WITH (%s, topic = 'bids');`, with)
	b.Run("kfake-read", func(b *testing.B) {
		// What the broker alone serves: a consumer reading every bid.
		for range b.N {
			start := time.Now()
			readAll(b, brokers, "bids", benchBids)
			report(b, time.Since(start))
		}
	})
	b.Run("one-process", func(b *testing.B) {
		for range b.N {
			start := time.Now()
			cmd := exec.Command(bin, "--data-dir", b.TempDir(), "exec", "-e", stream+view+"FLUSH;")
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("one process: %v\n%s", err, out)
			}
			report(b, time.Since(start))
			b.ReportMetric((cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds(), "member-cpu-s")
		}
	})
	for _, n := range []int{1, 2} {
		b.Run(fmt.Sprintf("members=%d", n), func(b *testing.B) {
			for range b.N {
				benchRuns++
				name := fmt.Sprintf("bench%d-%d", n, benchRuns)
				var ms []*member
				for k := range n {
					ms = append(ms, startMemberOf(b, bin, brokers, name, fmt.Sprint("m", k)))
				}
				if _, err := ms[0].sql(b, bin, stream); err != nil {
					b.Fatal(err)
				}
				start, self := time.Now(), selfCPU()
				if _, err := ms[0].sql(b, bin, view); err != nil {
					b.Fatal(err)
				}
				for {
					out, err := ms[0].sql(b, bin, "SELECT SUM(n) AS n FROM per_window;")
					if err == nil && strings.TrimSpace(strings.TrimPrefix(out, "n\n")) == fmt.Sprint(benchBids) {
						break
					}
					if time.Since(start) > 10*time.Minute {
						b.Fatalf("the cluster counted %q of %d bids", out, benchBids)
					}
					time.Sleep(50 * time.Millisecond)
				}
				report(b, time.Since(start))
				// Where the CPU went: the members, and this process,
				// which is the broker (kfake) and the test's clients.
				var members time.Duration
				for _, m := range ms {
					members += processCPU(b, m.cmd.Process.Pid)
					m.kill()
				}
				b.ReportMetric(members.Seconds(), "member-cpu-s")
				b.ReportMetric((selfCPU() - self).Seconds(), "broker-cpu-s")
			}
		})
	}
}

// selfCPU returns the CPU time this process has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// processCPU returns the CPU time process pid has used, from
// /proc/pid/stat (user and system ticks, fields 14 and 15).
func processCPU(b *testing.B, pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Logf("reading the CPU time of %d: %v", pid, err)
		return 0
	}
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	var ticks int64
	for _, f := range fields[11:13] { // utime, stime (fields 14, 15 of the line)
		var n int64
		fmt.Sscan(f, &n)
		ticks += n
	}
	return time.Duration(ticks) * time.Second / 100 // USER_HZ
}

// report reports the bids per second of one run that took d.
func report(b *testing.B, d time.Duration) {
	b.ReportMetric(float64(benchBids)/d.Seconds(), "bids/s")
	b.ReportMetric(d.Seconds(), "s/run")
}

// produceBenchBids writes benchBids bids over the 12 partitions of bids.
func produceBenchBids(b *testing.B, brokers string) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(brokers, ",")...), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerLinger(5*time.Millisecond))
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	recs := make([]*kgo.Record, 0, 10_000)
	for i := range benchBids {
		ts := base.Add(time.Duration(i) * 10 * time.Millisecond).Format("2006-01-02 15:04:05.000")
		recs = append(recs, &kgo.Record{Topic: "bids", Partition: int32(i % 12),
			Value: fmt.Appendf(nil, `{"auction": %d, "price": %d, "date_time": "%s"}`, i%1000, 10+(i*37)%990, ts)})
		if len(recs) == cap(recs) || i == benchBids-1 {
			if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
				b.Fatal(err)
			}
			recs = recs[:0]
		}
	}
}

// readAll consumes topic from its start until it has read n records.
func readAll(b *testing.B, brokers, topic string, n int) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(brokers, ",")...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	for got := 0; got < n; {
		fs := cl.PollFetches(context.Background())
		if err := fs.Err0(); err != nil {
			b.Fatal(err)
		}
		got += fs.NumRecords()
	}
}
