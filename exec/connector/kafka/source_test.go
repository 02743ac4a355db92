package kafka

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/position"
	"github.com/eddysql/eddy/exec/internal/position/postest"
)

// testTopic starts kfake with topic "t" of parts partitions holding n
// JSON messages {"id": i} (message i in partition i mod parts), and
// returns the brokers.
func testTopic(t *testing.T, parts int32, n int) []string {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(parts, "t"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	produceIDs(t, c.ListenAddrs(), parts, 0, n)
	return c.ListenAddrs()
}

// produceIDs writes to topic t of parts partitions the JSON messages
// {"id": i} for i in [from, from+n), message i in partition i mod parts.
func produceIDs(t *testing.T, brokers []string, parts int32, from, n int) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var recs []*kgo.Record
	for i := from; i < from+n; i++ {
		recs = append(recs, &kgo.Record{Topic: "t", Partition: int32(i) % parts, Value: []byte(fmt.Sprintf(`{"id": %d}`, i))})
	}
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// openSource opens instance inst of p of a source of topic t with one
// BIGINT column id, in batches of batch rows.
func openSource(t testing.TB, brokers []string, snapshot bool, inst, p, batch int) *Source {
	t.Helper()
	cols := []catalog.Column{{Name: "id", Type: types.BigIntT}}
	cfg, err := FromOptions(map[string]string{"brokers": strings.Join(brokers, ","), "topic": "t"}, cols, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.BatchSize = batch
	s := New(cfg, snapshot)
	env := exec.NewTestEnv(memory.DefaultAllocator)
	env.Instance, env.Parallelism = inst, p
	if err := s.Open(context.Background(), env); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// readIDs reads s's chunks until it has want rows or it ends, and returns
// the ids.
func readIDs(t *testing.T, s *Source, want int) []int64 {
	t.Helper()
	var ids []int64
	for len(ids) < want {
		c, err := s.Next(context.Background())
		switch {
		case err == io.EOF:
			return ids
		case errors.Is(err, exec.ErrCaughtUp):
			if err := s.Wait(context.Background()); err != nil {
				t.Fatal(err)
			}
			continue
		case err != nil:
			t.Fatal(err)
		}
		ids = append(ids, c.Batch.Column(0).(*array.Int64).Int64Values()...)
		c.Batch.Release()
	}
	return ids
}

// TestSplitsAndSnapshot: two instances read disjoint partitions (p mod
// 2) and together every message, each to the end offsets as of Open.
func TestSplitsAndSnapshot(t *testing.T) {
	brokers := testTopic(t, 3, 30)
	var all []int64
	for inst := range 2 {
		s := openSource(t, brokers, true, inst, 2, 4)
		for _, id := range readIDs(t, s, 1000) {
			if p := int(id % 3); p%2 != inst {
				t.Errorf("instance %d read id %d of partition %d", inst, id, p)
			}
			all = append(all, id)
		}
	}
	slices.Sort(all)
	if len(all) != 30 || all[0] != 0 || all[29] != 29 {
		t.Errorf("read %v", all)
	}
}

// TestPositionAndSeek: a source resumed at another's position reads on
// from it, nothing twice and nothing lost; a position of another split
// or topic is refused.
func TestPositionAndSeek(t *testing.T) {
	brokers := testTopic(t, 2, 40)
	a := openSource(t, brokers, true, 0, 1, 5)
	first := readIDs(t, a, 15)
	pos, err := a.Position()
	if err != nil {
		t.Fatal(err)
	}
	b := openSource(t, brokers, true, 0, 1, 5)
	if err := b.Seek(context.Background(), pos); err != nil {
		t.Fatal(err)
	}
	rest := readIDs(t, b, 1000)
	all := slices.Sorted(slices.Values(append(first, rest...)))
	if len(all) != 40 || slices.Compact(all)[39] != 39 {
		t.Errorf("read %d rows across the seek: %v", len(all), all)
	}
	other := openSource(t, brokers, true, 1, 2, 5)
	var pe *position.Error
	if err := other.Seek(context.Background(), pos); !errors.As(err, &pe) || !strings.Contains(err.Error(), "split 0 of 1, not 1 of 2") {
		t.Errorf("seek to another split's position: %v", err)
	}
	w := position.NewWriter(positionTag)
	w.String("u")
	w.Uint(0)
	w.Uint(1)
	w.Uint(0)
	c := openSource(t, brokers, true, 0, 1, 5)
	if err := c.Seek(context.Background(), w.Bytes()); !errors.As(err, &pe) || !strings.Contains(err.Error(), `topic "u"`) {
		t.Errorf("seek to another topic's position: %v", err)
	}
}

// TestExhaustedAfterSeek: an unbounded source seeked to the position
// where another read every message is exhausted (it listed the end
// offsets when it seeked); one seeked after the first chunk is not, nor,
// once a message was produced since, one seeked to the same end.
func TestExhaustedAfterSeek(t *testing.T) {
	brokers := testTopic(t, 2, 40)
	first := func(t testing.TB) exec.Positioned { return openSource(t, brokers, true, 0, 1, 5) }
	resumed := func(t testing.TB) exec.Positioned { return openSource(t, brokers, false, 0, 1, 5) }
	postest.ExhaustedAtEnd(t, first, resumed)

	a := openSource(t, brokers, true, 0, 1, 5)
	if ids := readIDs(t, a, 1000); len(ids) != 40 {
		t.Fatalf("read %d messages, want 40", len(ids))
	}
	pos, err := a.Position()
	if err != nil {
		t.Fatal(err)
	}
	produceIDs(t, brokers, 2, 40, 1)
	b := openSource(t, brokers, false, 0, 1, 5)
	if err := b.Seek(context.Background(), pos); err != nil {
		t.Fatal(err)
	}
	if b.Exhausted() {
		t.Error("seeked to the old end after a message was produced, the source is exhausted")
	}
	if ids := readIDs(t, b, 1); !slices.Equal(ids, []int64{40}) {
		t.Errorf("read on %v, want [40]", ids)
	}
	if fresh := openSource(t, brokers, false, 0, 1, 5); fresh.Exhausted() {
		t.Error("a source never seeked is exhausted")
	}
}

// TestEventTimeBound: the bound is the least largest event time over the
// partitions not idle; a partition without rows holds it back until it is
// idle.
func TestEventTimeBound(t *testing.T) {
	s := &Source{parts: []int32{0, 1, 2}}
	t0 := time.Unix(1000, 0)
	s.et.open(3, t0)
	s.et.idle = time.Second
	if _, ok := s.EventTimeBound(t0); ok {
		t.Error("a bound before any row")
	}
	s.et.max[0], s.et.max[1] = 50, 30
	if _, ok := s.EventTimeBound(t0.Add(500 * time.Millisecond)); ok {
		t.Error("a bound while partition 2, without rows, is not idle")
	}
	s.et.last[0], s.et.last[1] = t0.Add(900*time.Millisecond), t0.Add(900*time.Millisecond)
	if b, ok := s.EventTimeBound(t0.Add(time.Second)); !ok || b != 30 {
		t.Errorf("bound %d, %v; want 30 once partition 2 is idle", b, ok)
	}
	if b, ok := s.EventTimeBound(t0.Add(1800 * time.Millisecond)); !ok || b != 30 {
		t.Errorf("bound %d, %v; want 30", b, ok)
	}
	if _, ok := s.EventTimeBound(t0.Add(3 * time.Second)); ok {
		t.Error("a bound when every partition is idle")
	}
}

// TestProgress: the source reports the offsets it read and the messages
// known to follow them.
func TestProgress(t *testing.T) {
	brokers := testTopic(t, 1, 20)
	s := openSource(t, brokers, true, 0, 1, 5)
	readIDs(t, s, 5)
	m := s.env.Metrics
	if read, backlog := m.InputRead.Load(), m.InputBacklog.Load(); read != 5 || backlog != 15 {
		t.Errorf("after 5 of 20 messages: read %d, backlog %d", read, backlog)
	}
	readIDs(t, s, 100)
	if read, backlog := m.InputRead.Load(), m.InputBacklog.Load(); read != 20 || backlog != 0 {
		t.Errorf("at the end: read %d, backlog %d", read, backlog)
	}
}
