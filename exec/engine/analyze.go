package engine

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/dataflow"
	"github.com/eddysql/eddy/optimizer/physical"
	"github.com/eddysql/eddy/sql"
)

// showQueries lists every continuous query — behind a view, a sink, a
// derived stream or a continuous insert — by name, with its kind, its
// status (running, finished or failed: <error>) and, while it has a job,
// its rates, lag and watermark, then its last policy interval's
// bottleneck, capacity and latency (rateColumns). A query that could not
// resume is listed as failed, with zeros and NULLs.
func (s *Session) showQueries() (*Result, error) {
	e := s.eng
	cols := textColumns("name", "kind", "status")
	for _, n := range []string{"parallelism", "rows_in", "rows_out", "rows_per_s", "late_rows", "bad_rows"} {
		t := types.BigIntT
		if n == "rows_per_s" {
			t = types.DoubleT
		}
		cols = append(cols, Column{Name: n, Type: t})
	}
	cols = append(cols, Column{Name: "watermark", Type: types.TimestampT(3)}, Column{Name: "lag", Type: types.VarcharT},
		Column{Name: "backlog", Type: types.BigIntT}, Column{Name: "shed_rows", Type: types.BigIntT}, Column{Name: "drop_fraction", Type: types.DoubleT},
		Column{Name: "shed_windows", Type: types.BigIntT})
	cols = append(cols, rateColumns()...)
	var rows [][]types.Datum
	for _, o := range e.continuousObjects() {
		e.mu.Lock()
		q := e.queries[lower(o.Name)]
		e.mu.Unlock()
		row := []types.Datum{types.StringDatum(o.Name), types.StringDatum(e.queryKind(o)), types.StringDatum(e.status(o.Name).String()),
			types.IntDatum(0), types.IntDatum(0), types.IntDatum(0), types.FloatDatum(0), types.IntDatum(0), types.IntDatum(0),
			types.NullDatum, types.StringDatum("0s"), types.IntDatum(0), types.IntDatum(0), types.FloatDatum(0), types.IntDatum(0)}
		if q != nil && q.job != nil {
			queryMetrics(q, row)
		}
		row = append(row, rateRow(e, q)...)
		rows = append(rows, row)
	}
	return rowsResult("SHOW", cols, rows), nil
}

// queryMetrics fills the columns of SHOW QUERIES after the status with the
// metrics of q's job. The backlog is the rows its sources know are still
// to come, estimated (Progress): while a new view catches up on a long
// history, rows_in and backlog show how far it has come.
func queryMetrics(q *runningQuery, row []types.Datum) {
	var in, out, late, bad, backlog, shed, shedWindows int64
	var lag time.Duration
	wm := int64(0)
	stats := q.job.Stats()
	for i, st := range stats {
		if st.Source {
			in += st.RowsIn
			late += st.LateRows
			bad += st.BadRows
			backlog += st.Backlog
			shed += st.ShedRows
			shedWindows += st.ShedWindows
			lag = max(lag, st.Lag)
		}
		if i == len(stats)-1 {
			out, wm = st.RowsIn, st.Watermark
		}
	}
	up := time.Since(q.job.Started()).Seconds()
	row[3], row[4], row[5] = types.IntDatum(int64(q.job.Parallelism())), types.IntDatum(in), types.IntDatum(out)
	row[6] = types.FloatDatum(math.Round(10*float64(in)/max(up, 1e-3)) / 10)
	row[7], row[8] = types.IntDatum(late), types.IntDatum(bad)
	row[10] = types.StringDatum(lag.Round(time.Millisecond).String())
	row[11] = types.IntDatum(backlog)
	row[12], row[13], row[14] = types.IntDatum(shed), types.FloatDatum(roundFraction(q.job.DropFraction())), types.IntDatum(shedWindows)
	if wm != 0 && wm != exec.MaxWatermark {
		row[9] = types.IntDatum(wm)
	}
}

// queryKind is the kind SHOW QUERIES gives the query of o: materialized
// view, sink, stream (a derived stream) or insert into <stream>.
func (e *Engine) queryKind(o *catalog.Object) string {
	if target, ok := e.insertTarget(o); ok {
		return "insert into " + target
	}
	return o.Kind.String()
}

