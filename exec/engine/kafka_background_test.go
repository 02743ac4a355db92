package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/eddysql/eddy/exec/dataflow"
)

// TestKafkaViewAnswersWhileItsStateRestores: a view over a Kafka stream,
// resumed with no message past its checkpoint's offsets (the source lists
// the partitions' end offsets when it seeks), answers from its rows while
// its aggregate restores; resumed with messages produced while eddy was
// down, it restores all its state and catches up before it answers.
func TestKafkaViewAnswersWhileItsStateRestores(t *testing.T) {
	brokers := kafkaCluster(t, 2, "in")
	e, s, cfg := checkpointedEngine(t, 2)
	with := `connector = 'kafka', brokers = '` + brokers + `'`
	run(t, s, `CREATE STREAM src (k BIGINT, v BIGINT) WITH (`+with+`, topic = 'in', format = 'json');
		CREATE MATERIALIZED VIEW c AS SELECT k, COUNT(*) AS n, SUM(v) AS total FROM src GROUP BY k;`)
	var msgs []kmsg
	for i := range 20 {
		msgs = append(msgs, kmsg{int32(i % 2), "", fmt.Sprintf(`{"k": %d, "v": %d}`, i%3, i)})
	}
	produce(t, brokers, "in", msgs...)
	run(t, s, "FLUSH;")
	want := "0 | 7 | 63\n1 | 7 | 70\n2 | 6 | 57\n"
	if got := sorted(text(run(t, s, "SELECT * FROM c;"))); got != want {
		t.Fatalf("c holds\n%s\nwant\n%s", got, want)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	release := dataflow.HoldRestores()
	e, s = reopen(t, cfg)
	if q := query(e, "c"); q == nil || !q.restoring() {
		release()
		t.Fatal("c, over a topic with nothing past its offsets, does not restore in the background")
	}
	res := run(t, s, "SELECT * FROM c;")
	release()
	if got := sorted(text(res)); got != want {
		t.Errorf("c while restoring holds\n%s\nwant\n%s", got, want)
	}
	wantNotice(t, res, "materialized view c resumed from its checkpoint", "it answers from its rows while the rest of its state")
	produce(t, brokers, "in", kmsg{0, "", `{"k": 0, "v": 100}`})
	run(t, s, "FLUSH;")
	want = "0 | 8 | 163\n1 | 7 | 70\n2 | 6 | 57\n"
	if got := sorted(text(run(t, s, "SELECT * FROM c;"))); got != want {
		t.Errorf("c after the restore and a new message holds\n%s\nwant\n%s", got, want)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	// A message produced while eddy is down: the view catches up first.
	produce(t, brokers, "in", kmsg{1, "", `{"k": 2, "v": 1000}`})
	e, s = reopen(t, cfg)
	if q := query(e, "c"); q.background || q.restoring() {
		t.Error("c, with a message to catch up on, restored in the background")
	}
	res = run(t, s, "SELECT * FROM c;")
	if strings.Contains(strings.Join(res.Notices, "\n"), "answers from its rows") {
		t.Errorf("c said it answers while restoring: %q", res.Notices)
	}
	want = "0 | 8 | 163\n1 | 7 | 70\n2 | 7 | 1057\n"
	if got := sorted(text(res)); got != want {
		t.Errorf("c after catching up holds\n%s\nwant\n%s", got, want)
	}
}
