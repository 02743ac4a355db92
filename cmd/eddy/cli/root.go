package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/peterh/liner"
	"github.com/spf13/cobra"

	"github.com/eddysql/eddy/cluster"
	"github.com/eddysql/eddy/exec/engine"
	"github.com/eddysql/eddy/internal/hugepage"
	"github.com/eddysql/eddy/storage"
)

// The process exit codes.
const (
	exitOK      = 0
	exitFailure = 1 // a statement or slt record failed, or the engine did
	exitUsage   = 2 // bad flags, arguments or commands
	exitDamaged = 3 // the data directory is damaged (storage.ErrCorrupt)
)

// IO is where a command reads and writes.
type IO struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
	// Terminal says In is the process's interactive terminal, so the shell
	// can edit lines; otherwise input is read whole, like a script.
	Terminal bool
}

// StdIO returns the process's standard streams.
func StdIO() IO {
	_, err := liner.TerminalMode() // fails unless stdin is a terminal
	return IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Terminal: err == nil}
}

// usageError is a mistake in how eddy was invoked.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// exitError ends the process with a code. A reported error has already
// been printed (a statement's ERROR line); others are printed by Main.
type exitError struct {
	code     int
	err      error
	reported bool
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// errReported is returned when a statement failed and its error was printed.
var errReported = &exitError{code: exitFailure, err: errors.New("a statement failed"), reported: true}

// options are the global flags.
type options struct {
	dataDir     string
	fileRoot    string // --file-root: file connectors' root ("" = the working directory)
	format      string
	parallelism int
	timing      bool
	bufferMem   string // --buffer-memory, parsed by checkOptions
	bufferBytes int64
	memLimit    string        // --memory-limit
	stateMem    string        // --state-memory-limit
	stateLimit  int64         // the state limit planMemory chose
	checkpoint  time.Duration // --checkpoint-interval
	alignment   time.Duration // --watermark-alignment
	autoscale   string        // --autoscale
	cpuProfile  string        // --cpuprofile
	memProfile  string        // --memprofile
	hugeHeap    string        // --heap-huge-pages
}

// app is one invocation: its streams and global options.
type app struct {
	io   IO
	opts options
	out  *syncWriter // io.Out, shared with the engine's print sinks
	// openSession opens the engine and a session on it, and returns the
	// function that closes them. It is engineSession except in tests.
	openSession func(ctx context.Context, interactive bool) (session, func() error, error)
	// stopProfile ends the --cpuprofile and --memprofile profiles; nil
	// without either.
	stopProfile func() error
	// conn holds --connect and its login flags.
	conn connectOptions
	// cluster, set by eddy serve --cluster, makes the engine a member of
	// a cluster on Kafka instead of opening the data directory.
	cluster *cluster.Config
	// process says the invocation is the eddy process itself (MainProcess),
	// which may set what is process-wide: the heap's huge pages.
	process bool
	// heapDone is closed once --heap-huge-pages has done its work, in
	// the background, and heap says what it did; nil when it was not
	// asked for.
	heapDone chan struct{}
	heap     hugepage.HeapReservation
}

// Main runs the eddy command line args and returns the exit code. It
// leaves what is process-wide as it is: it is also how tests run eddy.
func Main(ctx context.Context, args []string, stdio IO) int {
	return mainWith(ctx, args, stdio, nil, false)
}

// MainProcess is Main for the eddy process itself, which it may also
// tune as a whole (--heap-huge-pages).
func MainProcess(ctx context.Context, args []string, stdio IO) int {
	return mainWith(ctx, args, stdio, nil, true)
}

// mainWith is Main with a replacement for engineSession (nil: none).
func mainWith(ctx context.Context, args []string, stdio IO, open func(context.Context, bool) (session, func() error, error), process bool) int {
	a := &app{io: stdio, out: &syncWriter{w: stdio.Out}, openSession: open, process: process}
	if a.openSession == nil {
		a.openSession = a.engineSession
	}
	cmd := a.rootCommand()
	cmd.SetArgs(args)
	cmd.SetIn(stdio.In)
	cmd.SetOut(stdio.Out)
	cmd.SetErr(stdio.Err)
	err := cmd.ExecuteContext(ctx)
	a.heapReserved()
	if a.stopProfile != nil {
		if perr := a.stopProfile(); perr != nil && err == nil {
			err = &exitError{err: perr, code: exitFailure}
		}
	}
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if !ee.reported {
			fmt.Fprintf(stdio.Err, "ERROR: %v\n", ee.err)
		}
		return ee.code
	}
	fmt.Fprintf(stdio.Err, "Error: %v\nRun 'eddy --help' for usage.\n", err)
	return exitUsage
}

