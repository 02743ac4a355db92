package nexmark

import (
	"strings"
	"testing"
	"time"
)

func TestDisplayTerminal(t *testing.T) {
	var b strings.Builder
	d := newDisplay(&b, true)
	d.status("running q10", false)
	d.status("q1", false) // shorter: the rest of the old line is blanked
	d.clear()             // only "q1" is left to blank
	d.println("done")
	want := "\rrunning q10" + "\rq1" + strings.Repeat(" ", 9) + "\r  \r" + "done\n"
	if b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
}

func TestDisplayPlain(t *testing.T) {
	var b strings.Builder
	d := newDisplay(&b, false)
	d.every = time.Hour
	d.status("start", true)
	d.status("progress", false) // too soon: not printed
	d.status("end\nof it", true)
	d.clear()
	if got, want := b.String(), "start\nend / of it\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	d.every = 0
	d.status("progress", false)
	if !strings.HasSuffix(b.String(), "progress\n") {
		t.Errorf("periodic line missing: %q", b.String())
	}
}

func TestProgressLines(t *testing.T) {
	if got := runningLine(2, 5, "q1", Progress{Rows: 1234567, Elapsed: 1500 * time.Millisecond}); got != "nexmark [2/5] q1: 1.5 s, 1,234,567 source rows read" {
		t.Errorf("running: %q", got)
	}
	if got := runningLine(1, 5, "baseline", Progress{}); got != "nexmark [1/5] baseline: starting" {
		t.Errorf("starting: %q", got)
	}
	o := Outcome{Query: "q0", Figures: Figures{Events: 1000, WallS: 0.25, EventsPerS: 4000, EventsPerSPerCore: 2000}}
	if got := doneLine(1, 2, o); got != "nexmark [1/2] q0: 1,000 events in 0.250 s, 4.00K events/s, 2.00K events/s/core" {
		t.Errorf("done: %q", got)
	}
}
