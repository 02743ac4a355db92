package difftest

import (
	"context"
	"testing"
)

// windowRows are the rows the window translations are checked on: times
// in milliseconds, on both sides of the epoch, one NULL, and two keys.
var windowRows = []string{
	"('a', -1)", "('a', 0)", "('a', 3000)", "('b', 7000)", "('a', 9000)", "('a', 9999)",
	"('a', 10000)", "('b', 12000)", "('a', 14000)", "('a', NULL)",
}

// TestWindowTranslations checks the window table functions' translations
// on a small table, against windows worked out by hand from SQL.md (and
// Flink, which eddy's windows follow).
func TestWindowTranslations(t *testing.T) {
	db := testDB(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE TABLE w (k TEXT, ts INTEGER)",
		"INSERT INTO w VALUES " + joinRows(windowRows),
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	columns := func(rel string) ([]string, error) { return TableColumns(ctx, db, rel) }
	cases := []struct{ eddy, want string }{
		// [-10000, 0) holds -1; 9999 is in [0, 10000), 10000 starts the next
		// window; the NULL time is in none.
		{"SELECT window_start, window_end, COUNT(*) FROM TUMBLE(w, ts, INTERVAL '10' SECOND) GROUP BY 1, 2 ORDER BY 1",
			"-10000 0 1\n0 10000 5\n10000 20000 3"},
		// Each row is in the two 10-second windows, sliding by 5, that hold
		// it: 7000 in [0, 10000) and [5000, 15000).
		{"SELECT ts, window_start, window_end FROM HOP(w, ts, INTERVAL '5' SECOND, INTERVAL '10' SECOND) WHERE ts IN (-1, 7000, 10000) ORDER BY 1, 2",
			"-1 -10000 0\n-1 -5000 5000\n7000 0 10000\n7000 5000 15000\n10000 5000 15000\n10000 10000 20000"},
		// A slide that does not divide the size: windows of 10 s every 3 s
		// ([-3000, 7000) ends at 7000 and does not hold it).
		{"SELECT window_start, window_end FROM HOP(w, ts, INTERVAL '3' SECOND, INTERVAL '10' SECOND) WHERE ts = 7000 ORDER BY 1",
			"0 10000\n3000 13000\n6000 16000"},
		// Cumulating windows from each 10-second boundary, every 5 s: 3000
		// is in [0, 5000) and [0, 10000), 7000 and -1 only in the window
		// that ends at the next boundary.
		{"SELECT ts, window_start, window_end FROM CUMULATE(w, ts, INTERVAL '5' SECOND, INTERVAL '10' SECOND) WHERE ts IN (3000, 7000, -1) ORDER BY 1, 3",
			"-1 -10000 0\n3000 0 5000\n3000 0 10000\n7000 0 10000"},
		// Sessions per key with a 5-second gap: for a, -1 to 3000 is one
		// session (ends 8000); 9000 is 6 s later and starts another, which
		// 9999, 10000 and 14000 extend (14000 is 4 s after 10000). For b,
		// 7000 and 12000 are exactly 5 s apart: two sessions.
		{"SELECT k, window_start, window_end, COUNT(*) FROM SESSION(w, ts, INTERVAL '5' SECOND) GROUP BY k, window_start, window_end ORDER BY 1, 2",
			"a -1 8000 3\na 9000 19000 4\nb 7000 12000 1\nb 12000 17000 1"},
		// Without other keys, sessions span the whole table.
		{"SELECT window_start, window_end, COUNT(*) FROM SESSION(w, ts, INTERVAL '5' SECOND) GROUP BY window_start, window_end",
			"-1 19000 9"},
		// The keys are those of the query around the call (qualified by the
		// table's name), not of a query that reads it: with a 2-second gap
		// a has four sessions, b two.
		{"SELECT COUNT(*) FROM (SELECT k, window_start FROM SESSION(w, ts, INTERVAL '2' SECOND) GROUP BY w.k, window_start, window_end) AS s GROUP BY k ORDER BY 1",
			"2\n4"},
	}
	for _, c := range cases {
		q, err := Translate(c.eddy, columns)
		if err != nil {
			t.Errorf("%s: %v", c.eddy, err)
			continue
		}
		if got := rowsText(t, db, q); got != c.want {
			t.Errorf("%s:\ngot\n%s\nwant\n%s\nSQLite: %s", c.eddy, got, c.want, q)
		}
	}
}

func joinRows(rows []string) string {
	out := ""
	for i, r := range rows {
		if i > 0 {
			out += ", "
		}
		out += r
	}
	return out
}
