package engine

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/dataflow"
)

// rateLines returns the lines EXPLAIN ANALYZE prints after its header
// about the query's last policy interval: the bottleneck and its
// capacity, the latency, each straggler and each skewed instance. r and
// ok are queryRates'.
func rateLines(r QueryRates, ok bool) []string {
	if !ok {
		lines := []string{fmt.Sprintf("rates: no interval has ended yet (policy_interval %v)", r.Policy)}
		if r.Latency <= 0 {
			lines = append(lines, latencyOff)
		}
		return lines
	}
	iv, d := r.Interval, r.Diagnosis
	line := fmt.Sprintf("rates: interval %d of %v, ended %v ago: ", iv.Seq, iv.Length.Round(time.Millisecond),
		time.Since(iv.End).Round(time.Millisecond))
	if d.Bottleneck < 0 {
		line += "no bottleneck (idle)"
	} else {
		b := iv.Ops[d.Bottleneck]
		line += fmt.Sprintf("bottleneck %s (%.1f%% busy), capacity %s rows/s", b.Total.Name, 100*b.Utilization(), rate(d.Capacity))
	}
	lines := []string{line}
	switch l := iv.Latency; {
	case r.Latency <= 0:
		lines = append(lines, latencyOff)
	case l.Markers == 0:
		lines = append(lines, "latency: no marker reached the sink in the interval")
	default:
		lines = append(lines, fmt.Sprintf("latency: p50=%s p95=%s p99=%s max=%s (%d markers)",
			latencyText(l.P50), latencyText(l.P95), latencyText(l.P99), latencyText(l.Max), l.Markers))
	}
	for _, s := range d.Stragglers {
		lines = append(lines, fmt.Sprintf("straggler: %s instance %d busy %v, %.1f times the median instance's %v",
			iv.Ops[s.Op].Total.Name, s.Instance, s.Busy.Round(time.Microsecond), ratio(float64(s.Busy), float64(s.Median)),
			s.Median.Round(time.Microsecond)))
	}
	for _, s := range d.Skews {
		lines = append(lines, fmt.Sprintf("key skew: %s instance %d received %d of %d rows (%.1f%%), %.1f times the median instance's",
			iv.Ops[s.Op].Total.Name, s.Instance, s.Rows, iv.Ops[s.Op].Total.RowsIn, 100*s.Share, ratio(float64(s.Rows), s.Median)))
	}
	return lines
}

// latencyOff is EXPLAIN ANALYZE's line for a query without latency
// markers.
const latencyOff = "latency: off (SET latency_interval to measure it)"

// rateFigures renders an operator's rates over the interval: λp and λo
// (rows per second of busy time, per instance), the observed rates in
// and out (rows per second of wall time), and the selectivity.
func rateFigures(o dataflow.OpInterval, bottleneck bool) string {
	r := dataflow.RatesOf(o.Total)
	sel := "-"
	if r.HasInput {
		sel = fmt.Sprintf("%.3f", r.Selectivity)
	}
	s := fmt.Sprintf("{λp=%s/s λo=%s/s in=%s/s out=%s/s sel=%s}", rate(r.TrueProcessing), rate(r.TrueOutput),
		rate(r.ObservedIn), rate(r.ObservedOut), sel)
	if bottleneck {
		s += " <- bottleneck"
	}
	return s
}

// rateColumns are the columns SHOW QUERIES ends with: the bottleneck of
// the query's last interval, the rows per second it could take, and the
// latency percentiles of the interval's markers, in milliseconds.
func rateColumns() []Column {
	cols := []Column{{Name: "bottleneck", Type: types.VarcharT}, {Name: "capacity_rows_per_s", Type: types.DoubleT}}
	for _, n := range []string{"latency_p50_ms", "latency_p95_ms", "latency_p99_ms"} {
		cols = append(cols, Column{Name: n, Type: types.DoubleT})
	}
	return cols
}

// rateRow returns the values of rateColumns for q: NULL before its first
// interval ends, with no bottleneck, and for the latency when markers are
// off or none reached the sink in the interval.
func rateRow(e *Engine, q *runningQuery) []types.Datum {
	row := []types.Datum{types.NullDatum, types.NullDatum, types.NullDatum, types.NullDatum, types.NullDatum}
	if q == nil || q.job == nil {
		return row
	}
	r, ok := queryRates(e, q)
	if !ok {
		return row
	}
	if d := r.Diagnosis; d.Bottleneck >= 0 {
		row[0] = types.StringDatum(r.Interval.Ops[d.Bottleneck].Total.Name)
		row[1] = types.FloatDatum(math.Round(10*d.Capacity) / 10)
	}
	if l := r.Interval.Latency; l.Markers > 0 {
		for i, p := range []time.Duration{l.P50, l.P95, l.P99} {
			row[2+i] = types.FloatDatum(math.Round(1000*float64(p)/float64(time.Millisecond)) / 1000)
		}
	}
	return row
}

// rate renders rows per second with one decimal.
func rate(x float64) string { return fmt.Sprintf("%.1f", x) }

// latencyText renders a latency to the microsecond.
func latencyText(d time.Duration) string { return d.Round(time.Microsecond).String() }

// ratio is a/b, or +Inf when b is 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return math.Inf(1)
	}
	return a / b
}

// opRates returns, per operator of stats (q's job's Stats), its rates
// figures over r's interval, the bottleneck marked; nil before the first
// interval ends or when the interval does not list the same operators.
func opRates(stats []dataflow.OpStats, r QueryRates, ok bool) []string {
	if !ok || len(r.Interval.Ops) != len(stats) {
		return nil
	}
	out := make([]string, len(stats))
	for k, o := range r.Interval.Ops {
		if o.Total.Name != stats[k].Name {
			return nil
		}
		out[k] = rateFigures(o, k == r.Diagnosis.Bottleneck)
	}
	return out
}

// joinFigures appends an operator's rates, when it has any, to its
// figures.
func joinFigures(figs string, rates []string, k int) string {
	if rates == nil || strings.TrimSpace(rates[k]) == "" {
		return figs
	}
	return figs + " " + rates[k]
}