// rootCommand builds the command tree.
func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "eddy",
		Short: "eddy is a streaming SQL engine",
		Long: `eddy is a streaming SQL engine. Without a command it starts the
interactive shell; with input piped in it runs that input as a script.`,
		SilenceUsage:      true,
		SilenceErrors:     true,
		PersistentPreRunE: a.preRun,
		RunE:              a.run(a.shell),
	}
	a.addConnectFlags(root)
	pf := root.PersistentFlags()
	pf.StringVar(&a.opts.dataDir, "data-dir", "./eddy-data", "directory of the catalog, stream logs and state")
	pf.StringVar(&a.opts.fileRoot, "file-root", "", "directory file connectors are confined to; relative paths resolve against it (default: the directory eddy was started in)")
	pf.StringVar(&a.opts.format, "format", "table", "result format: table, csv or json (one object per line)")
	pf.IntVar(&a.opts.parallelism, "parallelism", 0, "default parallelism of new queries (0: the engine's default)")
	pf.BoolVar(&a.opts.timing, "timing", true, "print elapsed times after results")
	pf.StringVar(&a.opts.bufferMem, "buffer-memory", "64MiB", "each query's budget for batches queued between its stages (e.g. 64MiB, 512KB)")
	pf.StringVar(&a.opts.memLimit, "memory-limit", "", "the memory eddy may use, e.g. 4GiB: the Go runtime's soft limit (GOMEMLIMIT), and half of it bounds the state of all queries; empty: the machine's bound (cgroup limit, ulimit, physical memory)")
	pf.StringVar(&a.opts.autoscale, "autoscale", "off", "ds2: run a DS2 controller that rescales each continuous query live (unless its session SET autoscale = 'off'); off: only for queries created after SET autoscale = 'ds2'")
	pf.DurationVar(&a.opts.checkpoint, "checkpoint-interval", 10*time.Second, "how often the queries of materialized views and sinks are checkpointed, so a restart resumes them instead of replaying their inputs and file sinks publish exactly once (0: never)")
	pf.DurationVar(&a.opts.alignment, "watermark-alignment", 0, "default drift within which each continuous query's sources align their watermarks, a source running ahead waiting for the others (0: only the splits of each generator scan, within 1s; a session's SET watermark_alignment overrides it)")
	pf.StringVar(&a.opts.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run to this file (for go tool pprof)")
	pf.StringVar(&a.opts.memProfile, "memprofile", "", "write a profile of the whole run's allocations to this file (for go tool pprof)")
	pf.StringVar(&a.opts.hugeHeap, "heap-huge-pages", "4GiB", "ask the kernel for transparent huge pages for the first SIZE of memory the Go heap grows into (where transparent_hugepage is madvise; at most the Go runtime's memory limit and half the machine's memory; 0: none): one page fault and one TLB entry per 2 MiB instead of 512")
	pf.StringVar(&a.opts.stateMem, "state-memory-limit", "", "the memory the state of all queries may take together, e.g. 2GiB; a query whose state would pass it fails alone (0: no limit; empty: half of --memory-limit)")
	root.CompletionOptions.HiddenDefaultCmd = true
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })
	shell := &cobra.Command{
		Use:   "shell",
		Short: "Start the interactive shell (the default command)",
		Args:  cobra.NoArgs,
		RunE:  a.run(a.shell),
	}
	a.addConnectFlags(shell)
	root.AddCommand(
		shell,
		a.execCommand(),
		a.sltCommand(),
		a.serveCommand(),
		a.benchCommand(),
		a.versionCommand(),
	)
	return root
}

// checkOptions validates the global flags.
func (a *app) checkOptions() error {
	if _, err := parseFormat(a.opts.format); err != nil {
		return &usageError{err}
	}
	if a.opts.parallelism < 0 {
		return usagef("--parallelism must not be negative, got %d", a.opts.parallelism)
	}
	if a.opts.autoscale != "ds2" && a.opts.autoscale != "off" {
		return usagef("--autoscale must be ds2 or off, got %q", a.opts.autoscale)
	}
	if a.opts.checkpoint < 0 {
		return usagef("--checkpoint-interval must not be negative, got %s", a.opts.checkpoint)
	}
	if a.opts.alignment < 0 || (a.opts.alignment > 0 && a.opts.alignment < time.Millisecond) {
		return usagef("--watermark-alignment must be 0 or at least 1ms, got %s", a.opts.alignment)
	}
	n, err := parseBytes(a.opts.bufferMem)
	if err != nil || n < 1<<10 {
		return usagef("--buffer-memory must be a size of at least 1KiB such as 64MiB, got %q", a.opts.bufferMem)
	}
	a.opts.bufferBytes = n
	var memLimit, stateLimit int64
	if a.opts.memLimit != "" {
		memLimit, err = parseBytes(a.opts.memLimit)
		if err != nil || memLimit < 16<<20 {
			return usagef("--memory-limit must be a size of at least 16MiB such as 1GiB, got %q", a.opts.memLimit)
		}
	}
	if a.opts.stateMem != "" {
		stateLimit, err = parseBytes(a.opts.stateMem)
		if err != nil || (stateLimit != 0 && stateLimit < 1<<20) {
			return usagef("--state-memory-limit must be 0 or a size of at least 1MiB such as 2GiB, got %q", a.opts.stateMem)
		}
	}
	hugeHeap, err := parseBytes(a.opts.hugeHeap)
	if err != nil {
		return usagef("--heap-huge-pages must be a size such as 4GiB, or 0, got %q", a.opts.hugeHeap)
	}
	plan := planMemory(memLimit, stateLimit, a.opts.stateMem != "", detectMemory)
	plan.apply()
	a.opts.stateLimit = plan.stateLimit
	if a.process && hugeHeap > 0 && a.heapDone == nil {
		// At most the runtime's memory limit: the plan's, or GOMEMLIMIT's
		// where the environment set it.
		if limit := debug.SetMemoryLimit(-1); limit < math.MaxInt64 {
			hugeHeap = min(hugeHeap, limit)
		}
		// In the background, while the engine opens: the reservation
		// costs 20-50 ms here, mostly the runtime's metadata for the
		// range, and the engine allocates little before its state.
		a.heapDone = make(chan struct{})
		go func() {
			defer close(a.heapDone)
			a.heap = hugepage.ReserveHeap(hugeHeap)
		}()
	}
	if (a.opts.cpuProfile != "" || a.opts.memProfile != "") && a.stopProfile == nil {
		if a.stopProfile, err = startProfiles(a.opts.cpuProfile, a.opts.memProfile); err != nil {
			return &usageError{err}
		}
	}
	return nil
}

