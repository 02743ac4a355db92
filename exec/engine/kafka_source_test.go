package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
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

// TestKafkaSourceJSONPaths: a column may come from a path of each JSON
// message, and a JSON column keeps a nested value.
func TestKafkaSourceJSONPaths(t *testing.T) {
	brokers := kafkaCluster(t, 1, "events")
	produce(t, brokers, "events",
		kmsg{0, "a", `{"id": 1, "geo": {"country": "NL"}, "tags": ["x", "y"]}`},
		kmsg{0, "b", `{"id": 2, "tags": []}`})
	s := newSession(t, Config{Parallelism: 1})
	run(t, s, `CREATE STREAM events (id BIGINT, country VARCHAR WITH (path = '$.geo.country'), tags JSON)
		WITH (connector = 'kafka', brokers = '`+brokers+`', topic = 'events');`)
	if got, want := text(run(t, s, `SELECT id, country, tags FROM events ORDER BY id;`)), "1 | NL | [\"x\", \"y\"]\n2 | NULL | []\n"; got != want {
		t.Fatalf("pull query:\n%s\nwant\n%s", got, want)
	}
	if _, err := execOne(t, s, `CREATE STREAM raw_events (v VARCHAR WITH (path = '$.a'))
		WITH (connector = 'kafka', brokers = '`+brokers+`', topic = 'events', format = 'raw');`); err == nil || !strings.Contains(err.Error(), "a path needs a source that reads JSON messages") {
		t.Fatalf("a path over raw messages: %v", err)
	}
}

// TestKafkaSourceFormats: CSV and raw values, a timestamp and headers
// metadata column, startup = 'latest', and on_error = 'fail', which stops
// the query at the bad message with its partition and offset.
func TestKafkaSourceFormats(t *testing.T) {
	brokers := kafkaCluster(t, 1, "csv", "raw", "late")
	produce(t, brokers, "csv", kmsg{0, "", "1,one"}, kmsg{0, "", "2"}, kmsg{0, "", `3,"th,ree"`})
	produce(t, brokers, "raw", kmsg{0, "", "hello"}, kmsg{0, "", "\xff"}, kmsg{0, "", "world"})
	produce(t, brokers, "late", kmsg{0, "", `{"v": "old"}`})
	s := newSession(t, Config{Parallelism: 1})
	with := `connector = 'kafka', brokers = '` + brokers + `'`
	run(t, s, `CREATE STREAM c (id INT, name VARCHAR) WITH (`+with+`, topic = 'csv', format = 'csv');
		CREATE STREAM r (line VARCHAR, ts TIMESTAMP(3), h VARCHAR) WITH (`+with+`, topic = 'raw', format = 'raw', timestamp_column = 'ts', headers_column = 'h');
		CREATE STREAM l (v VARCHAR) WITH (`+with+`, topic = 'late', startup = 'latest');
		CREATE STREAM f (id INT, name VARCHAR) WITH (`+with+`, topic = 'csv', format = 'csv', on_error = 'fail');`)
	res := run(t, s, `SELECT id, name FROM c ORDER BY id;`)
	if got, want := text(res), "1 | one\n3 | th,ree\n"; got != want {
		t.Errorf("csv:\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(strings.Join(res.Notices, "\n"), "csv[0]@1: expected 2 fields, got 1") {
		t.Errorf("csv notices: %q", res.Notices)
	}
	if got, want := text(run(t, s, `SELECT line, ts, h FROM r;`)), "hello | 2023-11-14 22:13:20.000 | {}\nworld | 2023-11-14 22:13:20.002 | {}\n"; got != want {
		t.Errorf("raw:\n%s\nwant\n%s", got, want)
	}
	if got := text(run(t, s, `SELECT v FROM l;`)); got != "" {
		t.Errorf("startup = 'latest' read %q", got)
	}
	if _, err := execOne(t, s, `SELECT id FROM f;`); err == nil || !strings.Contains(err.Error(), "csv[0]@1: expected 2 fields, got 1") {
		t.Errorf("on_error = 'fail': %v", err)
	}
}

// TestKafkaSourceCreateErrors: CREATE STREAM and CREATE SINK refuse a
// topic that does not exist and options that do not fit the columns or
// the query.
func TestKafkaSourceCreateErrors(t *testing.T) {
	brokers := kafkaCluster(t, 1, "t")
	s := newSession(t, Config{Parallelism: 1})
	run(t, s, `CREATE STREAM s (v VARCHAR);`)
	with := `connector = 'kafka', brokers = '` + brokers + `'`
	for _, tc := range []struct{ stmt, want string }{
		{`CREATE STREAM x (v VARCHAR) WITH (` + with + `, topic = 'nope');`, `option topic: topic "nope" does not exist`},
		{`CREATE STREAM x (v VARCHAR, n INT) WITH (` + with + `, topic = 't', format = 'raw');`, `'raw' reads the message into one VARCHAR column`},
		{`CREATE STREAM x (v VARCHAR) WITH (` + with + `, topic = 't', key_column = 'k');`, `option key_column: no column 'k'`},
		{`CREATE STREAM x (v VARCHAR) WITH (` + with + `, topic = 't', format = 'upsert-json');`, `'upsert-json' is a changelog: read it into a CREATE TABLE`},
		{`CREATE STREAM x (v VARCHAR) WITH (` + with + `, topic = 't', startup = 'timestamp');`, `needs a startup_timestamp`},
		{`CREATE SINK o AS SELECT v FROM s WITH (` + with + `, topic = 'nope');`, `option topic: topic "nope" does not exist`},
		{`CREATE SINK o AS SELECT v, COUNT(*) AS n FROM s GROUP BY v WITH (` + with + `, topic = 't');`, `option key_column: is required for an updating query`},
		{`CREATE SINK o AS SELECT v FROM s WITH (` + with + `, topic = 't', key_column = 'w');`, `option key_column: no column 'w'`},
	} {
		if _, err := execOne(t, s, tc.stmt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.stmt, err, tc.want)
		}
	}
}

