package kafka

import (
	"context"
	"fmt"
	"io"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
)

// benchRows is how many JSON messages the benchmarks read: enough that
// the client's start-up is a small part of a run.
const benchRows = 400_000

// benchCluster starts kfake with a one-partition topic holding benchRows
// JSON bids, and returns its brokers.
func benchCluster(b *testing.B) []string {
	b.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "bids"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	brokers := c.ListenAddrs()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.DefaultProduceTopic("bids"), kgo.ProducerLinger(0))
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	for i := range benchRows {
		v := fmt.Sprintf(`{"auction": %d, "bidder": %d, "price": %d, "channel": "channel-%d", "date_time": %d}`,
			1000+i%977, 2000+i%1013, 100+i%10007, i%10, 1_700_000_000_000+int64(i))
		cl.Produce(context.Background(), &kgo.Record{Value: []byte(v)}, func(_ *kgo.Record, err error) {
			if err != nil {
				b.Error(err)
			}
		})
	}
	if err := cl.Flush(context.Background()); err != nil {
		b.Fatal(err)
	}
	return brokers
}

// cpuTime returns the CPU time the process has used, user and system: a
// run's rows per CPU second are its rows per second on one core (kfake's
// own work, in the same process, included).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkConsume compares, on one kfake topic of JSON bids, the bare
// client consuming the messages (Baseline) with the Kafka source reading
// them into typed Arrow chunks (SourceJSON), in rows per second and rows
// per CPU second.
//
//	go test ./exec/connector/kafka -run '^$' -bench Consume -benchtime 3x
func BenchmarkConsume(b *testing.B) {
	brokers := benchCluster(b)
	b.Run("Baseline", func(b *testing.B) {
		cpu := cpuTime()
		for b.Loop() {
			cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...),
				kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{"bids": {0: kgo.NewOffset().AtStart()}}))
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for n < benchRows {
				fs := cl.PollRecords(context.Background(), pollRecords)
				fs.EachRecord(func(*kgo.Record) { n++ })
			}
			cl.Close()
		}
		b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		b.ReportMetric(float64(benchRows)*float64(b.N)/(cpuTime()-cpu).Seconds(), "rows/cpu-s")
	})
	b.Run("SourceJSON", func(b *testing.B) {
		cols := []catalog.Column{{Name: "auction", Type: types.BigIntT}, {Name: "bidder", Type: types.BigIntT},
			{Name: "price", Type: types.BigIntT}, {Name: "channel", Type: types.VarcharT}, {Name: "date_time", Type: types.TimestampT(3)}}
		opts := map[string]string{"brokers": strings.Join(brokers, ","), "topic": "bids", "format": "json"}
		cfg, err := FromOptions(opts, cols, nil)
		if err != nil {
			b.Fatal(err)
		}
		cpu := cpuTime()
		for b.Loop() {
			src := New(cfg, true)
			if err := src.Open(context.Background(), exec.NewTestEnv(memory.DefaultAllocator)); err != nil {
				b.Fatal(err)
			}
			n := 0
			for {
				c, err := src.Next(context.Background())
				if err == io.EOF {
					break
				}
				if err == exec.ErrCaughtUp {
					if err := src.Wait(context.Background()); err != nil {
						b.Fatal(err)
					}
					continue
				}
				if err != nil {
					b.Fatal(err)
				}
				n += c.NumRows()
				c.Batch.Release()
			}
			src.Close()
			if n != benchRows {
				b.Fatalf("read %d rows, want %d", n, benchRows)
			}
		}
		b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		b.ReportMetric(float64(benchRows)*float64(b.N)/(cpuTime()-cpu).Seconds(), "rows/cpu-s")
	})
}
