package proptest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/eddysql/eddy/planner"
)

// handCase returns the case of seed with its query replaced by sql.
func handCase(seed uint64, sql string) *Case {
	c := NewCase(seed)
	c.Query = &Query{SQL: sql, Features: Features{}}
	return c
}

func TestRunCase(t *testing.T) {
	tests := []struct {
		name   string
		sql    string
		status Status
		reason string
	}{
		{"an aggregation agrees", "SELECT a.k AS k, COUNT(*) AS n, SUM(a.x) AS x FROM s1 AS a GROUP BY a.k", Agreed, ""},
		{"a lookup join agrees", "SELECT s.id AS id, t.g AS g FROM s2 AS s LEFT JOIN t1 AS t ON s.k = t.k", Agreed, ""},
		{"an unsupported feature skips", "SELECT a.id AS id FROM s1 AS a WHERE a.g REGEXP 'a'", Skipped, "REGEXP"},
		{"an invalid query fails", "SELECT a.nope AS id FROM s1 AS a", Failed, "refused by both plans: unknown column"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			out := RunCase(ctx, handCase(7, tc.sql))
			if out.Status != tc.status || !strings.Contains(out.Reason, tc.reason) {
				t.Fatalf("got %s (%s), want %s (%s)", out.Status, out.Reason, tc.status, tc.reason)
			}
			if out.Status == Agreed && out.Rows == 0 {
				t.Errorf("the view is empty: the case compared nothing")
			}
		})
	}
}

func TestClassifyRefusal(t *testing.T) {
	ns := func(feature string) error { return &planner.NotSupportedError{Feature: feature} }
	bind := errors.New
	tests := []struct {
		name    string
		on, off error
		status  Status
		reason  string
	}{
		{"both not supported", ns("REGEXP"), ns("REGEXP"), Skipped, "REGEXP"},
		{"only off refuses", nil, bind("boom"), Failed, "refused only with optimizer off: boom"},
		{"only on refuses", ns("x"), nil, Failed, "refused only with optimizer on"},
		{"the same error at other positions", bind("unknown column 'on_h0.c1' at 1:20"), bind("unknown column 'off_h0.c1' at 1:21"),
			Failed, "refused by both plans: unknown column"},
		{"different errors", bind("a"), bind("b"), Failed, "differently"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := classifyRefusal(Outcome{}, [2]error{tc.on, tc.off})
			if out.Status != tc.status || !strings.Contains(out.Reason, tc.reason) {
				t.Errorf("got %s (%s), want %s (%s)", out.Status, out.Reason, tc.status, tc.reason)
			}
		})
	}
}

// TestCaseScript checks that a case's script creates the sources, both
// sides' views with their own names and settings, and flushes every round
// after its tables and after each of its streams.
func TestCaseScript(t *testing.T) {
	c := NewCase(42)
	s := c.Script()
	for _, want := range []string{"CREATE STREAM s1 ", "CREATE TABLE t1 ", "SET optimizer = on;", "SET optimizer = off;",
		"CREATE MATERIALIZED VIEW on_v AS ", "CREATE MATERIALIZED VIEW off_v AS ", "SELECT * FROM off_v;"} {
		if !strings.Contains(s, want) {
			t.Errorf("the script lacks %q:\n%s", want, s)
		}
	}
	want := 0
	for _, rd := range c.Data.Rounds {
		want++ // after the tables
		streams := map[string]bool{}
		for _, b := range rd.Streams {
			streams[b.Source] = true
		}
		want += len(streams) // after each stream
	}
	if got := strings.Count(s, "FLUSH;"); got != want {
		t.Errorf("%d FLUSHes, want %d", got, want)
	}
	if strings.Contains(s, viewMark) {
		t.Errorf("a view placeholder is left in the script:\n%s", s)
	}
}
