package sink

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector"
)

// bufferSize is the size of a file sink's write buffer: large enough that
// a chunk of a few thousand rows takes a handful of write system calls,
// small enough not to matter per sink.
const bufferSize = 64 << 10

// printMu serializes the writes of every print sink, so that lines of sinks
// sharing one Stdout never interleave: each chunk's lines go out in one
// Write call under it.
var printMu sync.Mutex

// Errors of a sink used out of order.
var (
	errNotOpen = errors.New("not open")
	errClosed  = errors.New("used after Close")
)

// Sink is the operator that ends a sink's dataflow: it writes each change
// it receives to a file or to standard output, or counts it (blackhole).
// The runtime calls it from one goroutine; Rows may be called from any.
type Sink struct {
	cfg  Config
	path string   // file: the resolved path
	enc  *encoder // nil for blackhole
	out  io.Writer
	rows atomic.Int64

	file    *os.File
	w       *bufio.Writer
	parts   *partitioned // file with partition_by: writes the partition files instead of file
	regular bool         // file is a regular file, which fsync applies to
	dirty   bool         // bytes were written since the last fsync

	opened, closed bool
	err            error // the first write error: every later call returns it

	// interrupted is set when the query's context ended while the file
	// (not a regular one) was open: a write that waited on it was
	// interrupted (interruptWrites), which is no failure of the sink.
	interrupted   atomic.Bool
	stopInterrupt func() bool // stops interruptWrites' watch; nil without one

	paceStart time.Time // when the rate limit's schedule started
	paced     int64     // rows written under it

	now func() time.Time // the processing-time clock (Env.Now)
	due time.Time        // when the rows waiting in the buffer are written out; zero: none wait
}

var _ exec.Operator = (*Sink)(nil)

// New returns the sink operator for cfg, a *Sink, after validating cfg
// (its connector, path, format and header, and its Names against Types).
// Nothing is opened until Open.
func New(cfg Config) (exec.Operator, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	s := &Sink{cfg: cfg}
	switch cfg.Connector {
	case ConnectorFile:
		if len(cfg.PartitionBy) > 0 {
			p, err := newPartitioned(s)
			if err != nil {
				return nil, err
			}
			s.parts = p
		}
	case ConnectorPrint:
		s.out = cfg.Stdout
		if s.out == nil {
			s.out = os.Stdout
		}
	}
	if cfg.Connector != ConnectorBlackhole {
		s.enc = newEncoder(cfg.Format, !cfg.AppendOnly, cfg.Names, cfg.Types)
	}
	switch {
	case !cfg.TwoPhase:
		return s, nil
	case cfg.Connector == ConnectorFile:
		return &TwoPhase{Sink: s}, nil
	}
	// A checkpointed query's print sink prints again, after a restart,
	// what it printed since the last checkpoint (at least once); a
	// blackhole has nothing to publish.
	return &Unstaged{Sink: s}, nil
}

// Unstaged is a print or blackhole sink in a checkpointed query: it keeps
// no state, and what it wrote since the last checkpoint is written again
// after a restart.
type Unstaged struct {
	*Sink
}

// KeepsNoState implements exec.Stateless.
func (*Unstaged) KeepsNoState() {}

// Rows returns the number of rows (changes) the sink has written, or, for
// blackhole, received.
func (s *Sink) Rows() int64 { return s.rows.Load() }

// Open prepares the sink. A file sink creates its file, or truncates it
// when it exists: its query is recomputed from its inputs' beginning, so
// the file is rewritten from the start. A CSV sink with a header writes it
// here. A file sink cannot be written by parallel instances, unless it
// is partitioned: then each instance writes files of its own, and Open
// creates the root directory and removes the files this instance wrote
// in an earlier run.
func (s *Sink) Open(ctx context.Context, env *exec.Env) error {
	switch {
	case s.closed:
		return s.errorf("%w", errClosed)
	case s.opened:
		return s.errorf("already open")
	}
	var header []byte
	if s.cfg.Header {
		header = s.enc.header()
	}
	if s.cfg.Connector == ConnectorFile {
		// The path is checked again now: a link may have changed since
		// the sink was created.
		path, err := s.cfg.Resolve()
		if err != nil {
			return err
		}
		s.path = path
	}
	s.now = time.Now
	if env != nil {
		s.now = env.Now
	}
	switch {
	case s.parts != nil:
		instance, resuming := 0, false
		if env != nil {
			instance, resuming = env.Instance, env.Resuming
		}
		if s.parts.single && env != nil && env.Parallelism > 1 {
			return s.errorf("%s: cannot be written by %d parallel instances", s.cfg.Path, env.Parallelism)
		}
		if err := s.parts.openRoot(instance, header, resuming); err != nil {
			return err
		}
		s.opened = true
		return nil
	case s.cfg.Connector == ConnectorFile:
		if env != nil && env.Parallelism > 1 {
			return s.errorf("%s: cannot be written by %d parallel instances", s.cfg.Path, env.Parallelism)
		}
		f, regular, err := s.openFile("create", s.path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
		if err != nil {
			return err
		}
		s.file, s.regular = f, regular
		if !regular {
			s.stopInterrupt = s.interruptWrites(ctx, f)
		}
		s.w = bufio.NewWriterSize(f, bufferSize)
	}
	s.opened = true
	if header != nil {
		if err := s.write(header); err != nil {
			return err
		}
		return s.buffered()
	}
	return nil
}

// Process writes the rows of c, one line each. Rows carry their op unless
// the query is append-only; an append-only sink that receives a retraction
// reports it as an error rather than write it as an insert.
func (s *Sink) Process(ctx context.Context, in int, c exec.Chunk, out exec.Emitter) error {
	if err := s.ready(); err != nil {
		return err
	}
	n := c.NumRows()
	if n == 0 {
		return nil
	}
	if err := s.checkOps(c, n); err != nil {
		return err
	}
	if s.parts != nil {
		if err := s.enc.encodeColumns(c); err != nil {
			return s.errorf("%w", err)
		}
		if err := s.parts.write(c, s.enc); err != nil {
			s.err = err
			return err
		}
	} else if s.enc != nil {
		b, err := s.enc.encode(c)
		if err != nil {
			return s.errorf("%w", err)
		}
		if err := s.write(b); err != nil {
			return err
		}
	}
	s.rows.Add(int64(n))
	if err := s.buffered(); err != nil {
		return err
	}
	return s.pace(ctx, n)
}

// OnControl makes the rows written so far durable on a Flush marker, a
// checkpoint barrier and the end of input: the buffer is flushed and a file
// is fsynced, so that once FLUSH returns the file holds every row.
// Watermarks need nothing.
func (s *Sink) OnControl(ctx context.Context, m exec.Control, out exec.Emitter) error {
	if err := s.ready(); err != nil {
		return err
	}
	switch m.Kind {
	case exec.Flush, exec.Barrier, exec.EndOfInput:
		return s.sync()
	}
	return nil
}

// Close flushes what is buffered, fsyncs and closes a file sink's file. It
// is safe without Open and idempotent.
func (s *Sink) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	if !s.opened {
		return nil
	}
	var err error
	if s.parts != nil {
		return s.parts.close(s.err == nil)
	}
	if s.err == nil {
		err = s.sync()
	}
	if s.stopInterrupt != nil {
		s.stopInterrupt()
	}
	if s.file != nil {
		if cerr := s.file.Close(); cerr != nil && err == nil {
			err = s.ioErr("close", cerr)
		}
		s.file, s.w = nil, nil
	}
	return err
}

