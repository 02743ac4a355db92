package engine

import (
	"context"
	"errors"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/position"
)

// logTag is the kind tag of a stream-log source's positions.
const logTag = "log"

var _ exec.Exhausted = (*logSource)(nil)

// Position implements exec.Positioned: the sequence number of the next
// entry Next returns (entries read ahead are after it), with the stream's
// id.
func (s *logSource) Position() ([]byte, error) {
	next := s.next
	if len(s.pending) > 0 {
		next = s.pending[0].seq
	}
	w := position.NewWriter(logTag)
	w.Uint(s.stream)
	w.Uint(next)
	return w.Bytes(), nil
}

// Seek implements exec.Positioned: the source reads on from the entry the
// position names. A position of another stream, or past the end of the
// log (or, for a snapshot, of the log as it was when opened), is refused
// with a *position.Error naming the stream.
func (s *logSource) Seek(ctx context.Context, pos []byte) error {
	if s.started {
		return errors.New("stream log source: Seek after Next")
	}
	src := s.obj.Kind.String() + " " + s.obj.Name
	r := position.NewReader(pos, logTag, src)
	stream, next := r.Uint(), r.Uint()
	if err := r.Done(); err != nil {
		return err
	}
	if stream != s.stream {
		return position.Errorf(src, "the position is of the log of another stream (id %d, not %d)", stream, s.stream)
	}
	end := s.end
	if !s.snapshot {
		var err error
		if end, err = s.log.End(s.stream); err != nil {
			return err
		}
	}
	if next > end {
		return position.Errorf(src, "entry %d is past the end of the log (%d entries)", next, end)
	}
	s.next, s.atEnd = next, next == end
	return nil
}

// Exhausted implements exec.Exhausted: Seek found the log's end (or the
// snapshot's) at the position. Rows appended later are read as they come.
func (s *logSource) Exhausted() bool { return s.atEnd }
