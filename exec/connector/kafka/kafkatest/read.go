package kafkatest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// readTimeout bounds how long ReadCommitted waits for a topic's records.
const readTimeout = 2 * time.Minute

// ReadCommitted reads topic's committed records (read_committed) up to
// each partition's last stable offset at the call, each partition's in
// order. It stops on reaching those offsets, not on a quiet poll, so a
// slow broker or a loaded machine cannot cut the read short; it fails the
// test if they are not reached within two minutes.
func ReadCommitted(tb testing.TB, brokers, topic string) []*kgo.Record {
	tb.Helper()
	// Control records (transaction markers) are kept so the read sees
	// every offset up to the end, an aborted transaction's included.
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(brokers, ",")...), kgo.ConsumeTopics(topic),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.KeepControlRecords())
	if err != nil {
		tb.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	ends, err := kadm.NewClient(cl).ListCommittedOffsets(ctx, topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		tb.Fatalf("listing %s's end offsets: %v", topic, err)
	}
	left := map[int32]int64{} // partition → offset still to reach
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset > 0 {
			left[o.Partition] = o.Offset
		}
	})
	var out []*kgo.Record
	for len(left) > 0 {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			tb.Fatalf("reading %s: offsets %v not reached in %v", topic, left, readTimeout)
		}
		fs.EachError(func(_ string, p int32, err error) {
			tb.Fatalf("reading %s partition %d: %v", topic, p, err)
		})
		fs.EachRecord(func(r *kgo.Record) {
			if end, ok := left[r.Partition]; ok && r.Offset+1 >= end {
				delete(left, r.Partition)
			}
			if r.Offset+1 > ends[topic][r.Partition].Offset || r.Attrs.IsControl() {
				return
			}
			out = append(out, r)
		})
	}
	return out
}
