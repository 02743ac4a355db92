package nexmark

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// plainInterval is how often a running query's progress is printed when
// the display is not a terminal (a log): rarely enough to keep a log of a
// long run short.
const plainInterval = 10 * time.Second

// display shows a run's progress on standard error: on a terminal, one
// line rewritten in place with \r; otherwise plain lines, one when a query
// starts or ends and one every plainInterval while it runs. Its methods may
// be called from several goroutines.
type display struct {
	w        io.Writer
	terminal bool
	every    time.Duration

	mu     sync.Mutex
	shown  int       // terminal: the width of the line on screen
	last   time.Time // plain: when a line was last printed
	failed bool      // a write failed; show nothing more
}

func newDisplay(w io.Writer, terminal bool) *display {
	return &display{w: w, terminal: terminal, every: plainInterval}
}

// status shows line as the current state. A plain display prints it only
// if force is set or plainInterval has passed since its last line.
func (d *display) status(line string, force bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	line = oneLine(line)
	if d.terminal {
		n := utf8.RuneCountInString(line)
		pad := ""
		if n < d.shown {
			pad = strings.Repeat(" ", d.shown-n)
		}
		d.write("\r" + line + pad)
		d.shown = n
		return
	}
	now := time.Now()
	if !force && now.Sub(d.last) < d.every {
		return
	}
	d.last = now
	d.write(line + "\n")
}

// clear erases a terminal's status line, so that other output starts on a
// clean line; a plain display has nothing to erase.
func (d *display) clear() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.terminal && d.shown > 0 {
		d.write("\r" + strings.Repeat(" ", d.shown) + "\r")
		d.shown = 0
	}
}

// println writes line on a line of its own, below the status line.
func (d *display) println(line string) {
	d.clear()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.write(line + "\n")
}

// write writes s, and stops the display at the first error: progress is
// not worth failing a run for.
func (d *display) write(s string) {
	if d.failed {
		return
	}
	if _, err := io.WriteString(d.w, s); err != nil {
		d.failed = true
	}
}

// runningLine describes a query in progress.
func runningLine(pos, total int, name string, p Progress) string {
	if p.Elapsed == 0 {
		return fmt.Sprintf("nexmark [%d/%d] %s: starting", pos, total, name)
	}
	return fmt.Sprintf("nexmark [%d/%d] %s: %.1f s, %s source rows read", pos, total, name,
		p.Elapsed.Seconds(), groupThousands(p.Rows))
}

// doneLine describes how a query ended.
func doneLine(pos, total int, o Outcome) string {
	if o.Err != nil {
		return fmt.Sprintf("nexmark [%d/%d] %s: cannot run: %s", pos, total, o.Query, o.Err)
	}
	f := o.Figures
	return fmt.Sprintf("nexmark [%d/%d] %s: %s events in %.3f s, %s events/s, %s events/s/core", pos, total, o.Query,
		groupThousands(f.Events), f.WallS, humanRate(f.EventsPerS), humanRate(f.EventsPerSPerCore))
}
