package sink

import (
	"context"
	"time"

	"github.com/eddysql/eddy/exec"
)

// A file sink's rows wait in a buffer, so that a fast query writes them
// in large writes; but they must not wait long, whatever the input rate:
// a reader of the file (tail -f, another eddy) would see nothing of a
// trickle of rows until the buffer filled. So the sink is an
// exec.ProcessingTimer: when rows start to wait it arms a timer for the
// flush interval, and when the timer is due — more input or not — it
// writes the buffer out. Writing out is not fsync: durability stays with
// FLUSH, checkpoints and the end of input (sync).

var _ exec.ProcessingTimer = (*Sink)(nil)

// flushInterval returns how long rows may wait in the buffer, or
// FlushEveryChunk.
func (s *Sink) flushInterval() time.Duration {
	if s.cfg.FlushInterval == 0 {
		return DefaultFlushInterval
	}
	return s.cfg.FlushInterval
}

// buffered is called after rows went into a file sink's buffers: with
// FlushEveryChunk they are written out now, otherwise the timer is armed
// (unless it is already) for one flush interval from now.
func (s *Sink) buffered() error {
	if s.cfg.Connector != ConnectorFile {
		return nil
	}
	d := s.flushInterval()
	if d == FlushEveryChunk {
		return s.writeOut()
	}
	if s.due.IsZero() {
		s.due = s.now().Add(d)
	}
	return nil
}

// NextTimer implements exec.ProcessingTimer: when the rows waiting in the
// buffer are to be written out; the zero Time when none wait.
func (s *Sink) NextTimer() time.Time { return s.due }

// OnTimer implements exec.ProcessingTimer: once the flush interval has
// passed since rows started to wait, it writes out the buffer (those rows
// and any that came after them).
func (s *Sink) OnTimer(ctx context.Context, now time.Time, out exec.Emitter) error {
	if err := s.ready(); err != nil {
		return err
	}
	if s.due.IsZero() || now.Before(s.due) {
		return nil
	}
	return s.writeOut()
}

// writeOut writes what the buffers hold to the file (or the open partition
// files), without fsync, and disarms the timer.
func (s *Sink) writeOut() error {
	s.due = time.Time{}
	if s.parts != nil {
		if err := s.parts.writeOut(); err != nil {
			s.err = err
			return err
		}
		return nil
	}
	if err := s.w.Flush(); err != nil {
		return s.writeErr("write", s.path, err)
	}
	return nil
}