// explainAnalyze prints a running query's plan with each operator's
// figures, summed over its instances, and its rates over the last policy
// interval with their diagnosis (analyze_rates.go).
func (s *Session) explainAnalyze(st *sql.Explain) (*Result, error) {
	e := s.eng
	e.mu.Lock()
	q := e.queries[lower(st.Target.Name)]
	e.mu.Unlock()
	if q == nil {
		return nil, bindErr(st.Target.Pos, st.Source(), "'%s' is not a running continuous query (a view, sink or derived stream)", st.Target.Name)
	}
	if q.job == nil {
		return nil, fmt.Errorf("%s %s runs as tasks spread over the cluster's members, which EXPLAIN ANALYZE does not gather yet: SHOW CLUSTER says which member runs which", q.obj.Kind, q.obj.Name)
	}
	// Each operator's figures, and its rates over the last policy
	// interval, by physical plan node; the sink has none.
	stats := q.job.Stats()
	rates, ratesOK := queryRates(e, q)
	perOp := opRates(stats, rates, ratesOK)
	byNode := map[int][]string{}
	sinkFigures := ""
	for k, os := range stats {
		figs := joinFigures(figures(os), perOp, k)
		if os.NodeID == 0 {
			sinkFigures = os.Name + "  " + figs
			continue
		}
		byNode[os.NodeID] = append(byNode[os.NodeID], figs)
	}
	state, jerr := q.job.State()
	head := fmt.Sprintf("%s %s (%s, running for %s)", q.obj.Kind, q.obj.Name, state, time.Since(q.job.Started()).Round(time.Millisecond))
	if jerr != nil {
		head += ": " + jerr.Error()
	}
	var b strings.Builder
	b.WriteString(head + "\n")
	if line := shedSummary(q); line != "" {
		b.WriteString(line + "\n")
	}
	if line := checkpointSummary(q); line != "" {
		b.WriteString(line + "\n")
	}
	if line := restoringSummary(q); line != "" {
		b.WriteString(line + "\n")
	}
	for _, line := range e.joinSwitchLines(q) {
		b.WriteString(line + "\n")
	}
	for _, line := range rateLines(rates, ratesOK) {
		b.WriteString(line + "\n")
	}
	if sinkFigures != "" {
		b.WriteString(sinkFigures + "\n")
	}
	analyzeTree(&b, q.plan, byNode, map[physical.Node]bool{}, "└── ", "    ")
	res := &Result{Kind: ResultRows, Preformatted: true, Columns: []Column{{Name: "plan", Type: types.VarcharT}}}
	for _, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		res.Rows = append(res.Rows, []types.Datum{types.StringDatum(line)})
	}
	res.Tag = fmt.Sprintf("EXPLAIN %d", len(res.Rows))
	return res, nil
}

// analyzeTree prints the plan under n with each operator's figures; a
// sub-plan the query shares, once (done: those printed).
func analyzeTree(b *strings.Builder, n physical.Node, byNode map[int][]string, done map[physical.Node]bool, first, rest string) {
	h := n.Hdr()
	if done[n] {
		b.WriteString(first + physical.SharedLine(n) + "\n")
		return
	}
	done[n] = true
	b.WriteString(first + physical.Line(n))
	for _, figs := range byNode[h.ID] {
		b.WriteString("  " + figs)
	}
	b.WriteString("\n")
	for i, c := range h.Inputs {
		if i == len(h.Inputs)-1 {
			analyzeTree(b, c, byNode, done, rest+"└── ", rest+"    ")
		} else {
			analyzeTree(b, c, byNode, done, rest+"├── ", rest+"│   ")
		}
	}
}

// figures renders an operator's figures: rows, how its time was spent,
// watermark, late rows and state.
func figures(s dataflow.OpStats) string {
	pct := func(d time.Duration) float64 {
		if s.Wall <= 0 {
			return 0
		}
		return 100 * float64(d) / float64(s.Wall)
	}
	parts := []string{fmt.Sprintf("instances=%d", s.Instances)}
	if !s.Source {
		parts = append(parts, fmt.Sprintf("rows_in=%d", s.RowsIn))
	}
	parts = append(parts, fmt.Sprintf("rows_out=%d", s.RowsOut),
		fmt.Sprintf("busy=%.1f%% idle=%.1f%% backpressured=%.1f%%", pct(s.Busy), pct(s.Idle), pct(s.Backpressure)))
	if s.Watermark != 0 {
		w := "+inf"
		if s.Watermark != exec.MaxWatermark {
			w = types.FormatTimestamp(s.Watermark, 3)
		}
		parts = append(parts, "watermark="+w)
	}
	if s.LateRows > 0 || s.Source {
		parts = append(parts, fmt.Sprintf("late_rows=%d", s.LateRows))
	}
	if s.BadRows > 0 {
		parts = append(parts, fmt.Sprintf("bad_rows=%d", s.BadRows))
	}
	if s.ShedRows > 0 {
		parts = append(parts, fmt.Sprintf("shed_rows=%d", s.ShedRows))
	}
	if s.ShedWindows > 0 {
		parts = append(parts, fmt.Sprintf("shed_windows=%d", s.ShedWindows))
	}
	for _, c := range s.Counts {
		parts = append(parts, fmt.Sprintf("%s=%d", c.Name, c.Value))
	}
	if s.Note != "" {
		parts = append(parts, "note: "+s.Note)
	}
	if s.StateKeys > 0 || s.StateBytes > 0 {
		st := fmt.Sprintf("state=%d keys/%sB", s.StateKeys, physical.Human(float64(s.StateBytes)))
		if s.StateKeys > 0 {
			// Memory per key: per stored row, for a materialized view.
			st += fmt.Sprintf(" (%.0fB/key)", float64(s.StateBytes)/float64(s.StateKeys))
		}
		if s.StateArrowBytes > 0 {
			// The rows kept, as Arrow arrays would hold them.
			st += fmt.Sprintf(" rows_as_arrow=%sB (state %.2f×)", physical.Human(float64(s.StateArrowBytes)),
				float64(s.StateBytes)/float64(s.StateArrowBytes))
		}
		parts = append(parts, st)
	}
	if s.Lag > 0 {
		parts = append(parts, "lag="+s.Lag.Round(time.Millisecond).String())
	}
	return "[" + strings.Join(parts, " ") + "]"
}
