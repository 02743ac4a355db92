package exec

import (
	"context"
	"errors"
)

// ErrCaughtUp is returned by Source.Next when an unbounded source has no
// more data right now; the runtime then calls Wait.
var ErrCaughtUp = errors.New("exec: source caught up")

// Source produces a query's input. The runtime drives it: it calls Next
// until Next returns io.EOF (a bounded source read to its end) or
// ErrCaughtUp (an unbounded source with nothing more for now), in which case
// it calls Wait. The runtime, not the source, turns flush requests into Flush
// markers and end of input into EndOfInput, so a source only produces data.
type Source interface {
	// Open prepares the source (opens files, positions at the start).
	Open(ctx context.Context, env *Env) error
	// Next returns the next chunk of rows, which the caller releases. It
	// returns io.EOF at the end of a bounded input and ErrCaughtUp when an
	// unbounded input has nothing more for now.
	Next(ctx context.Context) (Chunk, error)
	// Wait blocks until more data may be available, or ctx is done (it then
	// returns ctx.Err()). A spurious return is allowed.
	Wait(ctx context.Context) error
	// Close releases the source. It is safe without Open and idempotent.
	Close() error
}
