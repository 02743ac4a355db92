package web

import (
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/engine"
)

// metricsHandler serves /metrics: the Go runtime's and the process's
// metrics, and the engine's, read from a fresh observation snapshot at
// every scrape.
func metricsHandler(eng Observer, sessions Sessions, version string) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		newCollector(eng, version))
	if sessions != nil {
		reg.MustRegister(newSessionsCollector(sessions))
	}
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// The labels of an operator's metrics: its query, its stage's index in
// the dataflow, its kind (EXPLAIN's first word: Source, Calc,
// HashAggregate, ...; the sink's own name, Materialize or Sink, for the
// query's end) and its physical plan node id (0 for the sink). Together
// they name one operator of one query.
var opLabels = []string{"query", "stage", "operator", "node_id"}

func opDesc(name, help string) *prometheus.Desc {
	return prometheus.NewDesc("eddy_operator_"+name, help, opLabels, nil)
}

func queryDesc(name, help string, extra ...string) *prometheus.Desc {
	return prometheus.NewDesc("eddy_query_"+name, help, append([]string{"query"}, extra...), nil)
}

// collector is the engine's Prometheus collector.
type collector struct {
	eng     Observer
	version string

	info, uptime, parallelism                              *prometheus.Desc
	rowsIn, rowsOut, busy, idle, backpressured             *prometheus.Desc
	watermark, watermarkLag, stateRows, stateBytes         *prometheus.Desc
	lateRows, badRows, sourceLag, backlog, shedRows        *prometheus.Desc
	dropFraction, shedWindows                              *prometheus.Desc
	ckptDuration, ckptCompleted, ckptFailed, ckptStateSize *prometheus.Desc
	objects, build                                         *prometheus.Desc
}

func newCollector(eng Observer, version string) *collector {
	return &collector{eng: eng, version: version,
		info:          queryDesc("info", "A continuous query (1), with its kind and status (running, finished, failed, cancelled or stopped).", "kind", "status"),
		uptime:        queryDesc("uptime_seconds", "How long the query's dataflow has run."),
		parallelism:   queryDesc("parallelism", "The highest parallelism of the query's stages."),
		rowsIn:        opDesc("rows_in_total", "Rows the operator received (a source: rows it read)."),
		rowsOut:       opDesc("rows_out_total", "Rows the operator emitted."),
		busy:          opDesc("busy_seconds_total", "Time in the operator's own code, summed over its instances."),
		idle:          opDesc("idle_seconds_total", "Time the operator's instances waited for input or for the rest of their chain."),
		backpressured: opDesc("backpressured_seconds_total", "Time the operator's tasks were blocked on a full output, summed over its instances."),
		watermark:     opDesc("watermark_seconds", "The operator's watermark (the lowest of its instances'), in seconds since the epoch; absent before the first and after the input ended."),
		watermarkLag:  opDesc("watermark_lag_seconds", "How far the operator's watermark is behind the clock."),
		stateRows:     opDesc("state_rows", "Keys or rows the operator keeps in its state, as it estimates them."),
		stateBytes:    opDesc("state_bytes", "Bytes of the operator's state, as it estimates them."),
		lateRows:      opDesc("late_rows_total", "Rows dropped for arriving behind the watermark."),
		badRows:       opDesc("bad_rows_total", "Input rows a source could not decode."),
		sourceLag:     opDesc("source_lag_seconds", "For a source: how long its oldest unread input has waited (0 when caught up)."),
		shedRows:      opDesc("shed_rows_total", "For a source: the rows load shedding dropped."),
		shedWindows:   opDesc("shed_windows_total", "For a source of a query that sheds whole windows (shed = 'window'): the windows it dropped."),
		dropFraction:  queryDesc("drop_fraction", "The share of its sources' rows the query's load shedding drops now (0: none)."),
		backlog:       opDesc("source_backlog_rows", "For a source: the rows it knows are still to come (estimated from its rows per unit of input read)."),
		ckptDuration: queryDesc("checkpoint_duration_seconds",
			"Checkpoint durations, from the barriers' request to the commit: count and sum since the dataflow started, quantiles over its recent checkpoints."),
		ckptCompleted: queryDesc("checkpoints_completed_total", "Checkpoints that committed since the dataflow started."),
		ckptFailed:    queryDesc("checkpoints_failed_total", "Checkpoints that failed since the dataflow started."),
		ckptStateSize: queryDesc("checkpoint_state_bytes", "The size of the query's committed state after its last successful checkpoint."),
		objects:       prometheus.NewDesc("eddy_catalog_objects", "Objects in the catalog, by kind.", []string{"kind"}, nil),
		build:         prometheus.NewDesc("eddy_build_info", "eddy's version (1).", []string{"version"}, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.info, c.uptime, c.parallelism, c.rowsIn, c.rowsOut, c.busy, c.idle,
		c.backpressured, c.watermark, c.watermarkLag, c.stateRows, c.stateBytes, c.lateRows, c.badRows, c.sourceLag, c.backlog, c.shedRows, c.dropFraction, c.shedWindows,
		c.ckptDuration, c.ckptCompleted, c.ckptFailed, c.ckptStateSize, c.objects, c.build} {
		ch <- d
	}
}

// Collect implements prometheus.Collector: it reads one snapshot of the
// catalog and the queries.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(c.build, prometheus.GaugeValue, 1, c.version)
	kinds := map[string]int{"stream": 0, "table": 0, "materialized view": 0, "sink": 0}
	for _, o := range c.eng.ObserveCatalog() {
		kinds[o.Kind]++
	}
	for kind, n := range kinds {
		ch <- prometheus.MustNewConstMetric(c.objects, prometheus.GaugeValue, float64(n), kind)
	}
	for _, q := range c.eng.ObserveQueries() {
		c.collectQuery(ch, q)
	}
}

