package nexmark

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// errorLine is the JSON line of a query that could not run.
type errorLine struct {
	Query string `json:"query"`
	Error string `json:"error"`
}

// WriteJSON writes an outcome as one JSON line: the Figures' fields, or
// the query and its error when it could not run.
func WriteJSON(w io.Writer, o Outcome) error {
	var v any = o.Figures
	if o.Err != nil {
		v = errorLine{Query: o.Query, Error: o.Err.Error()}
	}
	line, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", o.Query, err)
	}
	_, err = w.Write(append(line, '\n'))
	return err
}

// Describe returns the lines that say how a run was made, for the top of
// its report.
func Describe(c Config) []string {
	rate := "unthrottled"
	if c.Rate > 0 {
		rate = "throttled to " + humanRate(c.Rate) + " events/s"
	}
	state := "state in memory, no checkpoints"
	switch {
	case c.CheckpointInterval > 0:
		state = "checkpoints every " + c.CheckpointInterval.String() + " into a Badger data directory"
	case c.OnDisk:
		state = "a Badger data directory, no checkpoints"
	}
	generated := "generating only the tables each query reads, every column (--generate read),"
	if c.generate() == GenerateAll {
		generated = "generating every event of every table, every column, whatever the query reads (--generate all),"
	}
	return []string{
		fmt.Sprintf("nexmark: %s events per query (event times 0.1 ms apart), parallelism %d, generator in process and %s,",
			groupThousands(c.Events), c.parallelism(), rate),
		generated,
		"blackhole sinks, each query in its own process, " + state + aligned(c) + ";",
		"cores = CPU s / wall s, events/s/core = events / CPU s.",
		"baseline: " + BaselineDescription + "; (×) = ratio to the baseline.",
	}
}

// tableHeader names the table's columns; checkpointHeader those added
// when a run took checkpoints.
var (
	tableHeader      = []string{"query", "events", "wall s", "cpu s", "cores", "events/s", "events/s/core", "peak RSS"}
	checkpointHeader = []string{"checkpoints", "written", "median ms", "max ms", "sync max ms"}
)

