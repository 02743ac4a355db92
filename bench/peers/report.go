package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Print writes the report as a table: per query, the rows of the result,
// each engine's median wall time and the CPU time of that run, its events
// per second (bids over the median wall time), and the ratio of eddy's
// rate to DuckDB's, in wall time and in CPU time (bids per CPU second,
// which a busy machine disturbs less); then every run's wall time.
func (r *Report) Print(w io.Writer) error {
	cfg := r.Config
	par := "default (one per CPU)"
	if cfg.Parallelism > 0 {
		par = fmt.Sprint(cfg.Parallelism)
	}
	fmt.Fprintf(w, "%d bids, medians of %d runs; eddy --parallelism %s, DuckDB threads = %d\n",
		cfg.Rows, cfg.Runs, par, r.DuckDBThreads)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "query\trows out\tDuckDB s\tCPU s\tevents/s\teddy s\tCPU s\tevents/s\teddy/DuckDB\tper CPU s\t")
	for _, res := range r.Results {
		d, e := Median(res.DuckDB), Median(res.Eddy)
		dr, er := rate(cfg.Rows, d.Wall), rate(cfg.Rows, e.Wall)
		fmt.Fprintf(tw, "%s\t%s\t%.3f\t%.2f\t%s\t%.3f\t%.2f\t%s\t%.2f×\t%.2f×\t\n",
			res.Query.Name, d.Check[0],
			d.Wall.Seconds(), d.CPU.Seconds(), humanRate(dr),
			e.Wall.Seconds(), e.CPU.Seconds(), humanRate(er),
			ratio(er, dr), ratio(rate(cfg.Rows, e.CPU), rate(cfg.Rows, d.CPU)))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("printing the table: %w", err)
	}
	fmt.Fprintln(w, "runs (wall s):")
	for _, res := range r.Results {
		fmt.Fprintf(w, "  %-6s DuckDB %s; eddy %s\n", res.Query.Name, walls(res.DuckDB), walls(res.Eddy))
	}
	s := Median(r.Startup)
	fmt.Fprintf(w, "eddy's startup (process, engine and DDL, no view): %.3f s median (%s), part of every eddy time\n",
		s.Wall.Seconds(), walls(r.Startup))
	_, err := fmt.Fprintln(w, "DuckDB: CREATE TABLE v AS <query> in a new in-memory database; eddy: the whole `eddy exec` process, view + FLUSH + a count")
	return err
}

// walls lists the wall times of ms in seconds.
func walls(ms []Measurement) string {
	s := make([]string, len(ms))
	for i, m := range ms {
		s[i] = fmt.Sprintf("%.3f", m.Wall.Seconds())
	}
	return strings.Join(s, ", ")
}

// ratio returns a / b, or 0 when b is 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// humanRate prints events per second with a K or M suffix.
func humanRate(r float64) string {
	switch {
	case r >= 1e6:
		return fmt.Sprintf("%.2fM", r/1e6)
	case r >= 1e3:
		return fmt.Sprintf("%.0fK", r/1e3)
	}
	return fmt.Sprintf("%.0f", r)
}
