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

// TestWindowStartJoinFreesState runs Nexmark q5's shape — each auction's
// bid count per HOP window joined with the window's highest count, both
// running aggregates grouped by window_start — and checks that the join
// is a window join whose state the watermark frees a window after its
// start (window_start follows the watermark a window size behind), where
// a regular join kept every window's counts; and that its rows are the
// regular join's, which a pull query computes.
func TestWindowStartJoinFreesState(t *testing.T) {
	s := newSession(t, Config{Parallelism: 1})
	const q5 = `SELECT ab.auction, ab.num, ab.starttime FROM (
		  SELECT auction, COUNT(*) AS num, window_start AS starttime
		  FROM HOP(bid, ts, INTERVAL '2' SECOND, INTERVAL '10' SECOND) GROUP BY auction, window_start) AS ab
		JOIN (
		  SELECT MAX(c.num) AS maxn, c.starttime_c FROM (
		    SELECT COUNT(*) AS num, window_start AS starttime_c
		    FROM HOP(bid, ts, INTERVAL '2' SECOND, INTERVAL '10' SECOND) GROUP BY auction, window_start) AS c
		  GROUP BY c.starttime_c) AS mb
		ON ab.starttime = mb.starttime_c AND ab.num >= mb.maxn`
	run(t, s, `CREATE STREAM bid (auction BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND);
		CREATE MATERIALIZED VIEW q5 AS `+q5+";")
	// Two bids a second from 00:01 to 00:30: auction 1 every second,
	// auction 2 every odd second, and auction 3 twice at 00:04.
	var rows []string
	for i := 1; i <= 30; i++ {
		rows = append(rows, fmt.Sprintf("(1, '2024-01-01 00:00:%02d')", i))
		if i%2 == 1 {
			rows = append(rows, fmt.Sprintf("(2, '2024-01-01 00:00:%02d')", i))
		}
	}
	rows = append(rows, "(3, '2024-01-01 00:00:04')", "(3, '2024-01-01 00:00:04')")
	run(t, s, "INSERT INTO bid VALUES "+strings.Join(rows, ", ")+"; FLUSH;")
	joinState := func(keys int) {
		t.Helper()
		plan := text(run(t, s, "EXPLAIN ANALYZE q5;"))
		want := fmt.Sprintf(`(?m)^\s*└── WindowJoin Inner .*time=ab\.starttime - mb\.starttime_c in \[0ms, 0ms\] \(watermark lags 10000ms, 10000ms\).*state=%d keys/`, keys)
		if !regexp.MustCompile(want).MatchString(plan) {
			t.Fatalf("EXPLAIN ANALYZE does not match %s:\n%s", want, plan)
		}
	}
	// The watermark is 00:29: the windows that start after 00:19 (00:20 to
	// 00:30, six of them) are held, two auctions' counts and the maximum
	// each, but the last, which has auction 1's only; a regular join would
	// hold every window from 23:59:52 on.
	joinState(5*3 + 2)
	same := func() {
		t.Helper()
		view := text(run(t, s, "SELECT * FROM q5 ORDER BY starttime, auction;"))
		pull := text(run(t, s, q5+" ORDER BY starttime, auction;"))
		if view != pull {
			t.Fatalf("the view holds\n%s\nthe pull query (a regular join) answers\n%s", view, pull)
		}
	}
	same()
	// The watermark moves to 00:59: only the new bid's windows are held.
	run(t, s, "INSERT INTO bid VALUES (2, '2024-01-01 00:01:00'); FLUSH;")
	joinState(5 * 2)
	same()
}
