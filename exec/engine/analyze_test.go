package engine

import (
	"context"
	"regexp"
	"strings"
	"testing"
)

func TestShowQueriesAndExplainAnalyze(t *testing.T) {
	s := newSession(t, Config{Parallelism: 2})
	run(t, s, `
		CREATE STREAM bid (auction BIGINT, price BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND);
		CREATE MATERIALIZED VIEW w AS SELECT auction, window_start, COUNT(*) AS n FROM TUMBLE(bid, ts, INTERVAL '10' SECOND) GROUP BY auction, window_start;
		CREATE SINK nothing AS SELECT auction FROM bid WHERE price > 10 WITH (connector = 'blackhole');
		INSERT INTO bid VALUES (1, 5, '2024-01-01 00:00:05'), (2, 50, '2024-01-01 00:00:15');
		INSERT INTO bid VALUES (3, 500, '2024-01-01 00:00:01');
		FLUSH;`)
	show := text(run(t, s, "SHOW QUERIES;"))
	for _, want := range []string{
		// No policy interval (10 s) has ended yet: no bottleneck, no
		// capacity; latency markers are off.
		`(?m)^nothing \| sink \| running \| 1 \| 3 \| 1 \| [0-9.]+ \| 1 \| 0 \| 2024-01-01 00:00:14.000 \| 0s \| 0 \| 0 \| 0 \| 0 \| NULL \| NULL \| NULL \| NULL \| NULL$`,
		`(?m)^w \| materialized view \| running \| 2 \| 3 \| 2 \| [0-9.]+ \| 1 \| 0 \| 2024-01-01 00:00:14.000 \| 0s \| 0 \| 0 \| 0 \| 0 \| NULL \| NULL \| NULL \| NULL \| NULL$`,
	} {
		if !regexp.MustCompile(want).MatchString(show) {
			t.Errorf("SHOW QUERIES does not match %s:\n%s", want, show)
		}
	}
	plan := text(run(t, s, "EXPLAIN ANALYZE w;"))
	for _, want := range []string{
		`(?m)^materialized view w \(running, running for .*\)$`,
		`(?m)^rates: no interval has ended yet \(policy_interval 10s\)$`,
		`(?m)^latency: off \(SET latency_interval to measure it\)$`,
		`(?m)^Materialize w  \[instances=1 rows_in=2 rows_out=0 busy=[0-9.]+% idle=[0-9.]+% backpressured=[0-9.]+% watermark=2024-01-01 00:00:14.000 state=2 keys/[0-9.]+[KM]?B \([0-9]+B/key\)\]$`,
		// The window [0 s, 10 s) closed at the watermark 14 s: its group
		// is freed, and only [10 s, 20 s)'s remains.
		`HashAggregate group=\[auction, window_start\].*\[instances=2 rows_in=2 rows_out=2 .*state=1 keys/`,
		`WindowAssign TUMBLE time=ts size=10 SECOND  \[instances=1 rows_in=2 rows_out=2 `,
		`Source bid kind=insert .*\[instances=1 rows_out=2 .* late_rows=1\]`,
	} {
		if !regexp.MustCompile(want).MatchString(plan) {
			t.Errorf("EXPLAIN ANALYZE does not match %s:\n%s", want, plan)
		}
	}
	// busy + idle + backpressured is the wall time.
	for _, m := range regexp.MustCompile(`busy=([0-9.]+)% idle=([0-9.]+)% backpressured=([0-9.]+)%`).FindAllStringSubmatch(plan, -1) {
		sum := atof(m[1]) + atof(m[2]) + atof(m[3])
		if sum < 99.5 || sum > 100.5 {
			t.Errorf("times sum to %.1f%%: %s", sum, m[0])
		}
	}
	if _, err := s.Execute(context.Background(), mustParse(t, "EXPLAIN ANALYZE bid;")); err == nil || !strings.Contains(err.Error(), "not a running continuous query") {
		t.Errorf("EXPLAIN ANALYZE of a stream: %v", err)
	}
}

func atof(s string) float64 {
	var f float64
	for _, c := range s {
		if c == '.' {
			break
		}
		f = f*10 + float64(c-'0')
	}
	if i := strings.IndexByte(s, '.'); i >= 0 && i+1 < len(s) {
		f += float64(s[i+1]-'0') / 10
	}
	return f
}

// TestExplainAnalyzeJoinState: a join's state shows the size of the rows
// it keeps as Arrow arrays would hold them, and its own size's ratio to
// that: 2 + 2 rows of a BIGINT and a VARCHAR of 5 bytes are 2·(1 + 16)
// + 2·(1 + 12 + 10) = 80 bytes.
func TestExplainAnalyzeJoinState(t *testing.T) {
	s := newSession(t, Config{Parallelism: 1})
	run(t, s, `CREATE STREAM l (k BIGINT, v VARCHAR);
		CREATE STREAM r (k BIGINT, w VARCHAR);
		CREATE MATERIALIZED VIEW j AS SELECT l.k, v, w FROM l JOIN r ON l.k = r.k;
		INSERT INTO l VALUES (1, 'apple'), (2, 'pears');
		INSERT INTO r VALUES (1, 'grape'), (3, 'lemon');
		FLUSH;`)
	plan := text(run(t, s, "EXPLAIN ANALYZE j;"))
	if !regexp.MustCompile(`HashJoin .*state=4 keys/[0-9.]+[KM]?B \([0-9]+B/key\) rows_as_arrow=80B \(state [0-9.]+×\)`).MatchString(plan) {
		t.Errorf("EXPLAIN ANALYZE does not show the join's rows as Arrow:\n%s", plan)
	}
}

// TestExplainAnalyzeSharedSubplan: a sub-plan a view uses twice runs once,
// and EXPLAIN ANALYZE prints it once, with its figures, and its second
// place as one Shared line; with the optimizer off each place has its own
// copy and figures.
func TestExplainAnalyzeSharedSubplan(t *testing.T) {
	s := newSession(t, Config{Parallelism: 2})
	const twice = ` AS SELECT k FROM ev WHERE v > 0 UNION ALL SELECT k FROM ev WHERE v > 0;`
	run(t, s, `CREATE STREAM ev (k BIGINT, v BIGINT);
		CREATE MATERIALIZED VIEW shared`+twice+`
		SET optimizer = off;
		CREATE MATERIALIZED VIEW apart`+twice+`
		INSERT INTO ev VALUES (1, 1), (2, -1), (3, 5);
		FLUSH;`)
	for name, want := range map[string]struct{ calcs, shared int }{"shared": {1, 1}, "apart": {2, 0}} {
		plan := text(run(t, s, "EXPLAIN ANALYZE "+name+";"))
		calcs := len(regexp.MustCompile(`(?m)── Calc filter=v > 0 .*rows_in=3 rows_out=2`).FindAllString(plan, -1))
		shared := len(regexp.MustCompile(`(?m)── Shared Calc filter=v > 0 .*computed once`).FindAllString(plan, -1))
		if calcs != want.calcs || shared != want.shared {
			t.Errorf("%s: %d filters with figures and %d Shared lines, want %d and %d:\n%s", name, calcs, shared, want.calcs, want.shared, plan)
		}
	}
	got, want := text(run(t, s, "SELECT COUNT(*), SUM(k) FROM shared;")), text(run(t, s, "SELECT COUNT(*), SUM(k) FROM apart;"))
	if got != want || !strings.Contains(want, "4") {
		t.Errorf("shared: %s, apart: %s (want 4 rows each, the same)", got, want)
	}
}
