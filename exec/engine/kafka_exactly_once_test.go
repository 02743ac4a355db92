package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec/dataflow"
)

// TestKafkaExactlyOnce: a checkpointed query from a Kafka topic to a Kafka
// sink publishes its rows in transactions committed with its checkpoints
// (FLUSH takes one): a read_committed consumer sees none of the rows a
// checkpoint has not covered; after a crash the query resumes from the
// offsets its last checkpoint recorded (twice: it crashes again before
// its next checkpoint), the crashed run's open transaction is aborted,
// and the consumer sees every row exactly once,
// as a run without the crash writes them; after a clean restart it goes
// on where it stopped.
func TestKafkaExactlyOnce(t *testing.T) {
	brokers := kafkaCluster(t, 2, "in", "out")
	cfg := Config{DataDir: filepath.Join(t.TempDir(), "data"), Parallelism: 2, CheckpointInterval: time.Hour}
	e := openEngine(t, cfg)
	s := e.NewSession(SessionOptions{})
	with := `connector = 'kafka', brokers = '` + brokers + `'`
	run(t, s, `CREATE STREAM src (id BIGINT, v VARCHAR) WITH (`+with+`, topic = 'in', format = 'json');
		CREATE SINK o AS SELECT id, v FROM src WHERE id > 0 WITH (`+with+`, topic = 'out', key_column = 'id', type = 'append-only');`)
	if got := showRow(t, s, "SINKS", "o"); !strings.Contains(got, "| exactly-once |") {
		t.Errorf("SHOW SINKS: %s", got)
	}
	produce(t, brokers, "in", kmsg{0, "", `{"id": 1, "v": "a"}`}, kmsg{1, "", `{"id": 2, "v": "b"}`}, kmsg{0, "", `{"id": -1, "v": "x"}`})
	run(t, s, "FLUSH;")
	want := []string{`1={"id":1,"v":"a"}`, `2={"id":2,"v":"b"}`}
	if got := consumeCommitted(t, brokers, "out"); !slices.Equal(got, want) {
		t.Fatalf("after FLUSH the topic holds %q, want %q", got, want)
	}
	// Rows that reach the sink without a checkpoint stay uncommitted.
	produce(t, brokers, "in", kmsg{1, "", `{"id": 3, "v": "c"}`}, kmsg{0, "", `{"id": 4, "v": "d"}`})
	if _, err := e.flushAll(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if got := consumeCommitted(t, brokers, "out"); !slices.Equal(got, want) {
		t.Fatalf("uncommitted rows are visible: %q", got)
	}
	e, s = crash(t, e, cfg)
	// A second crash before any checkpoint: the next restore is from the
	// same checkpoint, whose transaction the first one committed.
	e, s = crash(t, e, cfg)
	run(t, s, "FLUSH;")
	want = append(want, `3={"id":3,"v":"c"}`, `4={"id":4,"v":"d"}`)
	slices.Sort(want)
	if got := consumeCommitted(t, brokers, "out"); !slices.Equal(got, want) {
		t.Fatalf("after the crash the topic holds %q, want %q", got, want)
	}
	produce(t, brokers, "in", kmsg{1, "", `{"id": 5, "v": "e"}`})
	e, s = restart(t, e, cfg)
	produce(t, brokers, "in", kmsg{0, "", `{"id": 6, "v": "f"}`})
	run(t, s, "FLUSH;")
	want = append(want, `5={"id":5,"v":"e"}`, `6={"id":6,"v":"f"}`)
	slices.Sort(want)
	if got := consumeCommitted(t, brokers, "out"); !slices.Equal(got, want) {
		t.Fatalf("after the restart the topic holds %q, want %q", got, want)
	}
	_ = e
}

// TestKafkaSinkUpserts: an updating query's sink writes each key's new
// value as an upsert and a deleted key as a tombstone.
func TestKafkaSinkUpserts(t *testing.T) {
	brokers := kafkaCluster(t, 1, "counts")
	s := newSession(t, Config{Parallelism: 1})
	run(t, s, `CREATE STREAM s (k VARCHAR, n INT);
		CREATE SINK o AS SELECT k, COUNT(*) AS c FROM s GROUP BY k HAVING COUNT(*) < 3
		WITH (connector = 'kafka', brokers = '`+brokers+`', topic = 'counts', key_column = 'k');
		INSERT INTO s VALUES ('a', 1), ('b', 1); FLUSH;
		INSERT INTO s VALUES ('a', 2); FLUSH;
		INSERT INTO s VALUES ('a', 3); FLUSH;`)
	got := consumeCommitted(t, brokers, "counts")
	want := []string{`a=<nil>`, `a={"k":"a","c":1}`, `a={"k":"a","c":2}`, `b={"k":"b","c":1}`}
	if !slices.Equal(got, want) {
		t.Errorf("topic holds %q, want %q", got, want)
	}
}

// TestKafkaFailedQueryRecovers: a Kafka-to-Kafka query checkpointed every
// few milliseconds fails three times (an injected panic in a task) while
// messages arrive; each time it restarts from its last checkpoint within
// the running engine, and a read_committed consumer of its sink sees
// every row exactly once.
func TestKafkaFailedQueryRecovers(t *testing.T) {
	brokers := kafkaCluster(t, 2, "in", "out")
	cfg := Config{DataDir: filepath.Join(t.TempDir(), "data"), Parallelism: 2, CheckpointInterval: 5 * time.Millisecond}
	e := openEngine(t, cfg)
	defer e.Close()
	s := e.NewSession(SessionOptions{})
	with := `connector = 'kafka', brokers = '` + brokers + `'`
	run(t, s, `CREATE STREAM src (id BIGINT, v VARCHAR) WITH (`+with+`, topic = 'in');
		CREATE SINK o AS SELECT id, v FROM src WHERE id % 2 = 0 WITH (`+with+`, topic = 'out', key_column = 'id', type = 'append-only');`)
	var want []string
	for i := range 60 {
		if i%20 == 10 {
			dataflow.InjectTestPanics(1)
		}
		var msgs []kmsg
		for j := range 10 {
			id := i*10 + j
			msgs = append(msgs, kmsg{int32(id % 2), "", fmt.Sprintf(`{"id": %d, "v": "r%d"}`, id, i)})
			if id%2 == 0 {
				want = append(want, fmt.Sprintf(`%d={"id":%d,"v":"r%d"}`, id, id, i))
			}
		}
		produce(t, brokers, "in", msgs...)
		time.Sleep(time.Millisecond)
	}
	dataflow.ResetTestPanics()
	if n := e.recovery.done.Load(); n == 0 {
		t.Fatal("no task failed: the test tested nothing")
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := execOne(t, s, "FLUSH;")
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("FLUSH after the failures: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	slices.Sort(want)
	if got := consumeCommitted(t, brokers, "out"); !slices.Equal(got, want) {
		t.Fatalf("the topic holds %d committed rows, want %d (duplicates or losses):\n%s", len(got), len(want), firstDiff(want, got))
	}
}

// firstDiff shows where two sorted lists first differ.
func firstDiff(want, got []string) string {
	for i := 0; i < len(want) || i < len(got); i++ {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			return fmt.Sprintf("at %d: want %q, got %q", i, w, g)
		}
	}
	return "(same)"
}

// TestKafkaDropSinkAbortsItsTransaction: dropping a checkpointed sink
// aborts the transaction no checkpoint staged, so read_committed
// consumers see the messages written after it at once rather than after
// the transaction's timeout.
func TestKafkaDropSinkAbortsItsTransaction(t *testing.T) {
	brokers := kafkaCluster(t, 1, "in", "out")
	cfg := Config{DataDir: filepath.Join(t.TempDir(), "data"), Parallelism: 1, CheckpointInterval: time.Hour}
	e := openEngine(t, cfg)
	s := e.NewSession(SessionOptions{})
	with := `connector = 'kafka', brokers = '` + brokers + `'`
	run(t, s, `CREATE STREAM src (id BIGINT) WITH (`+with+`, topic = 'in');
		CREATE SINK o AS SELECT id FROM src WITH (`+with+`, topic = 'out', key_column = 'id', type = 'append-only');`)
	produce(t, brokers, "in", kmsg{0, "", `{"id": 1}`})
	run(t, s, "FLUSH;")
	produce(t, brokers, "in", kmsg{0, "", `{"id": 2}`})
	if _, err := e.flushAll(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	run(t, s, "DROP SINK o;")
	produce(t, brokers, "out", kmsg{0, "z", "after"})
	want := []string{`1={"id":1}`, `z=after`}
	if got := consumeCommitted(t, brokers, "out"); !slices.Equal(got, want) {
		t.Errorf("read_committed sees %q, want %q", got, want)
	}
}
