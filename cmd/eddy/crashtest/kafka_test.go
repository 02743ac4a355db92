package crashtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec/connector/kafka/kafkatest"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestKafkaCrashHarness runs a Kafka-to-Kafka workload on an in-process
// Kafka cluster (kfake) twice, each run with its own topics: once killed
// at random moments (and with injected task failures), once never. A
// read_committed consumer of the crashed run's sinks must see what it
// sees of the reference run's: the append-only sink's messages exactly
// once each, and the updating sink's latest value of every key.
func TestKafkaCrashHarness(t *testing.T) {
	if testing.Short() {
		t.Skip("the crash harness runs eddy as a child process; not in -short")
	}
	bin := buildEddy(t)
	seed := *crashSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -crash.seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	names := []string{"reference", "crashed"}
	var topics []string
	for _, n := range names {
		topics = append(topics, n+"-in", n+"-out", n+"-agg")
	}
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, topics...))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	brokers := strings.Join(c.ListenAddrs(), ",")
	ref, crashed := newRun(t, bin, names[0]), newRun(t, bin, names[1])
	for _, r := range []*run{ref, crashed} {
		r.exec(t, kafkaSetup(brokers, r.name))
	}
	kills, rounds := 0, 0
	lifetime := maxKillDelay
	for ; kills < *crashN && rounds < 4**crashN+5; rounds++ {
		for _, n := range names {
			kafkaProduce(t, brokers, n+"-in", rounds)
		}
		delay := time.Duration(rng.Int64N(int64(lifetime)))
		killed, ran := crashed.killedDuring(t, "FLUSH;", delay, *crashPanic)
		if killed {
			kills++
		} else {
			lifetime = max(ran, 10*time.Millisecond)
		}
		ref.exec(t, "FLUSH;")
	}
	if kills < *crashN {
		t.Fatalf("only %d of %d processes were killed before they ended", kills, *crashN)
	}
	for _, r := range []*run{ref, crashed} {
		r.exec(t, "FLUSH;")
	}
	want, got := values(committed(t, brokers, "reference-out")), values(committed(t, brokers, "crashed-out"))
	if !slices.Equal(got, want) || len(want) == 0 {
		t.Errorf("after %d kills the append-only sink's committed messages differ (%d vs %d):\n%s",
			kills, len(got), len(want), diff(strings.Join(want, "\n"), strings.Join(got, "\n")))
	}
	wantAgg, gotAgg := latest(committed(t, brokers, "reference-agg")), latest(committed(t, brokers, "crashed-agg"))
	if !slices.Equal(gotAgg, wantAgg) || len(wantAgg) == 0 {
		t.Errorf("after %d kills the updating sink's latest values differ:\n%s", kills, diff(strings.Join(wantAgg, "\n"), strings.Join(gotAgg, "\n")))
	}
	t.Logf("%d kills in %d rounds: %d messages and %d keys identical", kills, rounds, len(want), len(wantAgg))
}

// kafkaSetup creates run name's stream over its input topic and its two
// sinks: an append-only one and an updating one (upserts by key). The
// runs share a cluster, so their sinks' transactional ids must differ.
func kafkaSetup(brokers, name string) string {
	with := fmt.Sprintf("connector = 'kafka', brokers = '%s'", brokers)
	return fmt.Sprintf(`
CREATE STREAM src (id BIGINT, k BIGINT, v BIGINT) WITH (%[1]s, topic = '%[2]s-in');
CREATE SINK o AS SELECT id, k, v FROM src WHERE v %% 3 <> 0 WITH (%[1]s, topic = '%[2]s-out', key_column = 'id', type = 'append-only', transactional_id = '%[2]s-o');
CREATE SINK agg AS SELECT k, COUNT(*) AS n, SUM(v) AS total FROM src GROUP BY k WITH (%[1]s, topic = '%[2]s-agg', key_column = 'k', transactional_id = '%[2]s-agg');
`, with, name)
}

// kafkaProduce writes round r's messages to topic.
func kafkaProduce(t *testing.T, brokers, topic string, r int) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(brokers, ",")...), kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var recs []*kgo.Record
	for i := range 2000 {
		id := r*2000 + i
		recs = append(recs, &kgo.Record{Key: []byte(fmt.Sprint(id % 7)),
			Value: []byte(fmt.Sprintf(`{"id": %d, "k": %d, "v": %d}`, id, id%37, id*7%101))})
	}
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// committed reads topic's committed messages as "key=value@position"
// lines, position being the partition and the offset.
func committed(t *testing.T, brokers, topic string) []string {
	t.Helper()
	var out []string
	for _, r := range kafkatest.ReadCommitted(t, brokers, topic) {
		out = append(out, fmt.Sprintf("%s=%s@%d.%09d", r.Key, r.Value, r.Partition, r.Offset))
	}
	return out
}

// values returns messages from committed without their positions, sorted.
func values(msgs []string) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i], _, _ = strings.Cut(m, "@")
	}
	slices.Sort(out)
	return out
}

// latest returns, for messages from committed, each key's last value (by
// offset in its partition; a key is always in one partition), sorted; a
// key whose last message is a tombstone is left out.
func latest(msgs []string) []string {
	type pos struct {
		val string
		at  string
	}
	last := map[string]pos{}
	for _, m := range msgs {
		kv, at, _ := strings.Cut(m, "@")
		k, v, _ := strings.Cut(kv, "=")
		if p, ok := last[k]; !ok || at > p.at {
			last[k] = pos{v, at}
		}
	}
	var out []string
	for k, p := range last {
		if p.val != "" {
			out = append(out, k+"="+p.val)
		}
	}
	slices.Sort(out)
	return out
}
