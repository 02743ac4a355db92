package engine

import (
	"strings"
	"testing"
)

// TestKafkaSourceJSON: a JSON topic of two partitions read by a pull
// query (up to the end offsets as of the query) and by a view kept up to
// date by FLUSH; a malformed message is skipped, counted and reported by
// partition and offset; metadata columns hold the key, partition and
// offset.
func TestKafkaSourceJSON(t *testing.T) {
	brokers := kafkaCluster(t, 2, "bids")
	produce(t, brokers, "bids",
		kmsg{0, "a", `{"id": 1, "price": 10}`},
		kmsg{1, "b", `{"id": 2, "price": 20}`},
		kmsg{0, "c", `{"id": 3, "price": "x"}`},
		kmsg{1, "d", `{"id": 4, "price": 40}`})
	s := newSession(t, Config{Parallelism: 2})
	run(t, s, `CREATE STREAM bids (id BIGINT, price BIGINT, k VARCHAR, p INT, o BIGINT)
		WITH (connector = 'kafka', brokers = '`+brokers+`', topic = 'bids', format = 'json',
		      key_column = 'k', partition_column = 'p', offset_column = 'o');`)
	res := run(t, s, `SELECT id, price, k, p, o FROM bids ORDER BY id;`)
	if got, want := text(res), "1 | 10 | a | 0 | 0\n2 | 20 | b | 1 | 0\n4 | 40 | d | 1 | 1\n"; got != want {
		t.Fatalf("pull query:\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(strings.Join(res.Notices, "\n"), "bids[0]@1: column price") {
		t.Errorf("no notice of the bad message: %q", res.Notices)
	}
	run(t, s, `CREATE MATERIALIZED VIEW total AS SELECT COUNT(*) AS n, SUM(price) AS s FROM bids; FLUSH;`)
	if got := text(run(t, s, `SELECT n, s FROM total;`)); got != "3 | 70\n" {
		t.Fatalf("view: %s", got)
	}
	produce(t, brokers, "bids", kmsg{0, "e", `{"id": 5, "price": 50}`})
	run(t, s, `FLUSH;`)
	if got := text(run(t, s, `SELECT n, s FROM total;`)); got != "4 | 120\n" {
		t.Fatalf("view after FLUSH: %s", got)
	}
}
