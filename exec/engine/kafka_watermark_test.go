package engine

import (
	"fmt"
	"testing"
	"time"
)

// bidAt is a JSON bid at second sec past 10:00:00 on 2026-12-01.
func bidAt(sec int) string {
	return fmt.Sprintf(`{"ts": "2026-12-01 10:00:%02d"}`, sec)
}

// TestKafkaWatermarkPerPartition: one instance reads two partitions; its
// watermark follows the slower one, so a row of the slow partition behind
// the fast one's times is not late (with a watermark over the rows as
// they interleave, the row at :02 would be dropped behind :12).
func TestKafkaWatermarkPerPartition(t *testing.T) {
	brokers := kafkaCluster(t, 2, "ev")
	s := newSession(t, Config{Parallelism: 1})
	run(t, s, `CREATE STREAM ev (ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '0' SECOND)
		WITH (connector = 'kafka', brokers = '`+brokers+`', topic = 'ev', idle_timeout = '0');
		CREATE MATERIALIZED VIEW n AS SELECT COUNT(*) AS n FROM ev;`)
	produce(t, brokers, "ev", kmsg{0, "", bidAt(0)}, kmsg{0, "", bidAt(5)}, kmsg{0, "", bidAt(12)}, kmsg{1, "", bidAt(1)})
	run(t, s, "FLUSH;")
	produce(t, brokers, "ev", kmsg{1, "", bidAt(2)})
	run(t, s, "FLUSH;")
	if got := text(run(t, s, "SELECT n FROM n;")); got != "5\n" {
		t.Errorf("count %q, want 5: the slow partition's row was dropped as late", got)
	}
}

// TestKafkaIdlePartition: a partition without messages holds the
// watermark back until the idle timeout passes; then the other
// partition's rows advance it alone, and windows close.
func TestKafkaIdlePartition(t *testing.T) {
	brokers := kafkaCluster(t, 2, "ev")
	s := newSession(t, Config{Parallelism: 1})
	run(t, s, `CREATE STREAM ev (ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '0' SECOND)
		WITH (connector = 'kafka', brokers = '`+brokers+`', topic = 'ev', idle_timeout = '300ms');
		CREATE MATERIALIZED VIEW w AS SELECT window_start, COUNT(*) AS n
		  FROM TUMBLE(ev, ts, INTERVAL '10' SECOND) GROUP BY window_start, window_end EMIT ON WINDOW CLOSE;`)
	produce(t, brokers, "ev", kmsg{0, "", bidAt(0)}, kmsg{0, "", bidAt(5)}, kmsg{0, "", bidAt(12)})
	run(t, s, "FLUSH;")
	if got := text(run(t, s, "SELECT window_start, n FROM w;")); got != "" {
		t.Errorf("a window closed while partition 1 held the watermark back: %q", got)
	}
	time.Sleep(400 * time.Millisecond)
	produce(t, brokers, "ev", kmsg{0, "", bidAt(25)})
	run(t, s, "FLUSH;")
	if got, want := text(run(t, s, "SELECT window_start, n FROM w ORDER BY window_start;")), "2026-12-01 10:00:00.000 | 2\n2026-12-01 10:00:10.000 | 1\n"; got != want {
		t.Errorf("windows after partition 1 went idle:\n%s\nwant\n%s", got, want)
	}
}
