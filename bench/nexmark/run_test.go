package nexmark

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// testConfig runs small, fast runs over the built-in queries.
func testConfig(t *testing.T) Config {
	t.Helper()
	return Config{Events: 20_000, Parallelism: 2}
}

func TestRunOne(t *testing.T) {
	c := testConfig(t)
	qs, err := LoadQueries(c.Dir, "q0")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []Query{Baseline(), qs[0]} {
		f, err := RunOne(context.Background(), c, q, nil)
		if err != nil {
			t.Fatalf("%s: %v", q.Name, err)
		}
		if f.Query != q.Name || f.Events != c.Events || f.WallS <= 0 || f.CPUS < 0 || f.PeakRSSBytes <= 0 {
			t.Errorf("%s: %+v", q.Name, f)
		}
	}
}

func TestRunOneErrors(t *testing.T) {
	c := testConfig(t)
	for _, tc := range []struct {
		q    Query
		want string
	}{
		{Query{Name: "q90", File: "/x/q90.sql", Text: "CREATE SINK q90 AS SELEC 1;"}, "q90.sql: syntax error"},
		{Query{Name: "q91", File: "/x/q91.sql", Text: "-- nothing\n"}, "q91.sql: no statements"},
		{Query{Name: "q92", File: "/x/q92.sql", Text: "CREATE SINK q92 AS SELECT prize FROM bid WITH (connector = 'blackhole');"},
			"q92.sql: unknown column 'prize'"},
		// A statement after the last ';' runs too, and its position is right.
		{Query{Name: "q93", File: "/x/q93.sql", Text: "CREATE SINK q93 AS SELECT auction FROM bid WITH (connector = 'blackhole');\n\nDROP SINK nope"},
			"at 3:"},
	} {
		_, err := RunOne(context.Background(), c, tc.q, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.q.Name, err, tc.want)
		}
	}
	if _, err := RunOne(context.Background(), Config{}, Baseline(), nil); err == nil {
		t.Error("an invalid config ran")
	}
}

// TestServeChild checks the child's output: progress lines (forced by a
// throttled generator that runs for more than one progress interval), then
// the figures; or the error.
func TestServeChild(t *testing.T) {
	c := testConfig(t)
	c.Events, c.Rate = 12_000, 10_000 // 1.2 s
	var buf bytes.Buffer
	if err := ServeChild(context.Background(), c, Baseline(), &buf); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) < 2 {
		t.Fatalf("want progress and a result, got %q", buf.String())
	}
	var last message
	for i, l := range lines {
		var m message
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %d: %v: %s", i, err, l)
		}
		if i < len(lines)-1 && (m.Progress == nil || m.Progress.Elapsed <= 0) {
			t.Errorf("line %d is not progress: %s", i, l)
		}
		last = m
	}
	if last.Result == nil || last.Result.Events != 12_000 || last.Result.WallS < 1 {
		t.Errorf("last line: %s", lines[len(lines)-1])
	}

	buf.Reset()
	err := ServeChild(context.Background(), testConfig(t), Query{Name: "q99", Text: "SELEC;"}, &buf)
	var m message
	if err == nil || json.Unmarshal(buf.Bytes(), &m) != nil || !strings.Contains(m.Error, "syntax error") {
		t.Errorf("error %v, output %q", err, buf.String())
	}
}
