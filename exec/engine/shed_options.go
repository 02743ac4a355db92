package engine

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/exec/connector"
	"github.com/eddysql/eddy/exec/dataflow"
	"github.com/eddysql/eddy/planner"
	"github.com/eddysql/eddy/sql"
)

// Load shedding of a view's or sink's query (dataflow/shed.go): WITH
// (max_latency = '200ms', shed = 'random') makes the query drop rows at
// its sources when its input outruns it, so that its input waits no longer
// than max_latency, and count every row it drops (SHOW QUERIES, EXPLAIN
// ANALYZE, /metrics). Off unless asked for.

// The WITH options of load shedding.
const (
	optMaxLatency = "max_latency"
	optShed       = "shed"
)

// Shedding modes.
const (
	shedRandom = "random" // drop rows at random, at the sources
	shedWindow = "window" // drop whole windows (not supported yet)
	shedNone   = "none"
)

// shedOptions takes max_latency and shed out of a view's or sink's
// options: the query's load shedding (nil: none) and the other options.
// max_latency alone sheds at random; shed without max_latency, or an
// unknown mode, is an error at its value.
func shedOptions(opts []sql.Option, src *sql.Source) (*catalog.Shed, []sql.Option, error) {
	var (
		latency        time.Duration
		mode           string
		latOpt, modeOp *sql.Option
		rest           = opts[:0:0]
	)
	for i, o := range opts {
		switch o.Key {
		case optMaxLatency:
			d, err := connector.ParseDuration(o.Value)
			if err != nil || d < time.Millisecond {
				return nil, nil, bindErr(o.ValuePos, src, "max_latency must be a duration of at least 1ms such as '200ms' or '2s'; found %s", connector.Quote(o.Value))
			}
			latency, latOpt = d, &opts[i]
		case optShed:
			mode, modeOp = strings.ToLower(strings.TrimSpace(o.Value)), &opts[i]
			switch mode {
			case shedRandom, shedNone:
			case shedWindow:
				return nil, nil, &planner.NotSupportedError{Feature: "shed = 'window' (dropping whole windows); shed = 'random' drops rows at random",
					Pos: o.ValuePos, Line: src.Line(o.ValuePos)}
			default:
				return nil, nil, bindErr(o.ValuePos, src, "shed must be 'random' or 'none'; found %s", connector.Quote(o.Value))
			}
		default:
			rest = append(rest, o)
		}
	}
	switch {
	case mode == shedNone:
		return nil, rest, nil
	case modeOp != nil && latOpt == nil:
		return nil, nil, bindErr(modeOp.KeyPos, src, "shed needs max_latency: the latency to keep the query's input under")
	case latOpt == nil:
		return nil, rest, nil
	}
	return &catalog.Shed{MaxLatencyMs: latency.Milliseconds(), Mode: shedRandom}, rest, nil
}

// shedSpec is the runtime's spec of obj's load shedding; nil when it sheds
// none.
func shedSpec(obj *catalog.Object) *dataflow.ShedSpec {
	if obj.Shed == nil || obj.Shed.MaxLatencyMs <= 0 {
		return nil
	}
	return &dataflow.ShedSpec{MaxLatency: time.Duration(obj.Shed.MaxLatencyMs) * time.Millisecond, Seed: obj.ID}
}

// shedWith renders obj's load shedding as SHOW CREATE's WITH options.
func shedWith(obj *catalog.Object) []string {
	if obj.Shed == nil {
		return nil
	}
	return []string{optMaxLatency + " = " + sql.QuoteString(formatMs(obj.Shed.MaxLatencyMs)), optShed + " = " + sql.QuoteString(obj.Shed.Mode)}
}

// shedSummary is EXPLAIN ANALYZE's line on q's load shedding ("" when it
// sheds none).
func shedSummary(q *runningQuery) string {
	if q.obj.Shed == nil {
		return ""
	}
	var read, shed int64
	for _, st := range q.job.Stats() {
		if st.Source {
			read += st.RowsIn
			shed += st.ShedRows
		}
	}
	share := 0.0
	if read > 0 {
		share = float64(shed) / float64(read)
	}
	return fmt.Sprintf("load shedding: max_latency=%s, dropping %.0f%% now, shed %d of %d rows read (%.1f%%), latency ≈ %s",
		formatMs(q.obj.Shed.MaxLatencyMs), 100*q.job.DropFraction(), shed, read, 100*share,
		q.job.ShedLatency().Round(time.Millisecond))
}

// roundFraction rounds a drop fraction for display.
func roundFraction(f float64) float64 { return math.Round(f*1000) / 1000 }
