package nexmark

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"sort"
	"testing"
	"time"
)

func TestCompute(t *testing.T) {
	f := Compute("q1", Measurement{Events: 10_000_000, Wall: 2 * time.Second, CPU: 3500 * time.Millisecond, Sys: 250 * time.Millisecond, PeakRSS: 50 << 20})
	want := Figures{Query: "q1", Events: 10_000_000, WallS: 2, CPUS: 3.5, SysS: 0.25, Cores: 1.75,
		EventsPerS: 5_000_000, EventsPerSPerCore: 2_857_143, PeakRSSBytes: 50 << 20}
	if f != want {
		t.Errorf("got %+v\nwant %+v", f, want)
	}
	// Times round to microseconds, cores to thousandths, rates to events.
	f = Compute("q2", Measurement{Events: 1000, Wall: 1234567891 * time.Nanosecond, CPU: 333 * time.Millisecond})
	if f.WallS != 1.234568 || f.CPUS != 0.333 || f.Cores != 0.27 || f.EventsPerS != 810 || f.EventsPerSPerCore != 3003 {
		t.Errorf("rounding: %+v", f)
	}
	// A zero time divides nothing: no infinities, which JSON cannot hold.
	f = Compute("q3", Measurement{Events: 5})
	if f.Cores != 0 || f.EventsPerS != 0 || f.EventsPerSPerCore != 0 {
		t.Errorf("zero times: %+v", f)
	}
	if _, err := json.Marshal(f); err != nil {
		t.Error(err)
	}
}

func TestRatios(t *testing.T) {
	base := Figures{WallS: 2, CPUS: 4, Cores: 2, EventsPerS: 100, EventsPerSPerCore: 50, PeakRSSBytes: 10}
	q := Figures{WallS: 1, CPUS: 1, Cores: 1, EventsPerS: 200, EventsPerSPerCore: 200, PeakRSSBytes: 15}
	got := q.RatiosTo(base)
	want := Ratios{Wall: 0.5, CPU: 0.25, Cores: 0.5, EventsPerS: 2, EventsPerSPerCore: 4, PeakRSS: 1.5}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if r := q.RatiosTo(Figures{}); !math.IsNaN(r.Wall) || !math.IsNaN(r.PeakRSS) {
		t.Errorf("ratios to zero: %+v", r)
	}
}

// TestJSONShape checks the exact fields of a query's JSON line, and of the
// line of a query that could not run.
func TestJSONShape(t *testing.T) {
	var buf bytes.Buffer
	f := Compute("q0", Measurement{Events: 100, Wall: time.Second, CPU: time.Second, PeakRSS: 1 << 20})
	if err := WriteJSON(&buf, Outcome{Query: "q0", Figures: f}); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&buf, Outcome{Query: "q3", Err: errors.New("q3.sql: not supported yet: joins")}); err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n"))
	if len(lines) != 2 {
		t.Fatalf("%d lines: %s", len(lines), buf.String())
	}
	var obj map[string]any
	if err := json.Unmarshal(lines[0], &obj); err != nil {
		t.Fatal(err)
	}
	want := []string{"cores", "cpu_s", "events", "events_per_s", "events_per_s_per_core", "generate", "peak_rss_bytes", "query", "sys_s", "wall_s"}
	if got := keys(obj); !reflect.DeepEqual(got, want) {
		t.Errorf("fields %q, want %q", got, want)
	}
	if obj["query"] != "q0" || obj["events"] != 100.0 || obj["peak_rss_bytes"] != float64(1<<20) {
		t.Errorf("values: %s", lines[0])
	}
	var back Figures
	if err := json.Unmarshal(lines[0], &back); err != nil || back != f {
		t.Errorf("round trip: %+v, %v", back, err)
	}
	obj = nil
	if err := json.Unmarshal(lines[1], &obj); err != nil {
		t.Fatal(err)
	}
	if got := keys(obj); !reflect.DeepEqual(got, []string{"error", "query"}) || obj["error"] != "q3.sql: not supported yet: joins" {
		t.Errorf("error line: %s", lines[1])
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
