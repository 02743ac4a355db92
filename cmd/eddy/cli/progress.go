package cli

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/eddysql/eddy/exec/engine"
)

// progressSource returns the progress line of the statement a session
// runs, and false while it reports none.
type progressSource func() (string, bool)

// progressOf returns sess's progressSource: the embedded engine's session
// reports its statement's progress (engine.Session.Progress), a session on
// eddy serve asks the server for it (client.Session.ProgressLine); nil for
// a session that reports none.
func progressOf(sess session) progressSource {
	switch s := sess.(type) {
	case interface {
		Progress() (engine.Progress, bool)
	}:
		return func() (string, bool) {
			p, ok := s.Progress()
			return p.String(), ok
		}
	case interface{ ProgressLine() (string, bool) }:
		return s.ProgressLine
	}
	return nil
}

// Progress lines appear once a statement has run for progressDelay, and
// are rewritten every progressEvery (variables for tests).
var (
	progressDelay = 500 * time.Millisecond
	progressEvery = 250 * time.Millisecond
)

// progressLine is one line of a terminal rewritten in place with the
// latest progress report, and erased when the work ends.
type progressLine struct {
	w     io.Writer
	mu    sync.Mutex
	shown bool
}

// show replaces the line with text.
func (l *progressLine) show(text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, "\r\x1b[K%s", text)
	l.shown = true
}

// clear erases the line, if anything was shown.
func (l *progressLine) clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.shown {
		io.WriteString(l.w, "\r\x1b[K")
		l.shown = false
	}
}

// withProgress runs fn; while it runs longer than progressDelay, the
// progress src reports is shown on a line of w. The line is erased before
// withProgress returns. With a nil w or src it only runs fn.
func withProgress(ctx context.Context, w io.Writer, src progressSource, fn func()) {
	if w == nil || src == nil {
		fn()
		return
	}
	line := &progressLine{w: w}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		wait := time.NewTimer(progressDelay)
		defer wait.Stop()
		select {
		case <-done:
			return
		case <-ctx.Done():
			return
		case <-wait.C:
		}
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		for {
			if text, ok := src(); ok {
				line.show(text)
			}
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	fn()
	close(done)
	wg.Wait()
	line.clear()
}

// startupProgress returns the engine's OnProgress for the start of a
// command: an updating line on w when it is a terminal, a line per report
// when lines is set (eddy serve's log), nothing otherwise; and a function
// that erases the updating line once the engine has opened.
func startupProgress(w io.Writer, lines bool) (func(engine.Progress), func()) {
	switch {
	case lines:
		return func(p engine.Progress) { fmt.Fprintln(w, p.String()) }, func() {}
	case isTerminal(w):
		line := &progressLine{w: w}
		return func(p engine.Progress) { line.show(p.String()) }, line.clear
	}
	return nil, func() {}
}
