package engine

import (
	"context"
	"io"
	"time"

	"github.com/eddysql/eddy/catalog/types"
)

// ResultKind says what a statement returned.
type ResultKind uint8

// The result kinds.
const (
	// ResultOK: the statement succeeded and returns no rows (DDL, INSERT,
	// SET, FLUSH). Tag says what was done.
	ResultOK ResultKind = iota + 1
	// ResultRows: a finished set of rows (pull queries, SHOW, DESCRIBE,
	// EXPLAIN).
	ResultRows
	// ResultStream: a push query's changes, read with Stream.Next.
	ResultStream
)

// Column is a result column.
type Column struct {
	Name string
	Type types.T
}

// Result is what one statement returned.
type Result struct {
	Kind    ResultKind
	Tag     string // e.g. "CREATE STREAM", "INSERT 2", "SELECT 5"
	Columns []Column
	// Rows holds a ResultRows result.
	Rows [][]types.Datum
	// Stream delivers a ResultStream result. Its first column is "op"
	// (+I, -D, -U, +U as VARCHAR), followed by the query's columns.
	Stream *Stream
	// Preformatted marks text results (EXPLAIN) that front ends print as
	// lines rather than as a table.
	Preformatted bool
	// Notices are warnings for the user, such as rows a source skipped.
	Notices []string
}

// Stream is the change stream of a push query.
type Stream struct {
	next     func(ctx context.Context) ([][]types.Datum, error)
	close    func()
	progress func() StreamProgress
}

// StreamProgress is how far a push query has come, for a front end's
// status line.
type StreamProgress struct {
	// Watermark is the query's watermark at its output, in milliseconds
	// since the epoch; HasWatermark is false while it has none (no
	// watermark yet, none declared, or its inputs ended).
	Watermark    int64
	HasWatermark bool
	// Lag is how long the oldest input its sources have not read yet has
	// been waiting (0 when they are caught up), as SHOW QUERIES shows it.
	Lag time.Duration
}

// SetProgress makes fn the source of Progress.
func (s *Stream) SetProgress(fn func() StreamProgress) { s.progress = fn }

// Progress returns how far the query has come; ok is false when the
// stream cannot tell. It may be called while Next waits.
func (s *Stream) Progress() (p StreamProgress, ok bool) {
	if s.progress == nil {
		return StreamProgress{}, false
	}
	return s.progress(), true
}

// NewStream returns a Stream reading from next and stopped by close.
func NewStream(next func(ctx context.Context) ([][]types.Datum, error), close func()) *Stream {
	return &Stream{next: next, close: close}
}

// Next returns the next rows, blocking until some are available. It returns
// io.EOF when the query has ended (its inputs ended, its LIMIT was reached,
// or, in a non-interactive session, it caught up with every row ingested
// when it started). Cancelling ctx stops the wait and returns ctx.Err().
func (s *Stream) Next(ctx context.Context) ([][]types.Datum, error) {
	if s.next == nil {
		return nil, io.EOF
	}
	return s.next(ctx)
}

// Close stops the push query and releases its resources. It is idempotent.
func (s *Stream) Close() {
	if s.close != nil {
		s.close()
		s.close = nil
	}
}
