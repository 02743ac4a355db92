package engine

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestIntervalJoinOverRetractingAggregateFreesState runs Nexmark q7's
// shape — bids joined with their window's running MAX, which retracts its
// row at every new maximum — and checks through EXPLAIN ANALYZE that the
// join is an interval join whose state the watermark frees: it holds the
// bids of the last 10 seconds before the watermark and the windows still
// open, not every bid, and all but the newest once the watermark moves on.
func TestIntervalJoinOverRetractingAggregateFreesState(t *testing.T) {
	s := newSession(t, Config{Parallelism: 1})
	run(t, s, `
		CREATE STREAM bid (auction BIGINT, price BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND);
		CREATE MATERIALIZED VIEW q7 AS
		SELECT b.auction, b.price, b.ts FROM bid AS b
		JOIN (SELECT MAX(price) AS maxprice, window_end AS ts FROM TUMBLE(bid, ts, INTERVAL '10' SECOND) GROUP BY window_end) AS b1
		  ON b.price = b1.maxprice
		WHERE b.ts BETWEEN b1.ts - INTERVAL '10' SECOND AND b1.ts;`)
	// A bid a second from 00:01 to 00:30, each a new maximum of its window.
	var rows []string
	for i := 1; i <= 30; i++ {
		rows = append(rows, fmt.Sprintf("(%d, %d, '2024-01-01 00:00:%02d')", i, i, i))
	}
	run(t, s, "INSERT INTO bid VALUES "+strings.Join(rows, ", ")+"; FLUSH;")
	joinState := func(keys int) {
		t.Helper()
		plan := text(run(t, s, "EXPLAIN ANALYZE q7;"))
		want := fmt.Sprintf(`(?m)^\s*└── IntervalJoin Inner .*time=b\.ts - b1\.ts in \[-10000ms, 0ms\].*state=%d keys/`, keys)
		if !regexp.MustCompile(want).MatchString(plan) {
			t.Fatalf("EXPLAIN ANALYZE does not match %s:\n%s", want, plan)
		}
	}
	// The watermark is 00:29: the bids up to 00:18 (freed once it passes
	// their time + 10 s) and the windows ending at 00:10 and 00:20 are
	// gone; bids 19 to 30 and the windows ending at 00:30 and 00:40 stay.
	joinState(12 + 2)
	// Each window's last bid is its maximum (00:30 opens a fourth window).
	want := "9 | 9 | 2024-01-01 00:00:09.000\n19 | 19 | 2024-01-01 00:00:19.000\n" +
		"29 | 29 | 2024-01-01 00:00:29.000\n30 | 30 | 2024-01-01 00:00:30.000"
	if got := strings.TrimSpace(text(run(t, s, "SELECT * FROM q7 ORDER BY auction;"))); !strings.HasSuffix(got, want) {
		t.Fatalf("q7 holds\n%s\nwant\n%s", got, want)
	}
	run(t, s, "INSERT INTO bid VALUES (31, 5, '2024-01-01 00:01:00'); FLUSH;")
	// The watermark is 00:59: only the new bid and its window are held.
	joinState(2)
}
