package web

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/eddysql/eddy/exec/engine"
)

// scrape fetches /metrics and parses it with Prometheus's text parser.
func scrape(t *testing.T, base string) (map[string]*dto.MetricFamily, []byte) {
	t.Helper()
	code, ctype, body := get(t, base+"/metrics")
	if code != 200 || !strings.HasPrefix(ctype, "text/plain") {
		t.Fatalf("GET /metrics: %d %s\n%s", code, ctype, body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parsing /metrics: %v\n%s", err, body)
	}
	return fams, body
}

// labels returns a metric's labels by name.
func labels(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

// sumOf sums the values of family name's metrics of query q, checking
// that the family has type typ.
func sumOf(t *testing.T, fams map[string]*dto.MetricFamily, name string, typ dto.MetricType, q string) (sum float64, n int) {
	t.Helper()
	f := fams[name]
	if f == nil {
		t.Fatalf("no %s", name)
	}
	if f.GetType() != typ {
		t.Fatalf("%s is a %s, want a %s", name, f.GetType(), typ)
	}
	for _, m := range f.GetMetric() {
		if labels(m)["query"] != q {
			continue
		}
		n++
		switch typ {
		case dto.MetricType_COUNTER:
			sum += m.GetCounter().GetValue()
		case dto.MetricType_GAUGE:
			sum += m.GetGauge().GetValue()
		}
	}
	return sum, n
}

// TestMetrics: /metrics is valid Prometheus text, follows its naming
// conventions, carries the Go and process collectors and the engine's
// figures per query and operator, and its counters rise while a query
// runs.
func TestMetrics(t *testing.T) {
	eng := newEngine(t, engine.Config{Parallelism: 2, CheckpointInterval: 20 * time.Millisecond}, nexmarkScript)
	base := startServer(t, eng, Config{Version: "v1.2.3"})
	var first map[string]*dto.MetricFamily
	waitFor(t, 20*time.Second, "rows and a checkpoint", func() bool {
		first, _ = scrape(t, base)
		rows, _ := sumOf(t, first, "eddy_operator_rows_out_total", dto.MetricType_COUNTER, "per_channel")
		f := first["eddy_query_checkpoint_duration_seconds"]
		return rows > 0 && f != nil && len(f.GetMetric()) == 1 && f.GetMetric()[0].GetSummary().GetSampleCount() > 0
	})
	fams, body := scrape(t, base)

	problems, err := promlint.New(bytes.NewReader(body)).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		if strings.HasPrefix(p.Metric, "eddy_") {
			t.Errorf("promlint: %s: %s", p.Metric, p.Text)
		}
	}
	for _, name := range []string{"go_goroutines", "go_memstats_heap_alloc_bytes", "process_cpu_seconds_total", "process_resident_memory_bytes"} {
		if fams[name] == nil {
			t.Errorf("no %s", name)
		}
	}
	if b := fams["eddy_build_info"]; b == nil || labels(b.GetMetric()[0])["version"] != "v1.2.3" {
		t.Errorf("eddy_build_info: %v", b)
	}
	for _, m := range fams["eddy_catalog_objects"].GetMetric() {
		if want := map[string]float64{"stream": 1, "materialized view": 1}[labels(m)["kind"]]; m.GetGauge().GetValue() != want {
			t.Errorf("eddy_catalog_objects%v = %v, want %v", labels(m), m.GetGauge().GetValue(), want)
		}
	}
	if info := fams["eddy_query_info"].GetMetric(); len(info) != 1 || labels(info[0])["status"] != "running" ||
		labels(info[0])["kind"] != "materialized view" {
		t.Errorf("eddy_query_info: %v", info)
	}

	// One series per operator, labelled by stage, kind and plan node.
	ops := fams["eddy_operator_rows_in_total"].GetMetric()
	kinds := map[string]bool{}
	for _, m := range ops {
		l := labels(m)
		if l["query"] != "per_channel" || l["stage"] == "" || l["node_id"] == "" {
			t.Errorf("rows in labels: %v", l)
		}
		kinds[l["operator"]] = true
	}
	for _, k := range []string{"Source", "HashAggregate", "Materialize"} {
		if !kinds[k] {
			t.Errorf("no operator %s among %v", k, kinds)
		}
	}
	// (The stream declares no event time: TestMetricsWatermark has the
	// watermark's.)
	for name, typ := range map[string]dto.MetricType{
		"eddy_operator_rows_out_total":              dto.MetricType_COUNTER,
		"eddy_operator_busy_seconds_total":          dto.MetricType_COUNTER,
		"eddy_operator_idle_seconds_total":          dto.MetricType_COUNTER,
		"eddy_operator_backpressured_seconds_total": dto.MetricType_COUNTER,
		"eddy_operator_late_rows_total":             dto.MetricType_COUNTER,
		"eddy_operator_bad_rows_total":              dto.MetricType_COUNTER,
		"eddy_operator_state_rows":                  dto.MetricType_GAUGE,
		"eddy_operator_state_bytes":                 dto.MetricType_GAUGE,
		"eddy_operator_source_lag_seconds":          dto.MetricType_GAUGE,
		"eddy_operator_source_backlog_rows":         dto.MetricType_GAUGE,
		"eddy_operator_shed_rows_total":             dto.MetricType_COUNTER,
		"eddy_operator_shed_windows_total":          dto.MetricType_COUNTER,
		"eddy_query_drop_fraction":                  dto.MetricType_GAUGE,
		"eddy_query_checkpoints_completed_total":    dto.MetricType_COUNTER,
		"eddy_query_checkpoints_failed_total":       dto.MetricType_COUNTER,
		"eddy_query_uptime_seconds":                 dto.MetricType_GAUGE,
		"eddy_query_parallelism":                    dto.MetricType_GAUGE,
		"eddy_query_checkpoint_state_bytes":         dto.MetricType_GAUGE,
	} {
		if _, n := sumOf(t, fams, name, typ, "per_channel"); n == 0 {
			t.Errorf("no %s for per_channel", name)
		}
	}
	if state, _ := sumOf(t, fams, "eddy_operator_state_rows", dto.MetricType_GAUGE, "per_channel"); state <= 0 {
		t.Errorf("the aggregate keeps no state: %v", state)
	}
	sum := fams["eddy_query_checkpoint_duration_seconds"]
	if s := sum.GetMetric()[0].GetSummary(); sum.GetType() != dto.MetricType_SUMMARY || s.GetSampleSum() <= 0 || len(s.GetQuantile()) != 4 {
		t.Errorf("checkpoint summary: %v", sum)
	}

	// The counters rise while the query runs.
	for _, name := range []string{"eddy_operator_rows_in_total", "eddy_operator_rows_out_total", "eddy_operator_busy_seconds_total",
		"eddy_query_checkpoints_completed_total"} {
		before, _ := sumOf(t, first, name, dto.MetricType_COUNTER, "per_channel")
		waitFor(t, 20*time.Second, name+" to rise", func() bool {
			fams, _ := scrape(t, base)
			now, _ := sumOf(t, fams, name, dto.MetricType_COUNTER, "per_channel")
			return now > before
		})
	}
}

// TestMetricsWatermark: an operator's watermark is exported in seconds,
// with its lag.
func TestMetricsWatermark(t *testing.T) {
	eng := newEngine(t, engine.Config{Parallelism: 1}, `
		CREATE STREAM bid (auction BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND);
		CREATE MATERIALIZED VIEW c AS SELECT auction, COUNT(*) AS n FROM bid GROUP BY auction;
		INSERT INTO bid VALUES (1, '2024-01-01 00:00:15');
		FLUSH;`)
	base := startServer(t, eng, Config{})
	fams, _ := scrape(t, base)
	want := float64(time.Date(2024, 1, 1, 0, 0, 14, 0, time.UTC).Unix())
	wm, n := sumOf(t, fams, "eddy_operator_watermark_seconds", dto.MetricType_GAUGE, "c")
	if n == 0 || wm != want*float64(n) {
		t.Errorf("%d watermarks summing to %v, want each %v", n, wm, want)
	}
	if lag, _ := sumOf(t, fams, "eddy_operator_watermark_lag_seconds", dto.MetricType_GAUGE, "c"); lag < float64(n)*3600 {
		t.Errorf("watermark lag %v: the watermark is years old", lag)
	}
}
