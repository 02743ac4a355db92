package engine

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/exec/connector"
	"github.com/eddysql/eddy/exec/dataflow"
	"github.com/eddysql/eddy/optimizer/physical"
	"github.com/eddysql/eddy/sql"
)

// Load shedding of a view's or sink's query (dataflow/shed.go): WITH
// (max_latency = '200ms', shed = 'random') makes the query drop rows at
// its sources when its input outruns it, so that its input waits no longer
// than max_latency, and count every row it drops (SHOW QUERIES, EXPLAIN
// ANALYZE, /metrics). shed = 'window' drops whole TUMBLE windows instead
// (shed_window.go). Off unless asked for.

// The WITH options of load shedding.
const (
	optMaxLatency = "max_latency"
	optShed       = "shed"
)

// Shedding modes.
const (
	shedRandom = "random" // drop rows at random, at the sources
	shedWindow = "window" // drop whole windows, at the sources
	shedNone   = "none"
)

// shedOptions takes max_latency and shed out of a view's or sink's
// options: the query's load shedding (nil: none) and the other options.
// max_latency alone sheds at random; shed without max_latency, or an
// unknown mode, is an error at its value. Whether the query can shed
// whole windows is checked once it is planned (checkShed).
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
			case shedRandom, shedWindow, shedNone:
			default:
				return nil, nil, bindErr(o.ValuePos, src, "shed must be 'random', 'window' or 'none'; found %s", connector.Quote(o.Value))
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
	if mode == "" {
		mode = shedRandom
	}
	return &catalog.Shed{MaxLatencyMs: latency.Milliseconds(), Mode: mode}, rest, nil
}

// checkShed checks that the planned query cq of obj can shed as obj
// asks: a shedWindowError when it sheds whole windows and cannot.
func checkShed(obj *catalog.Object, cq *compiledQuery) error {
	if obj.Shed == nil || obj.Shed.Mode != shedWindow {
		return nil
	}
	_, err := windowShed(cq.phys)
	return err
}

// shedSpec is the runtime's spec of the load shedding of obj, whose
// physical plan is phys; nil when it sheds none.
func shedSpec(obj *catalog.Object, phys physical.Node) (*dataflow.ShedSpec, error) {
	if obj.Shed == nil || obj.Shed.MaxLatencyMs <= 0 {
		return nil, nil
	}
	spec := &dataflow.ShedSpec{MaxLatency: time.Duration(obj.Shed.MaxLatencyMs) * time.Millisecond, Seed: obj.ID}
	if obj.Shed.Mode == shedWindow {
		w, err := windowShed(phys)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", obj.Kind, obj.Name, err)
		}
		spec.Window = w
	}
	return spec, nil
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
	var read, shed, windows int64
	for _, st := range q.job.Stats() {
		if st.Source {
			read += st.RowsIn
			shed += st.ShedRows
			windows += st.ShedWindows
		}
	}
	share := 0.0
	if read > 0 {
		share = float64(shed) / float64(read)
	}
	whole := ""
	if q.obj.Shed.Mode == shedWindow {
		whole = fmt.Sprintf(" in %d whole windows", windows)
	}
	return fmt.Sprintf("load shedding: max_latency=%s, dropping %.0f%% now, shed %d of %d rows read (%.1f%%)%s, latency ≈ %s",
		formatMs(q.obj.Shed.MaxLatencyMs), 100*q.job.DropFraction(), shed, read, 100*share, whole,
		q.job.ShedLatency().Round(time.Millisecond))
}

// roundFraction rounds a drop fraction for display.
func roundFraction(f float64) float64 { return math.Round(f*1000) / 1000 }
