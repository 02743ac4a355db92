package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/eddysql/eddy/bench/nexmark"
)

// benchSelf returns the command line that runs this eddy binary again (its
// path, and any arguments that must come before eddy's own): the parent of
// `eddy bench nexmark` runs each query in such a child. Tests replace it,
// since their binary is not eddy.
var benchSelf = func() ([]string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding the eddy binary to run queries in: %w", err)
	}
	return []string{exe}, nil
}

// benchFlags are the flags of `eddy bench nexmark`; --parallelism is the
// global flag.
type benchFlags struct {
	events  int64
	queries string
	json    bool
	rate    float64
	dir     string
	child   string // hidden: run this one query and report it as JSON lines
	// checkpoint is the checkpoint interval (0: none); disk runs the
	// engine on a data directory without checkpoints, their baseline.
	checkpoint time.Duration
	alignment  time.Duration
	disk       bool
	generate   string // read or all
}

// benchCommand is `eddy bench`, the parent of the benchmarks.
func (a *app) benchCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Run benchmarks (nexmark)",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(a.benchNexmarkCommand())
	return cmd
}

// benchNexmarkCommand is `eddy bench nexmark`.
func (a *app) benchNexmarkCommand() *cobra.Command {
	var f benchFlags
	cmd := &cobra.Command{
		Use:   "nexmark [--events N] [--queries q0,q5,...|all] [--parallelism P] [--json] [--rate R] [--generate read|all] [--checkpoint-interval D | --disk]",
		Short: "Run the Nexmark queries over the built-in generator and measure them",
		Long: `Run the Nexmark queries (bench/nexmark/queries/qN.sql, built into eddy; --dir
reads them from a directory instead) over the built-in nexmark generator
into blackhole sinks, each to the end of a bounded run of --events
events (persons, auctions and bids together) in a process of its own, after
a baseline that only drains the generator. For each query it reports the wall
time, the CPU time (and its system part) and cores the process used
(getrusage), events/s,
events/s per core and peak RSS, and each as a ratio to the baseline: as an
aligned table, or with --json as one JSON object per line per query
(fields query, events, wall_s, cpu_s, sys_s, cores, events_per_s,
events_per_s_per_core, peak_rss_bytes, generate; a query that cannot run
has query and error instead). Progress goes to standard error.

Events count the whole sequence whatever a query reads. With --generate read
(the default) only the streams a query scans generate, each its own table
(the columns the query reads): q3, which reads persons and auctions, builds
no bid, and q11 builds no bid's URL. With
--generate all the query's streams build every event of every table with
every column between them, as Flink's and Feldera's Nexmark sources do: the
tables it does not read are built and dropped (the nexmark connector's
generate option). The query sees the same events either way; only the
generator's work, and so the CPU measured, differs.

By default the engine keeps everything in memory and takes no checkpoints.
With --checkpoint-interval D each query's engine runs on a data directory
(Badger, in the query's scratch directory, deleted afterwards) and its job
is checkpointed every D into a state store there, as a view's or a sink's
query is in eddy; the report adds the checkpoints that committed during the
run (FLUSH at the end takes one more), the bytes of state they wrote, and
their median and longest duration (fields checkpoints, checkpoint_bytes,
checkpoint_median_ms, checkpoint_max_ms, and checkpoints_failed if any
failed). --disk runs on such a data directory without checkpoints: the
baseline to compare a checkpointed run with.

A query eddy cannot run yet is reported with its error and the others still
run; the exit status is 1 only when the run itself fails (the baseline, or
writing the report).`,
		Args: cobra.NoArgs,
		RunE: a.run(func(cmd *cobra.Command, _ []string) error {
			return a.benchNexmark(cmd.Context(), f)
		}),
	}
	fl := cmd.Flags()
	fl.Int64Var(&f.events, "events", nexmark.DefaultEvents, "length of the generated event sequence per query (persons + auctions + bids)")
	fl.StringVar(&f.queries, "queries", "all", "queries to run: q0,q5,... or all")
	fl.BoolVar(&f.json, "json", false, "print one JSON object per line per query instead of a table")
	fl.Float64Var(&f.rate, "rate", 0, "throttle the generator to this many events/s (0: unthrottled)")
	fl.StringVar(&f.dir, "dir", "", "read the query files (qN.sql) and the data files they read from this directory instead of the queries built into eddy")
	fl.DurationVar(&f.checkpoint, "checkpoint-interval", 0, "checkpoint each query's job this often into a state store on disk (0: no checkpoints)")
	fl.DurationVar(&f.alignment, "watermark-alignment", 0, "align the watermarks of each query's sources within this drift (0: only the splits of each generator scan, within 1s; see SET watermark_alignment)")
	fl.BoolVar(&f.disk, "disk", false, "run each query's engine on a data directory on disk, without checkpoints unless --checkpoint-interval says")
	fl.StringVar(&f.generate, "generate", nexmark.GenerateRead, "what the generator makes: read (the tables each query reads) or all (every event of every table, every column)")
	fl.StringVar(&f.child, "child", "", "run one query in this process and report it as JSON lines (used by the bench itself)")
	_ = fl.MarkHidden("child") // the flag exists: MarkHidden cannot fail
	return cmd
}