// heapReserved waits for --heap-huge-pages to have done its work, if it
// was asked to, and returns what it did.
func (a *app) heapReserved() hugepage.HeapReservation {
	if a.heapDone != nil {
		<-a.heapDone
	}
	return a.heap
}

// parseBytes reads a size: a number with an optional unit, B, KB, MB, GB
// (powers of 1000) or KiB, MiB, GiB (powers of 1024), case-insensitive.
func parseBytes(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	units := []struct {
		suffix string
		mult   float64
	}{{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"b", 1}}
	mult := 1.0
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 || v*mult > 1<<50 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return int64(v * mult), nil
}

// run adapts a command body: usage errors stay usage errors, damage found
// in the data directory (opening the engine) exits 3, and anything else is
// a failure (exit 1).
func (a *app) run(fn func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		err := fn(cmd, args)
		var ue *usageError
		var ee *exitError
		switch {
		case err == nil || errors.As(err, &ue) || errors.As(err, &ee):
			return err
		case errors.Is(err, storage.ErrCorrupt):
			return &exitError{code: exitDamaged, err: err}
		}
		return &exitError{code: exitFailure, err: err}
	}
}

// engineSession opens the engine the global flags describe and a session
// on it.
func (a *app) engineSession(ctx context.Context, interactive bool) (session, func() error, error) {
	eng, err := a.openEngine(ctx, false)
	if err != nil {
		return nil, nil, err
	}
	closeFn := func() error {
		if err := eng.Close(); err != nil {
			return fmt.Errorf("closing the engine: %w", err)
		}
		return nil
	}
	return eng.NewSession(engine.SessionOptions{Interactive: interactive}), closeFn, nil
}

// openEngine opens the engine the global flags describe. A long start
// (restoring checkpoints, catching up) shows its progress on an updating
// line of a terminal's standard error, or as lines of the output when
// progressLines is set (eddy serve).
func (a *app) openEngine(ctx context.Context, progressLines bool) (*engine.Engine, error) {
	report, clear := startupProgress(a.io.Err, false)
	every := time.Duration(0)
	if progressLines {
		report, clear = startupProgress(a.out, true)
		every = 5 * time.Second
	}
	defer clear()
	dataDir := a.opts.dataDir
	if a.cluster != nil {
		dataDir = "" // a member keeps nothing on its disk
	}
	eng, err := engine.Open(ctx, engine.Config{
		Cluster:       a.cluster,
		OnProgress:    report,
		ProgressEvery: every,
		DataDir:       dataDir,
		FileRoot:      a.opts.fileRoot,
		Parallelism:   a.opts.parallelism,
		Stdout:        a.out,
		BufferBytes:   a.opts.bufferBytes,
		// The state of all queries together stays within its share of
		// the memory bound.
		StateMemoryLimit:   a.opts.stateLimit,
		CheckpointInterval: a.opts.checkpoint,
		WatermarkAlignment: a.opts.alignment,
		Autoscale:          a.engineAutoscale(),
	})
	if err != nil {
		if a.cluster != nil {
			return nil, fmt.Errorf("joining cluster %s: %w", a.cluster.Name, err)
		}
		return nil, fmt.Errorf("opening the engine on %s: %w", a.opts.dataDir, err)
	}
	return eng, nil
}

// syncWriter serializes writes, since the engine's print sinks write to the
// same stream as the results.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// engineAutoscale is --autoscale as the engine takes it: "ds2", or "" for
// off.
func (a *app) engineAutoscale() string {
	if a.opts.autoscale == "ds2" {
		return "ds2"
	}
	return ""
}