// TestKafkaTableUpsertJSON: a table over an upsert-json topic holds each
// key's latest value; a tombstone deletes its key; the key is read from
// the message key as the primary key's text (as the Kafka sink writes
// it).
func TestKafkaTableUpsertJSON(t *testing.T) {
	brokers := kafkaCluster(t, 2, "users")
	produce(t, brokers, "users",
		kmsg{0, "1", `{"name": "ann", "city": "Oslo"}`},
		kmsg{1, "2", `{"name": "bob", "city": "Rome"}`},
		kmsg{0, "1", `{"name": "ann", "city": "Bergen"}`},
		kmsg{1, "3", `{"name": "cy", "city": "Nice"}`},
		kmsg{1, "2", ""},
		kmsg{0, "x", `{"name": "bad"}`})
	s := newSession(t, Config{Parallelism: 2})
	run(t, s, `CREATE TABLE users (id BIGINT, name VARCHAR, city VARCHAR, PRIMARY KEY (id))
		WITH (connector = 'kafka', brokers = '`+brokers+`', topic = 'users', format = 'upsert-json');
		CREATE MATERIALIZED VIEW by_city AS SELECT city, COUNT(*) AS n FROM users GROUP BY city; FLUSH;`)
	if got, want := text(run(t, s, `SELECT id, name, city FROM users ORDER BY id;`)), "1 | ann | Bergen\n3 | cy | Nice\n"; got != want {
		t.Errorf("table:\n%s\nwant\n%s", got, want)
	}
	if got, want := text(run(t, s, `SELECT city, n FROM by_city ORDER BY city;`)), "Bergen | 1\nNice | 1\n"; got != want {
		t.Errorf("view:\n%s\nwant\n%s", got, want)
	}
	produce(t, brokers, "users", kmsg{0, "1", ""}, kmsg{1, "3", `{"name": "cy", "city": "Bergen"}`})
	run(t, s, "FLUSH;")
	if got, want := text(run(t, s, `SELECT city, n FROM by_city ORDER BY city;`)), "Bergen | 1\n"; got != want {
		t.Errorf("view after a delete and a move:\n%s\nwant\n%s", got, want)
	}
}

// TestKafkaTableDebezium: a table over a topic of Debezium change events
// (with and without the schema envelope) applies creates, updates and
// deletes by its primary key.
func TestKafkaTableDebezium(t *testing.T) {
	brokers := kafkaCluster(t, 1, "cdc")
	produce(t, brokers, "cdc",
		kmsg{0, "", `{"before": null, "after": {"id": 1, "qty": 5}, "op": "c"}`},
		kmsg{0, "", `{"schema": {}, "payload": {"before": null, "after": {"id": 2, "qty": 7}, "op": "r"}}`},
		kmsg{0, "", `{"before": {"id": 1, "qty": 5}, "after": {"id": 1, "qty": 6}, "op": "u"}`},
		kmsg{0, "", `{"before": {"id": 2, "qty": 7}, "after": null, "op": "d"}`},
		kmsg{0, "", ""},
		kmsg{0, "", `{"before": null, "after": {"id": 3, "qty": 1}, "op": "x"}`},
		kmsg{0, "", `{"before": null, "after": {"id": 4, "qty": 2}, "op": "c"}`})
	s := newSession(t, Config{Parallelism: 1})
	run(t, s, `CREATE TABLE stock (id BIGINT, qty INT, PRIMARY KEY (id))
		WITH (connector = 'kafka', brokers = '`+brokers+`', topic = 'cdc', format = 'debezium-json');`)
	res := run(t, s, `SELECT id, qty FROM stock ORDER BY id;`)
	if got, want := text(res), "1 | 6\n4 | 2\n"; got != want {
		t.Errorf("table:\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(strings.Join(res.Notices, "\n"), `cdc[0]@5: unknown Debezium op "x"`) {
		t.Errorf("notices: %q", res.Notices)
	}
}

// TestKafkaGroupOffsets: with a group option, the offsets a checkpoint
// records are reported to the consumer group, where lag tools read them.
func TestKafkaGroupOffsets(t *testing.T) {
	brokers := kafkaCluster(t, 2, "ev")
	produce(t, brokers, "ev", kmsg{0, "", `{"v": 1}`}, kmsg{1, "", `{"v": 2}`}, kmsg{1, "", `{"v": 3}`})
	cfg := Config{DataDir: filepath.Join(t.TempDir(), "data"), Parallelism: 2, CheckpointInterval: time.Hour}
	e := openEngine(t, cfg)
	s := e.NewSession(SessionOptions{})
	run(t, s, `CREATE STREAM ev (v INT) WITH (connector = 'kafka', brokers = '`+brokers+`', topic = 'ev', group = 'eddy-ev');
		CREATE MATERIALIZED VIEW n AS SELECT COUNT(*) AS n FROM ev; FLUSH;`)
	checkpointAll(t, e)
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(brokers, ",")...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	var got string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		rs, err := adm.FetchOffsets(context.Background(), "eddy-ev")
		if errors.Is(err, kerr.GroupIDNotFound) {
			continue // the group exists from its first commit, which may come later
		} else if err != nil {
			t.Fatal(err)
		}
		o0, _ := rs.Lookup("ev", 0)
		o1, _ := rs.Lookup("ev", 1)
		if got = fmt.Sprintf("%d %d", o0.At, o1.At); got == "1 2" {
			return
		}
	}
	t.Errorf("the group's offsets are %s, want 1 2", got)
}
