package client

import (
	"context"
	"fmt"
	"io"

	"vitess.io/vitess/go/sqltypes"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/engine"
)

// maxBatch is the most rows Next returns at once: what has arrived, up to
// this, so that a fast stream is printed in batches rather than row by
// row, and a slow one as each row arrives.
const maxBatch = 1024

// stream reads a push query's rows on a goroutine of its own, since the
// protocol client blocks on the socket: the rows go through a channel that
// Next reads with the caller's context.
type stream struct {
	s    *Session
	st   *statement
	cols []engine.Column
	rows chan []types.Datum // closed when the result set has ended
	// ended is closed after rows, when the reader has returned.
	ended chan struct{}
	// err is how the result set ended (nil: cleanly), set before rows is
	// closed; badRow says it is a row that did not decode, which leaves
	// the rest of the result set unread.
	err    error
	badRow bool

	killed bool // the query was stopped by KILL QUERY
	done   bool // rows has been closed and drained
}

// push starts a push query and returns its stream: the server sends the
// column definitions at once and then rows as the query emits them.
func (s *Session) push(ctx context.Context, st *statement) (*engine.Result, error) {
	var fields bool
	var cols []engine.Column
	err := s.cancellable(ctx, func() error {
		if err := s.conn.ExecuteStreamFetch(st.text); err != nil {
			return err
		}
		fs, err := s.conn.Fields()
		if err != nil {
			return err
		}
		fields, cols = len(fs) > 0, columns(fs)
		return nil
	})
	if err != nil {
		return nil, s.failed(ctx, st, err)
	}
	if !fields { // an OK packet: nothing to stream
		s.conn.CloseResult()
		qr := s.conn.StreamOKResult()
		if qr == nil {
			qr = &sqltypes.Result{}
		}
		res, err := st.result(qr)
		if err != nil {
			return nil, err
		}
		res.Notices = s.takePending(res.Notices)
		return res, nil
	}
	sr := &stream{s: s, st: st, cols: cols, rows: make(chan []types.Datum, maxBatch), ended: make(chan struct{})}
	s.stream = sr
	go sr.read()
	if err := ctx.Err(); err != nil {
		// Cancelled as the result set started: the kill may have come
		// too late to stop it, so it is stopped here.
		sr.close()
		return nil, err
	}
	res := &engine.Result{Kind: engine.ResultStream, Tag: "SELECT", Columns: cols,
		Stream: engine.NewStream(sr.next, sr.close)}
	res.Notices = s.takePending(nil)
	return res, nil
}

// read reads rows until the result set ends, and records how it ended.
func (sr *stream) read() {
	defer close(sr.ended)
	defer close(sr.rows)
	var buf []sqltypes.Value
	for {
		row, err := sr.s.conn.FetchNext(buf[:0])
		if err != nil {
			sr.err = err
			return
		}
		if row == nil {
			return
		}
		d := make([]types.Datum, len(sr.cols))
		if err := decodeRow(d, row, sr.cols); err != nil {
			sr.err, sr.badRow = fmt.Errorf("reading the changes from eddy: %w", err), true
			return
		}
		buf = row
		sr.rows <- d
	}
}

// next returns the rows that have arrived, waiting for at least one; at
// the end of the result set it returns io.EOF, or the error it ended
// with. Cancelling ctx stops the query on the server and returns
// ctx.Err().
func (sr *stream) next(ctx context.Context) ([][]types.Datum, error) {
	if sr.done {
		return nil, sr.endErr(ctx)
	}
	var batch [][]types.Datum
	select {
	case r, ok := <-sr.rows:
		if !ok {
			sr.finish()
			return nil, sr.endErr(ctx)
		}
		batch = append(batch, r)
	case <-ctx.Done():
		sr.stop()
		return nil, ctx.Err()
	}
	for len(batch) < maxBatch {
		select {
		case r, ok := <-sr.rows:
			if !ok {
				return batch, nil // the end is reported by the next call
			}
			batch = append(batch, r)
		default:
			return batch, nil
		}
	}
	return batch, nil
}

// endErr returns how the result set ended, once it has: io.EOF when
// cleanly, ctx's error when the query was stopped for it, else the error
// as Execute returns one.
func (sr *stream) endErr(ctx context.Context) error {
	switch {
	case sr.err == nil:
		return io.EOF
	case sr.killed && (isInterrupted(sr.err) || sr.s.conn.IsClosed()):
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return context.Canceled
	}
	return sr.s.failed(ctx, sr.st, sr.err)
}

// stop stops the query on the server, unless its result set has ended,
// and waits for the end, dropping the rows that were still on their way.
func (sr *stream) stop() {
	if sr.done {
		return
	}
	select {
	case <-sr.ended: // it ended by itself: nothing to stop
	default:
		sr.killed = true
		sr.s.kill()
	}
	sr.finish()
}

// finish waits for the reader to end and drops the rows it sent.
func (sr *stream) finish() {
	for range sr.rows {
	}
	sr.done = true
}

// close ends the stream: it stops the query if it still runs, and reads
// the notices the statement had (the end of a result set carries their
// count, which the protocol client does not report, so they are always
// read), which the next statement's result shows. The session can run
// statements again afterwards.
func (sr *stream) close() {
	s := sr.s
	if s.stream != sr {
		return
	}
	s.stream = nil
	sr.stop()
	if s.lost != nil || s.conn.IsClosed() {
		return
	}
	if sr.badRow {
		// The rest of the result set is unread, so the connection
		// cannot be used again.
		s.lost = fmt.Errorf("the connection to eddy at %s was closed after a row it could not read: %w", s.cfg.Addr, sr.err)
		s.conn.Close()
		return
	}
	notices, err := s.warnings()
	if err != nil {
		s.lost = fmt.Errorf("lost the connection to eddy at %s: %w", s.cfg.Addr, err)
		s.conn.Close()
		return
	}
	s.pending = append(s.pending, notices...)
}
