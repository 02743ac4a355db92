package kafkastate

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/eddysql/eddy/storage"
)

// cluster is an in-process Kafka cluster (kfake) for a test, closed when
// the test ends, with a compacted state topic of parts partitions.
type cluster struct {
	*kfake.Cluster
	brokers []string
	topic   string
}

// newCluster starts a cluster of one broker with the state topic "state"
// of parts partitions, created by CreateTopic.
func newCluster(t testing.TB, parts int32) *cluster {
	t.Helper()
	return newClusterOf(t, 1, parts)
}

// newClusterOf is newCluster of n brokers.
func newClusterOf(t testing.TB, n int, parts int32) *cluster {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(n))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cl := &cluster{Cluster: c, brokers: c.ListenAddrs(), topic: "state"}
	adm := cl.admin(t)
	if err := CreateTopic(context.Background(), adm, cl.topic, parts); err != nil {
		t.Fatal(err)
	}
	return cl
}

// admin returns an admin client of c, closed when the test ends.
func (c *cluster) admin(t testing.TB) *kadm.Client {
	t.Helper()
	kc, err := kgo.NewClient(kgo.SeedBrokers(c.brokers...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(kc.Close)
	return kadm.NewClient(kc)
}

// config returns the store configuration of partition part, with the
// transactional id every owner of the partition shares.
func (c *cluster) config(part int32) Config {
	return Config{Brokers: c.brokers, Topic: c.topic, Partition: part, TransactionalID: fmt.Sprintf("eddy-test-%s-%d", c.topic, part)}
}

// open opens the store of partition part, closed when the test ends.
func (c *cluster) open(t testing.TB, part int32) *Store {
	t.Helper()
	s, err := Open(context.Background(), c.config(part))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// tableOf returns s's table name.
func tableOf(t testing.TB, s storage.StateStore, name string) storage.StateTable {
	t.Helper()
	tbl, err := s.Table(name, storage.TableOptions{})
	must(t, err)
	return tbl
}

// dump returns tbl's keys with the prefix and their values as "k=v", in
// scan order.
func dump(t testing.TB, tbl storage.StateTable, prefix string) []string {
	t.Helper()
	var out []string
	must(t, tbl.Scan([]byte(prefix), func(k, v []byte) error {
		out = append(out, string(k)+"="+string(v))
		return nil
	}))
	return out
}

// expect checks that tbl holds exactly want ("k=v" in key order).
func expect(t testing.TB, what string, tbl storage.StateTable, want ...string) {
	t.Helper()
	if got := dump(t, tbl, ""); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("%s: table holds %q, want %q", what, got, want)
	}
}

// sortedKV returns m as "k=v" in key order.
func sortedKV(m map[string]string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, k+"="+m[k])
	}
	return out
}

// committed returns the records committed to c's partition part, read
// as the store reads them.
func committed(t testing.TB, c *cluster, part int32) []*kgo.Record {
	t.Helper()
	ctx := context.Background()
	kc, err := kgo.NewClient(kgo.SeedBrokers(c.brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer kc.Close()
	p := &partition{cl: kc, topic: c.topic, part: part}
	start, err := p.listOffset(ctx, 0, -2)
	must(t, err)
	end, err := p.settledEnd(ctx)
	must(t, err)
	var out []*kgo.Record
	must(t, p.read(ctx, start, end, func(r *kgo.Record) error {
		out = append(out, r)
		return nil
	}))
	return out
}