func (c *collector) collectQuery(ch chan<- prometheus.Metric, q engine.QueryInfo) {
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	gauge(c.info, 1, q.Name, q.Kind, q.Status)
	if q.Started.IsZero() {
		return // no dataflow: nothing runs
	}
	gauge(c.uptime, q.Uptime.Seconds(), q.Name)
	gauge(c.parallelism, float64(q.Parallelism), q.Name)
	gauge(c.dropFraction, q.Totals.DropFraction, q.Name)
	for _, st := range q.Stages {
		stage := strconv.Itoa(st.ID)
		for _, op := range st.Operators {
			l := []string{q.Name, stage, opKind(op.Name), strconv.Itoa(op.NodeID)}
			f := op.Figures
			counter(c.rowsIn, float64(f.RowsIn), l...)
			counter(c.rowsOut, float64(f.RowsOut), l...)
			counter(c.busy, f.Busy.Seconds(), l...)
			counter(c.idle, f.Idle.Seconds(), l...)
			counter(c.backpressured, f.Backpressure.Seconds(), l...)
			counter(c.lateRows, float64(f.LateRows), l...)
			counter(c.badRows, float64(f.BadRows), l...)
			gauge(c.stateRows, float64(f.StateRows), l...)
			gauge(c.stateBytes, float64(f.StateBytes), l...)
			if f.Watermark != 0 && f.Watermark != exec.MaxWatermark {
				gauge(c.watermark, float64(f.Watermark)/1e3, l...)
				gauge(c.watermarkLag, f.WatermarkLag.Seconds(), l...)
			}
			if op.Source {
				gauge(c.sourceLag, f.SourceLag.Seconds(), l...)
				gauge(c.backlog, float64(f.Backlog), l...)
				counter(c.shedRows, float64(f.ShedRows), l...)
				counter(c.shedWindows, float64(f.ShedWindows), l...)
			}
		}
	}
	if cp := q.Checkpoints; cp != nil {
		counter(c.ckptCompleted, float64(cp.Taken-cp.Failed), q.Name)
		counter(c.ckptFailed, float64(cp.Failed), q.Name)
		var recent []float64
		for _, r := range cp.Recent {
			recent = append(recent, r.Duration.Seconds())
		}
		ch <- prometheus.MustNewConstSummary(c.ckptDuration, uint64(cp.Taken), cp.TotalTime.Seconds(), quantiles(recent), q.Name)
		for _, r := range slices.Backward(cp.Recent) {
			if r.Error == "" && r.StateBytes >= 0 {
				gauge(c.ckptStateSize, float64(r.StateBytes), q.Name)
				break
			}
		}
	}
}

// summaryQuantiles are the quantiles of the checkpoint summary.
var summaryQuantiles = []float64{0.5, 0.9, 0.99, 1}

// quantiles returns the summaryQuantiles of vs (nearest rank); none
// without values.
func quantiles(vs []float64) map[float64]float64 {
	if len(vs) == 0 {
		return nil
	}
	sorted := slices.Sorted(slices.Values(vs))
	out := make(map[float64]float64, len(summaryQuantiles))
	for _, q := range summaryQuantiles {
		i := int(math.Ceil(q*float64(len(sorted)))) - 1
		out[q] = sorted[min(max(i, 0), len(sorted)-1)]
	}
	return out
}

// opKind is the kind of an operator: the first word of its EXPLAIN line.
func opKind(name string) string {
	if i := strings.IndexByte(name, ' '); i > 0 {
		return name[:i]
	}
	return name
}
