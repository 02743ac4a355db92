package engine

import "testing"

// TestKafkaRoundTrips writes a stream's rows to Kafka in every sink format
// and reads them back in the matching source format: json, csv (a value
// with a comma and a quote, a NULL), raw, and an updating query's
// upserts and tombstones read into an upsert-json table. The engine takes
// no checkpoints, so the sinks write with plain idempotent producers.
func TestKafkaRoundTrips(t *testing.T) {
	brokers := kafkaCluster(t, 2, "j", "c", "r", "u")
	s := newSession(t, Config{Parallelism: 2})
	with := `connector = 'kafka', brokers = '` + brokers + `'`
	run(t, s, `CREATE STREAM s (id BIGINT, name VARCHAR, price DECIMAL(10,2), ts TIMESTAMP(3));
		CREATE SINK sj AS SELECT id, name, price, ts FROM s WITH (`+with+`, topic = 'j', key_column = 'id', type = 'append-only');
		CREATE SINK sc AS SELECT id, name, price, ts FROM s WITH (`+with+`, topic = 'c', format = 'csv', type = 'append-only');
		CREATE SINK sr AS SELECT name FROM s WHERE name IS NOT NULL WITH (`+with+`, topic = 'r', format = 'raw', type = 'append-only');
		CREATE SINK su AS SELECT name, COUNT(*) AS n FROM s WHERE name IS NOT NULL GROUP BY name HAVING COUNT(*) < 2
		  WITH (`+with+`, topic = 'u', key_column = 'name');
		INSERT INTO s VALUES (1, 'plain', 1.50, '2026-12-01 10:00:00.250'), (2, 'a, "quoted" one', 2.00, '2026-12-01 10:00:01'),
		  (3, NULL, NULL, NULL), (4, 'plain', 4.25, '2026-12-01 10:00:03');
		FLUSH;
		CREATE STREAM j (id BIGINT, name VARCHAR, price DECIMAL(10,2), ts TIMESTAMP(3), k BIGINT) WITH (`+with+`, topic = 'j', key_column = 'k');
		CREATE STREAM c (id BIGINT, name VARCHAR, price DECIMAL(10,2), ts TIMESTAMP(3)) WITH (`+with+`, topic = 'c', format = 'csv');
		CREATE STREAM r (line VARCHAR) WITH (`+with+`, topic = 'r', format = 'raw');
		CREATE TABLE u (name VARCHAR, n BIGINT, PRIMARY KEY (name)) WITH (`+with+`, topic = 'u', format = 'upsert-json');`)
	want := "1 | plain | 1.50 | 2026-12-01 10:00:00.250\n2 | a, \"quoted\" one | 2.00 | 2026-12-01 10:00:01.000\n" +
		"3 | NULL | NULL | NULL\n4 | plain | 4.25 | 2026-12-01 10:00:03.000\n"
	if got := text(run(t, s, `SELECT id, name, price, ts FROM j WHERE k = id ORDER BY id;`)); got != want {
		t.Errorf("json:\n%s\nwant\n%s", got, want)
	}
	if got := text(run(t, s, `SELECT id, name, price, ts FROM c ORDER BY id;`)); got != want {
		t.Errorf("csv:\n%s\nwant\n%s", got, want)
	}
	if got, want := text(run(t, s, `SELECT line FROM r ORDER BY line;`)), "a, \"quoted\" one\nplain\nplain\n"; got != want {
		t.Errorf("raw:\n%s\nwant\n%s", got, want)
	}
	if got, want := text(run(t, s, `SELECT name, n FROM u ORDER BY name;`)), "a, \"quoted\" one | 1\n"; got != want {
		t.Errorf("upsert-json:\n%s\nwant\n%s", got, want)
	}
}