// WriteTable writes the outcomes as an aligned table, the baseline (the
// outcome named BaselineName, if any) first, every other figure followed by
// its ratio to the baseline's, and a line per query that could not run.
// When a run took checkpoints, columns for them follow.
func WriteTable(w io.Writer, outcomes []Outcome) error {
	var base *Figures
	for i := range outcomes {
		if outcomes[i].Query == BaselineName && outcomes[i].Err == nil {
			base = &outcomes[i].Figures
		}
	}
	checkpointed := false
	for _, o := range outcomes {
		checkpointed = checkpointed || o.Err == nil && o.Figures.Checkpoints+o.Figures.CheckpointsFailed > 0
	}
	header := tableHeader
	if checkpointed {
		header = append(slices.Clip(header), checkpointHeader...)
	}
	rows := [][]string{header}
	var failed []Outcome
	var order []int // for each outcome, its row, or -1 when it failed
	for _, o := range outcomes {
		if o.Err != nil {
			failed = append(failed, o)
			order = append(order, -1)
			continue
		}
		order = append(order, len(rows))
		row := tableRow(o.Figures, base)
		if checkpointed {
			row = append(row, checkpointCells(o.Figures)...)
		}
		rows = append(rows, row)
	}
	widths := make([]int, len(header))
	for _, r := range rows {
		for i, cell := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	var b strings.Builder
	writeRow(&b, rows[0], widths)
	for i, o := range outcomes {
		if order[i] >= 0 {
			writeRow(&b, rows[order[i]], widths)
			continue
		}
		fmt.Fprintf(&b, "%-*s  cannot run: %s\n", widths[0], o.Query, oneLine(o.Err.Error()))
	}
	ran := len(outcomes) - len(failed)
	if base != nil {
		ran-- // the baseline is not a query
	}
	fmt.Fprintf(&b, "%d of %d queries ran", ran, ran+len(failed))
	if len(failed) > 0 {
		fmt.Fprintf(&b, "; %d could not run", len(failed))
	}
	b.WriteString(".\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// tableRow formats one query's figures, with ratios unless it is the
// baseline or there is none.
func tableRow(f Figures, base *Figures) []string {
	row := []string{
		f.Query, groupThousands(f.Events),
		strconv.FormatFloat(f.WallS, 'f', 3, 64), strconv.FormatFloat(f.CPUS, 'f', 3, 64),
		strconv.FormatFloat(f.Cores, 'f', 2, 64), humanRate(f.EventsPerS), humanRate(f.EventsPerSPerCore),
		humanBytes(f.PeakRSSBytes),
	}
	if base == nil || f.Query == BaselineName {
		return row
	}
	r := f.RatiosTo(*base)
	for i, x := range []float64{r.Wall, r.CPU, r.Cores, r.EventsPerS, r.EventsPerSPerCore, r.PeakRSS} {
		row[2+i] += " " + ratioText(x)
	}
	return row
}

// checkpointCells formats a run's checkpoints: how many committed (and
// failed, if any), the bytes they wrote, their median and longest
// duration, and the longest synchronous part.
func checkpointCells(f Figures) []string {
	n := strconv.Itoa(f.Checkpoints)
	if f.CheckpointsFailed > 0 {
		n += fmt.Sprintf(" (%d failed)", f.CheckpointsFailed)
	}
	return []string{n, humanBytes(f.CheckpointBytes),
		strconv.FormatFloat(f.CheckpointMedianMs, 'f', 1, 64), strconv.FormatFloat(f.CheckpointMaxMs, 'f', 1, 64),
		strconv.FormatFloat(f.CheckpointSyncMs, 'f', 1, 64)}
}

// writeRow writes the cells of a row, the first left-aligned and the
// others right-aligned, in columns of the given widths.
func writeRow(b *strings.Builder, cells []string, widths []int) {
	for i, c := range cells {
		pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
		switch {
		case i == 0:
			b.WriteString(c + pad)
		default:
			b.WriteString("  " + pad + c)
		}
	}
	b.WriteByte('\n')
}

// ratioText formats a ratio as (1.23×), or (-) when there is none.
func ratioText(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "(-)"
	}
	return "(" + strconv.FormatFloat(x, 'f', 2, 64) + "×)"
}

// humanRate formats a rate with three significant digits and a K or M
// suffix: 812K, 20.8M.
func humanRate(x float64) string {
	switch {
	case x >= 1e9:
		return sig3(x/1e9) + "G"
	case x >= 1e6:
		return sig3(x/1e6) + "M"
	case x >= 1e3:
		return sig3(x/1e3) + "K"
	}
	return sig3(x)
}

// sig3 formats x (below 1000) with three significant digits.
func sig3(x float64) string {
	switch {
	case x >= 100:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case x >= 10:
		return strconv.FormatFloat(x, 'f', 1, 64)
	}
	return strconv.FormatFloat(x, 'f', 2, 64)
}

// humanBytes formats a byte count in MiB (or GiB from 10 GiB on).
func humanBytes(n int64) string {
	const mib = 1 << 20
	if n >= 10<<30 {
		return strconv.FormatFloat(float64(n)/(1<<30), 'f', 1, 64) + " GiB"
	}
	return strconv.FormatFloat(float64(n)/mib, 'f', 1, 64) + " MiB"
}

// groupThousands formats n with commas between groups of three digits.
func groupThousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// oneLine joins the lines of a message (an error with a snippet) with
// " / ", so that it stays on one line of a table or progress display.
func oneLine(s string) string {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
	return strings.Join(fields, " / ")
}

// aligned describes the run's watermark alignment, if it has one.
func aligned(c Config) string {
	if c.WatermarkAlignment <= 0 {
		return ""
	}
	return ", sources' watermarks aligned within " + c.WatermarkAlignment.String()
}
