package engine

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec/connector/kafka/kafkatest"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// kafkaCluster starts an in-process Kafka cluster (kfake) with the given
// topics of parts partitions each, closed when t ends, and returns its
// brokers option.
func kafkaCluster(t testing.TB, parts int32, topics ...string) string {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(parts, topics...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return strings.Join(c.ListenAddrs(), ",")
}

// kmsg is a message to produce: a partition, a key ("" for none) and a
// value ("" for none: a tombstone).
type kmsg struct {
	part  int32
	key   string
	value string
}

// produce writes msgs to topic, each to its partition, and waits for
// them.
func produce(t *testing.T, brokers, topic string, msgs ...kmsg) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(brokers, ",")...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	recs := make([]*kgo.Record, len(msgs))
	for i, m := range msgs {
		recs[i] = &kgo.Record{Topic: topic, Partition: m.part, Timestamp: time.UnixMilli(1_700_000_000_000 + int64(i))}
		if m.value != "" {
			recs[i].Value = []byte(m.value)
		}
		if m.key != "" {
			recs[i].Key = []byte(m.key)
		}
	}
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// consumeCommitted reads topic's committed messages (read_committed) up
// to its end offsets, as "key=value" lines sorted (a tombstone's value is
// "<nil>").
func consumeCommitted(t *testing.T, brokers, topic string) []string {
	t.Helper()
	var out []string
	for _, r := range readCommitted(t, brokers, topic) {
		v := string(r.Value)
		if r.Value == nil {
			v = "<nil>"
		}
		out = append(out, string(r.Key)+"="+v)
	}
	slices.Sort(out)
	return out
}

// readCommitted reads topic's committed records (read_committed) up to
// its end offsets, each partition's in order.
func readCommitted(t *testing.T, brokers, topic string) []*kgo.Record {
	t.Helper()
	return kafkatest.ReadCommitted(t, brokers, topic)
}