// benchConfig checks the flags and returns the run's configuration.
func (a *app) benchConfig(f benchFlags) (nexmark.Config, error) {
	if f.events < 1 {
		return nexmark.Config{}, usagef("--events must be at least 1, got %d", f.events)
	}
	if f.rate < 0 {
		return nexmark.Config{}, usagef("--rate must not be negative, got %g", f.rate)
	}
	if f.checkpoint < 0 {
		return nexmark.Config{}, usagef("--checkpoint-interval must not be negative, got %s", f.checkpoint)
	}
	if f.alignment < 0 || (f.alignment > 0 && f.alignment < time.Millisecond) {
		return nexmark.Config{}, usagef("--watermark-alignment must be 0 or at least 1ms, got %s", f.alignment)
	}
	if f.generate != nexmark.GenerateRead && f.generate != nexmark.GenerateAll {
		return nexmark.Config{}, usagef("--generate must be %s or %s, got %q", nexmark.GenerateRead, nexmark.GenerateAll, f.generate)
	}
	p := a.opts.parallelism
	if p == 0 {
		p = runtime.NumCPU()
	}
	dir := f.dir
	if dir != "" {
		// Name it absolutely in messages and to the children.
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nexmark.Config{}, usagef("--dir %s: %v", dir, err)
		}
		dir = abs
	}
	c := nexmark.Config{Events: f.events, Parallelism: p, Rate: f.rate, Dir: dir, CheckpointInterval: f.checkpoint, OnDisk: f.disk,
		WatermarkAlignment: f.alignment,
		Generate:           f.generate}
	if err := c.Validate(); err != nil {
		return nexmark.Config{}, &usageError{err}
	}
	return c, nil
}

// benchNexmark runs `eddy bench nexmark`: the whole benchmark, or with
// --child one query in this process.
func (a *app) benchNexmark(ctx context.Context, f benchFlags) error {
	c, err := a.benchConfig(f)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	if f.child != "" {
		return a.benchChild(ctx, c, f.child)
	}
	if _, _, err := nexmark.ParseList(f.queries); err != nil {
		return usagef("--queries: %v", err)
	}
	queries, err := nexmark.LoadQueries(c.Dir, f.queries)
	if err != nil {
		return &usageError{err}
	}
	self, err := benchSelf()
	if err != nil {
		return err
	}
	_, err = nexmark.Run(ctx, nexmark.Options{
		Config:   c,
		Queries:  queries,
		JSON:     f.json,
		Out:      a.out,
		Err:      a.io.Err,
		Terminal: isTerminal(a.io.Err),
		Command: func(ctx context.Context, query string) *exec.Cmd {
			args := append(append([]string(nil), self[1:]...), "--parallelism", strconv.Itoa(c.Parallelism),
				"bench", "nexmark", "--child", query, "--dir", c.Dir,
				"--events", strconv.FormatInt(c.Events, 10), "--rate", strconv.FormatFloat(c.Rate, 'g', -1, 64),
				"--checkpoint-interval", c.CheckpointInterval.String(), "--disk="+strconv.FormatBool(c.OnDisk),
				"--watermark-alignment", c.WatermarkAlignment.String(),
				"--generate", c.Generate, "--heap-huge-pages", a.opts.hugeHeap)
			return exec.CommandContext(ctx, self[0], args...)
		},
	})
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return errCanceled
	}
	return err
}

// benchChild runs one query (or the baseline) in this process and reports
// it on standard output as nexmark.ServeChild does. A query's error has
// been reported there, so it is not printed again.
func (a *app) benchChild(ctx context.Context, c nexmark.Config, name string) error {
	q := nexmark.Baseline()
	if name != nexmark.BaselineName {
		qs, err := nexmark.LoadQueries(c.Dir, name)
		if err != nil {
			return &usageError{err}
		}
		if len(qs) != 1 {
			return usagef("--child runs one query, got %q", name)
		}
		q = qs[0]
	}
	if err := nexmark.ServeChild(ctx, c, q, a.out); err != nil {
		return &exitError{code: exitFailure, err: err, reported: true}
	}
	return nil
}

// isTerminal reports whether w is a terminal (a character device), where
// a progress line can be rewritten in place.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
