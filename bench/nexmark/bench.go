package nexmark

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
)

// Options configure a benchmark run.
type Options struct {
	Config
	// Queries are the queries to run, in order; the baseline runs first.
	Queries []Query
	// JSON prints one JSON line per query (WriteJSON) as each ends,
	// instead of a table at the end.
	JSON bool
	// Out receives the report; Err the progress display.
	Out, Err io.Writer
	// Terminal says Err is a terminal, where the progress line is
	// rewritten in place.
	Terminal bool
	// Command returns the command that runs one query, by name
	// (BaselineName for the baseline), in a child process that reports
	// with ServeChild under the same Config. It must not set the command's
	// Stdout or Stderr.
	Command func(ctx context.Context, query string) *exec.Cmd
}

// Run runs the baseline and then every query, each in its own child
// process, and writes the report. A query that fails is reported with its
// error and the run goes on; Run returns the outcomes (the baseline's
// first) and an error only when the run itself fails: the baseline cannot
// run, the report cannot be written, or ctx is cancelled.
func Run(ctx context.Context, o Options) ([]Outcome, error) {
	if err := o.Config.Validate(); err != nil {
		return nil, err
	}
	if o.Command == nil {
		return nil, errors.New("nexmark: Options.Command is not set")
	}
	disp := newDisplay(o.Err, o.Terminal)
	defer disp.clear()
	if o.JSON {
		for _, l := range Describe(o.Config) {
			disp.println(l)
		}
	}
	names := append([]string{BaselineName}, make([]string, len(o.Queries))...)
	for i, q := range o.Queries {
		names[i+1] = q.Name
	}
	var outcomes []Outcome
	for i, name := range names {
		pos := i + 1
		disp.status(runningLine(pos, len(names), name, Progress{}), true)
		fig, err := runChild(o.Command(ctx, name), func(p Progress) {
			disp.status(runningLine(pos, len(names), name, p), false)
		})
		if ctx.Err() != nil {
			return outcomes, fmt.Errorf("nexmark: %w", ctx.Err())
		}
		out := Outcome{Query: name, Figures: fig, Err: err}
		if name == BaselineName && err != nil {
			return nil, fmt.Errorf("the baseline (the generator alone) failed, so nothing can be compared with it: %w", err)
		}
		outcomes = append(outcomes, out)
		disp.status(doneLine(pos, len(names), out), true)
		if o.JSON {
			disp.clear()
			if err := WriteJSON(o.Out, out); err != nil {
				return outcomes, fmt.Errorf("writing the report: %w", err)
			}
		}
	}
	disp.clear()
	if o.JSON {
		return outcomes, nil
	}
	var b []byte
	for _, l := range Describe(o.Config) {
		b = append(b, l+"\n"...)
	}
	b = append(b, '\n')
	if _, err := o.Out.Write(b); err != nil {
		return outcomes, fmt.Errorf("writing the report: %w", err)
	}
	if err := WriteTable(o.Out, outcomes); err != nil {
		return outcomes, fmt.Errorf("writing the report: %w", err)
	}
	return outcomes, nil
}
