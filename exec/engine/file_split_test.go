package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// splitBids writes bids.csv to dir: a header, then rows rows of (auction,
// channel, price, ts), ten a second in about time order (a row is at
// most 1.5 s behind the one before it, within the stream's 2 s watermark
// delay, so no row is late). Some channels are quoted and span two
// lines, some lines end in CRLF, the last has no line break, and every
// 997th row has a bad price. It returns the good rows' count per 10 s
// window start (as Unix seconds) and the lines of the bad rows.
func splitBids(t *testing.T, dir string, rows int) (map[int64]int, []int) {
	t.Helper()
	var b strings.Builder
	b.WriteString("auction,channel,price,ts\n")
	windows := map[int64]int{}
	var bad []int
	line := 2
	const base = 1_704_067_200 // 2024-01-01 00:00:00 UTC
	for i := range rows {
		ms := int64(i) * 100
		if i%7 == 3 {
			ms -= 1500 // out of order, within the watermark delay
		}
		ms = max(ms, 0)
		ts := time.UnixMilli(base*1000 + ms).UTC().Format("2006-01-02 15:04:05.000")
		channel := fmt.Sprintf("ch%d", i%5)
		lines := 1
		if i%11 == 5 {
			channel, lines = fmt.Sprintf("\"ch%d,\nsecond line\"", i%5), 2
		}
		price := fmt.Sprint(i % 1000)
		if i%997 == 400 {
			price = "x"
			bad = append(bad, line)
		} else {
			windows[base+ms/10_000*10]++
		}
		eol := "\n"
		if i%3 == 0 {
			eol = "\r\n"
		}
		if i == rows-1 {
			eol = ""
		}
		fmt.Fprintf(&b, "%d,%s,%s,%s%s", i/10, channel, price, ts, eol)
		line += lines
	}
	if err := os.WriteFile(filepath.Join(dir, "bids.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return windows, bad
}

// badLine matches a bad-row warning of bids.csv and captures its line.
var badLine = regexp.MustCompile(`bids\.csv:(\d+): column price: cannot parse "x" as BIGINT$`)

// checkBadNotices fails t unless the notices with prefix (one query's)
// warn of five distinct bad rows, each at a line of bad, and of the
// limit.
func checkBadNotices(t *testing.T, what string, notices []string, prefix string, bad []int) {
	t.Helper()
	var rows []string
	limit := 0
	for _, n := range notices {
		switch {
		case !strings.HasPrefix(n, prefix):
		case strings.Contains(n, "more than 5 bad rows"):
			limit++
		default:
			m := badLine.FindStringSubmatch(n)
			if m == nil || !slices.Contains(bad, atoi(t, m[1])) || slices.Contains(rows, m[1]) {
				t.Errorf("%s: notice %q is not of a distinct bad row (lines %v)", what, n, bad)
			}
			rows = append(rows, m[1])
		}
	}
	if len(rows) != 5 || limit != 1 {
		t.Errorf("%s: %d bad-row notices and %d of the limit, want 5 and 1: %q", what, len(rows), limit, notices)
	}
}

func atoi(t *testing.T, s string) int {
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestFileSplitsSameResults reads a CSV file (quoted fields spanning
// lines, CRLF, no final line break, bad rows across the file) at
// parallelism 1, 2 and 4: pull queries return the same rows, and views
// hold the same rows — among them a tumbling window emitted on close,
// which the runtime's watermark (the least of the splits') closes only
// when every split has passed it, so that no row is late. Each query
// counts every bad row and warns of five of them, at their lines, and of
// the limit.
func TestFileSplitsSameResults(t *testing.T) {
	dir := t.TempDir()
	const rows = 20_000
	windows, bad := splitBids(t, dir, rows)
	e := openAt(t, dir)
	defer e.Close()
	s := e.NewSession(SessionOptions{})
	run(t, s, `CREATE STREAM bids (auction BIGINT, channel VARCHAR, price BIGINT, ts TIMESTAMP(3),
		WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
		WITH (connector = 'file', path = 'bids.csv', header = 'true');`)
	// Each view reads the file itself, at its own parallelism: a view
	// created while its twin at another parallelism still runs would
	// otherwise read the twin's changes (share_views), which a loaded
	// machine made happen once — the view then showed the twin's
	// parallelism and none of the bad rows.
	run(t, s, `SET share_views = off;`)
	var pulled, notices []string
	// do runs one statement and keeps its notices: the views' come with
	// whichever statement follows them.
	do := func(stmt string) *Result {
		t.Helper()
		res := run(t, s, stmt)
		notices = append(notices, res.Notices...)
		return res
	}
	for _, p := range []int{1, 2, 4} {
		do(fmt.Sprintf(`SET parallelism = %d;`, p))
		plan := text(do(`EXPLAIN SELECT * FROM bids;`))
		if !strings.Contains(plan, fmt.Sprintf("Source bids kind=file columns=[auction, channel, price, ts] watermark=(ts - INTERVAL '2' SECOND) mode=snapshot  (parallelism=%d,", p)) {
			t.Errorf("p%d: the file is not read in %d splits:\n%s", p, p, plan)
		}
		res := do(`SELECT * FROM bids;`)
		var got []string
		for i := range res.Rows {
			got = append(got, text(&Result{Columns: res.Columns, Rows: res.Rows[i : i+1]})) // a row may hold line breaks
		}
		slices.Sort(got)
		if len(got) != rows-len(bad) {
			t.Fatalf("p%d: %d rows, want %d", p, len(got), rows-len(bad))
		}
		if pulled != nil && !slices.Equal(got, pulled) {
			t.Errorf("p%d: the rows differ from p1's", p)
		}
		pulled = got
		checkBadNotices(t, fmt.Sprintf("SELECT at p%d", p), res.Notices, "bids.csv", bad)
		for _, stmt := range []string{
			`CREATE MATERIALIZED VIEW tum_p%[1]d AS
			  SELECT window_start, COUNT(*) AS n, SUM(price) AS total
			  FROM TUMBLE(bids, ts, INTERVAL '10' SECOND) GROUP BY window_start EMIT ON WINDOW CLOSE;`,
			`CREATE MATERIALIZED VIEW ch_p%[1]d AS
			  SELECT channel, COUNT(*) AS n, SUM(price) AS total, MIN(ts) AS first FROM bids GROUP BY channel;`,
		} {
			do(fmt.Sprintf(stmt, p))
		}
	}
	do("FLUSH;")
	want := map[string]string{}
	for _, p := range []int{1, 2, 4} {
		for _, v := range []string{"tum", "ch"} {
			name := fmt.Sprintf("%s_p%d", v, p)
			got := text(do("SELECT * FROM " + name + " ORDER BY 1;"))
			if w, ok := want[v]; ok && got != w {
				t.Errorf("%s differs from %s_p1:\n%s\nwant\n%s", name, v, got, w)
			}
			want[v] = got
		}
	}
	// SHOW QUERIES: name | kind | status | parallelism | rows_in | rows_out
	// | rows_per_s | late_rows | bad_rows | ...
	res := do("SHOW QUERIES;")
	shown := map[string][]string{}
	for _, line := range strings.Split(text(res), "\n") {
		cols := strings.Split(line, " | ")
		shown[cols[0]] = cols
	}
	for _, p := range []int{1, 2, 4} {
		for _, v := range []string{"tum", "ch"} {
			name := fmt.Sprintf("%s_p%d", v, p)
			if cols := shown[name]; len(cols) < 9 || cols[3] != fmt.Sprint(p) || cols[7] != "0" || cols[8] != fmt.Sprint(len(bad)) {
				t.Errorf("%s: SHOW QUERIES says %q, want parallelism %d, no late rows and %d bad rows", name, cols, p, len(bad))
			}
			checkBadNotices(t, name, notices, "materialized view "+name+": ", bad)
		}
	}
	// The windows are right, not only the same: every good row is in one.
	n := 0
	for _, line := range strings.Split(strings.TrimSuffix(want["tum"], "\n"), "\n") {
		var start string
		var count int
		var day string
		if _, err := fmt.Sscanf(line, "%s %s | %d", &day, &start, &count); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		ts, err := time.Parse("2006-01-02 15:04:05.000", day+" "+start)
		if err != nil {
			t.Fatal(err)
		}
		if windows[ts.Unix()] != count {
			t.Errorf("window %s: %d rows, want %d", ts, count, windows[ts.Unix()])
		}
		n++
	}
	if n != len(windows) {
		t.Errorf("%d windows, want %d", n, len(windows))
	}
}
