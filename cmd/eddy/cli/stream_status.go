package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/mattn/go-runewidth"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/engine"
)

// The status line of a push query is drawn every statusEvery, from
// statusAfter on, so that a query that ends at once draws none.
var (
	statusEvery = 250 * time.Millisecond
	statusAfter = 500 * time.Millisecond
)

// streamStatus is the status line a running push query keeps at the
// bottom of the terminal on stderr: the changes so far, the query's
// watermark and lag when the stream knows them, and the time it has run.
// Rows are written between hide and show, which hold the line back; the
// line is redrawn in place ("\r", erase to the end of the line) and
// erased when the query ends.
type streamStatus struct {
	w      io.Writer
	term   terminal
	stream *engine.Stream
	start  time.Time

	mu      sync.Mutex
	n       int  // changes so far
	drawn   bool // the line is on the screen
	stopped bool // the query has ended: the line is not drawn again
	done    chan struct{}
	wg      sync.WaitGroup
}

// startStreamStatus starts the status line of stream, or returns nil when
// stderr is not a terminal.
func (p *printer) startStreamStatus(stream *engine.Stream, start time.Time) *streamStatus {
	if p.statusTerm == nil {
		return nil
	}
	st := &streamStatus{w: p.errOut, term: p.statusTerm, stream: stream, start: start, done: make(chan struct{})}
	st.wg.Add(1)
	go st.run()
	return st
}

func (st *streamStatus) run() {
	defer st.wg.Done()
	tick := time.NewTicker(statusEvery)
	defer tick.Stop()
	for {
		select {
		case <-st.done:
			return
		case <-tick.C:
			st.mu.Lock()
			if !st.stopped && time.Since(st.start) >= statusAfter {
				st.draw()
			}
			st.mu.Unlock()
		}
	}
}

// hide erases the line and keeps it off the screen until show: rows are
// being written.
func (st *streamStatus) hide() {
	if st == nil {
		return
	}
	st.mu.Lock()
	st.erase()
}

// show records that n changes have arrived and lets the line be drawn
// again.
func (st *streamStatus) show(n int) {
	if st == nil {
		return
	}
	st.n = n
	st.mu.Unlock()
}

// stop erases the line for good.
func (st *streamStatus) stop() {
	if st == nil {
		return
	}
	st.mu.Lock()
	st.stopped = true
	close(st.done)
	st.erase()
	st.mu.Unlock()
	st.wg.Wait()
}

func (st *streamStatus) erase() {
	if st.drawn {
		io.WriteString(st.w, "\r\x1b[K")
		st.drawn = false
	}
}

func (st *streamStatus) draw() {
	line := statusText(st.n, st.stream, time.Since(st.start))
	if cols, _, ok := st.term.size(); ok && cols > 1 {
		line = runewidth.Truncate(line, cols-1, "")
	}
	io.WriteString(st.w, "\r"+line+"\x1b[K")
	st.drawn = true
}

// statusText is the status line: "42 changes, watermark 2024-01-01
// 00:00:05.000, lag 1.5s, 3.2 s (Ctrl-C stops)".
func statusText(n int, stream *engine.Stream, elapsed time.Duration) string {
	parts := []string{countText(n, "change")}
	if pr, ok := stream.Progress(); ok {
		if pr.HasWatermark {
			parts = append(parts, "watermark "+types.Format(types.IntDatum(pr.Watermark), types.TimestampT(3)))
		}
		parts = append(parts, "lag "+pr.Lag.Round(time.Millisecond).String())
	}
	parts = append(parts, formatDuration(elapsed))
	return fmt.Sprintf("%s (Ctrl-C stops)", strings.Join(parts, ", "))
}