// ready returns the error that stops the sink from taking input: not
// open, closed, or an earlier write error.
func (s *Sink) ready() error {
	switch {
	case s.err != nil:
		return s.err
	case s.closed:
		return s.errorf("%w", errClosed)
	case !s.opened:
		return s.errorf("%w", errNotOpen)
	}
	return nil
}

// checkOps checks that c's ops are valid for its n rows and, for an
// append-only sink, all inserts.
func (s *Sink) checkOps(c exec.Chunk, n int) error {
	if c.Ops == nil {
		return nil
	}
	if len(c.Ops) != n {
		return s.errorf("chunk has %d ops for %d rows", len(c.Ops), n)
	}
	for i, op := range c.Ops {
		switch {
		case op < exec.Insert || op > exec.UpdateAfter:
			return s.errorf("row %d has invalid op %d", i+1, op)
		case op != exec.Insert && s.cfg.AppendOnly:
			return s.errorf("the query was planned append-only, but row %d is a %s change", i+1, op)
		}
	}
	return nil
}

// write writes b: a file sink's into its buffer, a print sink's in one
// Write call under printMu. A failure is kept and returned from then on.
func (s *Sink) write(b []byte) error {
	switch s.cfg.Connector {
	case ConnectorFile:
		if _, err := s.w.Write(b); err != nil {
			return s.writeErr("write", s.path, err)
		}
		s.dirty = true
	case ConnectorPrint:
		printMu.Lock()
		_, err := s.out.Write(b)
		printMu.Unlock()
		if err != nil {
			s.err = s.errorf("write: %w", err)
			return s.err
		}
	}
	return nil
}

// sync flushes the file sink's buffer and fsyncs its file when bytes were
// written since the last fsync (and the file is a regular one: a device or
// a pipe cannot be synced). A print sink flushes Stdout when it buffers.
func (s *Sink) sync() error {
	s.due = time.Time{} // nothing waits in the buffer any more
	switch {
	case s.parts != nil:
		if err := s.parts.sync(); err != nil {
			s.err = err
			return err
		}
	case s.cfg.Connector == ConnectorFile:
		if err := s.w.Flush(); err != nil {
			return s.writeErr("write", s.path, err)
		}
		if s.dirty && s.regular {
			if err := s.file.Sync(); err != nil {
				s.err = s.ioErr("sync", err)
				return s.err
			}
		}
		s.dirty = false
	case s.cfg.Connector == ConnectorPrint:
		if f, ok := s.out.(interface{ Flush() error }); ok {
			printMu.Lock()
			err := f.Flush()
			printMu.Unlock()
			if err != nil {
				s.err = s.errorf("flush: %w", err)
				return s.err
			}
		}
	}
	return nil
}

// errorf returns an error prefixed with the sink's connector.
func (s *Sink) errorf(format string, args ...any) error {
	return fmt.Errorf(s.cfg.Connector+" sink: "+format, args...)
}

// ioErr returns a file operation's error as "file sink: op path: cause",
// keeping the cause for errors.Is.
func (s *Sink) ioErr(op string, err error) error { return s.pathErr(op, s.path, err) }

// pathErr returns an operation's error on path as "file sink: op path:
// cause", keeping the cause for errors.Is.
func (s *Sink) pathErr(op, path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return s.errorf("%s %s: %w", op, path, err)
}

// pace sleeps as long as the rate limit asks after n more rows: row k is
// written no earlier than k / RateLimit seconds after the first.
func (s *Sink) pace(ctx context.Context, n int) error {
	if s.cfg.RateLimit <= 0 {
		return nil
	}
	if s.paceStart.IsZero() {
		s.paceStart = time.Now()
	}
	s.paced += int64(n)
	return connector.SleepUntil(ctx, s.paceStart.Add(time.Duration(float64(s.paced)/s.cfg.RateLimit*float64(time.Second))))
}
