package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/engine"
	"github.com/eddysql/eddy/sql"
)

// outputFormat is how results are printed.
type outputFormat uint8

// The --format values.
const (
	formatTable outputFormat = iota // aligned ASCII table
	formatCSV                       // CSV with a header line
	formatJSON                      // one JSON object per row (JSON lines)
)

var formatNames = map[string]outputFormat{"table": formatTable, "csv": formatCSV, "json": formatJSON}

// parseFormat parses a --format value.
func parseFormat(s string) (outputFormat, error) {
	f, ok := formatNames[strings.ToLower(s)]
	if !ok {
		return 0, fmt.Errorf("unknown format %q (want table, csv or json)", s)
	}
	return f, nil
}

// printer prints results. In the table format everything goes to out; in
// csv and json, out gets only rows so it stays machine-readable, and
// status lines (tags, row counts) go to errOut with notices and errors.
type printer struct {
	out    io.Writer
	errOut io.Writer
	format outputFormat
	timing bool
	// progress, a terminal, shows the progress of long statements on an
	// updating line (nil: not shown).
	progress io.Writer
	// The shell's display (display.go); all zero in scripts.
	display
}

// rowWriter writes rows in one format, header first.
type rowWriter interface {
	header(cols []engine.Column)
	rows(rows [][]types.Datum)
	// end finishes the rows (a table's closing border).
	end()
}

// newRowWriter returns the streaming rowWriter of the printer's format.
func (p *printer) newRowWriter(w io.Writer) rowWriter {
	switch p.format {
	case formatCSV:
		return &csvWriter{w: w}
	case formatJSON:
		return &jsonWriter{w: w}
	}
	return &tableStream{w: w}
}

// printResult prints what a statement returned. A push query's rows are
// printed as they arrive until the stream ends; if it fails or ctx is
// cancelled, the rows so far are counted and the error returned.
func (p *printer) printResult(ctx context.Context, res *engine.Result, start time.Time) error {
	for _, n := range res.Notices {
		fmt.Fprintf(p.errOut, "NOTICE: %s\n", n)
	}
	bw := bufio.NewWriter(p.out)
	defer bw.Flush()
	switch res.Kind {
	case engine.ResultOK:
		bw.Flush()
		p.status(res.Tag + p.elapsed(start, ""))
		return nil
	case engine.ResultStream:
		return p.printStream(ctx, bw, res, start)
	}
	// Rows are written whole, so that a pager can take them.
	var b strings.Builder
	switch {
	case res.Preformatted && p.format == formatTable:
		for _, r := range res.Rows {
			vals := make([]string, len(r))
			for j, d := range r {
				vals[j] = types.Format(d, colType(res.Columns, j))
			}
			fmt.Fprintln(&b, strings.Join(vals, " "))
		}
		p.show(b.String())
		return nil
	case p.format == formatTable:
		p.writeRows(&b, res.Columns, res.Rows)
		fmt.Fprintln(&b, p.elapsed(start, countText(len(res.Rows), "row")))
		p.show(b.String())
		return nil
	default:
		w := p.newRowWriter(&b)
		w.header(res.Columns)
		w.rows(res.Rows)
		w.end()
	}
	p.show(b.String())
	p.status(p.elapsed(start, countText(len(res.Rows), "row")))
	return nil
}

// printStream prints a push query's changes as they arrive.
func (p *printer) printStream(ctx context.Context, bw *bufio.Writer, res *engine.Result, start time.Time) error {
	if res.Stream == nil {
		return errors.New("internal error: a push query without a stream")
	}
	defer res.Stream.Close()
	st := p.startStreamStatus(res.Stream, start)
	w := p.newStreamWriter(bw, res.Columns)
	w.header(res.Columns)
	bw.Flush()
	n := 0
	var err error
	for {
		var batch [][]types.Datum
		batch, err = res.Stream.Next(ctx)
		st.hide()
		w.rows(batch)
		bw.Flush()
		n += len(batch)
		st.show(n)
		if err != nil {
			break
		}
	}
	st.stop()
	w.end()
	bw.Flush()
	p.status(p.elapsed(start, countText(n, "change")))
	if errors.Is(err, io.EOF) {
		return nil
	}
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return errCanceled
	}
	return err
}

// errCanceled is the error shown when the user interrupts a statement.
var errCanceled = errors.New("canceled by user")

// status prints a status line: to out for tables, else to errOut.
func (p *printer) status(line string) {
	w := p.out
	if p.format != formatTable {
		w = p.errOut
	}
	fmt.Fprintln(w, line)
}

// elapsed returns "(what, 3.1 ms)", "(what)", " (3.1 ms)" or "".
func (p *printer) elapsed(start time.Time, what string) string {
	var parts []string
	if what != "" {
		parts = append(parts, what)
	}
	if p.timing {
		parts = append(parts, formatDuration(time.Since(start)))
	}
	if len(parts) == 0 {
		return ""
	}
	s := "(" + strings.Join(parts, ", ") + ")"
	if what == "" {
		s = " " + s
	}
	return s
}

// countText returns "1 row", "2 rows", "0 changes".
func countText(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// formatDuration renders an elapsed time: "0.041 ms", "312.5 ms", "2.41 s".
func formatDuration(d time.Duration) string {
	if d < time.Millisecond {
		return fmt.Sprintf("%.3f ms", float64(d)/float64(time.Millisecond))
	}
	if d < time.Second {
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

// printError prints "ERROR: msg", prefixed by where ("file:line: ") in
// scripts, and for an error with a position its snippet below.
func (p *printer) printError(err error, where string) {
	var b strings.Builder
	if where != "" {
		b.WriteString(where + ": ")
	}
	b.WriteString("ERROR: " + err.Error() + "\n")
	var pe sql.PosError
	if errors.As(err, &pe) {
		if snip := strings.TrimRight(pe.Snippet(), "\n"); snip != "" {
			b.WriteString(snip + "\n")
		}
	}
	io.WriteString(p.errOut, b.String())
}

// colType returns the type of column j, or VARCHAR past the columns.
func colType(cols []engine.Column, j int) types.T {
	if j < len(cols) {
		return cols[j].Type
	}
	return types.VarcharT
}
