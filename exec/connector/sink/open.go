package sink

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// ErrFIFONoReader is why a file sink cannot open a FIFO that no process
// has open for reading. The sink fails at once rather than wait for a
// reader: waiting would hold up its query, every FLUSH and every start of
// eddy on the data directory until some process opens the FIFO.
var ErrFIFONoReader = errors.New("it is a FIFO with no reader (start the reader before the sink)")

// openFile opens path for writing with flag, never blocking (op names
// the operation in errors: create, open). With O_NONBLOCK, opening a FIFO
// that has no reader fails at once (ENXIO, reported as ErrFIFONoReader)
// instead of waiting for one. O_NONBLOCK changes nothing for regular
// files; a FIFO's writes go through Go's poller, so a full pipe parks only
// the sink's goroutine, and a write deadline interrupts it
// (interruptWrites). regular reports whether the file is a regular one,
// which fsync applies to.
func (s *Sink) openFile(op, path string, flag int) (f *os.File, regular bool, err error) {
	f, err = os.OpenFile(path, flag|syscall.O_NONBLOCK, 0o644)
	if err != nil {
		if errors.Is(err, syscall.ENXIO) {
			if info, serr := os.Stat(path); serr == nil && info.Mode()&fs.ModeNamedPipe != 0 {
				return nil, false, s.errorf("cannot open %s: %w", path, ErrFIFONoReader)
			}
		}
		return nil, false, s.pathErr(op, path, err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, false, s.pathErr("stat", path, err)
	}
	return f, info.Mode().IsRegular(), nil
}

// interruptWrites makes a write to f that waits (on a FIFO whose reader
// does not read) return once ctx, the query's lifetime, ends, so that
// stopping the query (DROP, closing eddy) never waits on the reader. It
// returns the function that stops watching ctx. Writes to a regular file
// do not wait that way.
func (s *Sink) interruptWrites(ctx context.Context, f *os.File) (stop func() bool) {
	return context.AfterFunc(ctx, func() {
		s.interrupted.Store(true)
		f.SetWriteDeadline(time.Unix(1, 0)) // in the past: a waiting write returns now
	})
}

// writeErr records and returns the error of a file operation op: the
// query's cancellation when the write was interrupted by it (the query is
// being stopped, which is no failure of the sink), else the I/O error.
func (s *Sink) writeErr(op, path string, err error) error {
	if s.interrupted.Load() && errors.Is(err, os.ErrDeadlineExceeded) {
		s.err = s.errorf("%s %s: %w", op, path, context.Canceled)
	} else {
		s.err = s.pathErr(op, path, err)
	}
	return s.err
}
