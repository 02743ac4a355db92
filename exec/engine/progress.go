package engine

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/exec/dataflow"
	"github.com/eddysql/eddy/sql"
)

// Progress is how far a long piece of work has come: a FLUSH, a pull query
// over a long history, or the engine's start (restoring checkpoints, then
// catching up on what was ingested while it was down). Front ends show it
// on an updating line, so that a long wait is not a silent one.
type Progress struct {
	// What names the work ("FLUSH", "restoring materialized view v").
	What string
	// Done is how much is done, in Unit; Known how much the work is known
	// to need in all (0: not known). Rows still to come are estimated from
	// each source's rows per unit of input so far (a file's bytes, a
	// log's entries), so Known may move as the work goes on.
	Done, Known int64
	// Unit is "rows" or "bytes".
	Unit string
	// Elapsed is the time since the work began.
	Elapsed time.Duration
}

// Rate returns Done per second of Elapsed.
func (p Progress) Rate() float64 {
	if p.Elapsed <= 0 {
		return 0
	}
	return float64(p.Done) / p.Elapsed.Seconds()
}

// String renders p on one line: "FLUSH: 1,250,000 of 4,000,000 rows (31%),
// 812,400 rows/s, 1.5s".
func (p Progress) String() string {
	amount := func(n int64) string {
		if p.Unit == "bytes" {
			return dataflow.FormatBytes(n)
		}
		return groupDigits(n)
	}
	s := p.What + ": " + amount(p.Done)
	if p.Known > 0 {
		known := max(p.Known, p.Done)
		s += " of " + amount(known)
		if p.Unit == "rows" {
			s += " rows"
		}
		s += fmt.Sprintf(" (%d%%)", int(math.Floor(100*float64(p.Done)/float64(known))))
	} else if p.Unit == "rows" {
		s += " rows"
	}
	rate := int64(math.Round(p.Rate()))
	if p.Unit == "bytes" {
		s += ", " + dataflow.FormatBytes(rate) + "/s"
	} else {
		s += ", " + groupDigits(rate) + " rows/s"
	}
	return s + ", " + p.Elapsed.Round(100*time.Millisecond).String()
}

// groupDigits renders n with a comma between groups of three digits.
func groupDigits(n int64) string {
	s := fmt.Sprint(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// jobProgress sums the input figures of jobs' sources that know their
// input (a log, a file, a bounded generator): the rows they read and the
// rows they know are still to come. A source reading a view's changes is
// left out, as the view's own sources count those rows.
func jobProgress(jobs []*dataflow.Job) (read, backlog int64) {
	for _, j := range jobs {
		for _, st := range j.Stats() {
			if st.Source && st.InputKnown {
				read += st.RowsIn
				backlog += st.Backlog
			}
		}
	}
	return read, backlog
}

// statementWhat names stmt's work in its progress reports.
func statementWhat(stmt sql.Stmt) string {
	switch stmt.(type) {
	case *sql.Flush:
		return "FLUSH"
	case *sql.Select:
		return "SELECT"
	case *sql.Analyze:
		return "ANALYZE"
	case *sql.Insert:
		return "INSERT"
	}
	return "statement"
}

// tracker follows the jobs a statement waits for, for Session.Progress.
// The statement's code adds jobs as it starts or waits for them (through
// the context, see trackJobs); the figures count from when each was added.
type tracker struct {
	what  string
	start time.Time

	mu   sync.Mutex
	jobs []*dataflow.Job
	base int64 // the rows the jobs had read when added
}

type trackerKey struct{}

// withTracker returns ctx carrying t.
func withTracker(ctx context.Context, t *tracker) context.Context {
	return context.WithValue(ctx, trackerKey{}, t)
}

// trackJobs adds jobs to the progress of the statement running with ctx,
// if it is tracked.
func trackJobs(ctx context.Context, jobs ...*dataflow.Job) {
	t, _ := ctx.Value(trackerKey{}).(*tracker)
	if t == nil || len(jobs) == 0 {
		return
	}
	read, _ := jobProgress(jobs)
	t.mu.Lock()
	t.jobs = append(t.jobs, jobs...)
	t.base += read
	t.mu.Unlock()
}

// progress returns t's figures; false while it follows no job.
func (t *tracker) progress() (Progress, bool) {
	t.mu.Lock()
	jobs, base := t.jobs, t.base
	t.mu.Unlock()
	if len(jobs) == 0 {
		return Progress{}, false
	}
	read, backlog := jobProgress(jobs)
	done := max(read-base, 0)
	known := int64(0)
	if backlog > 0 || done > 0 {
		known = done + backlog
	}
	return Progress{What: t.what, Done: done, Known: known, Unit: "rows", Elapsed: time.Since(t.start)}, true
}

// Progress returns the progress of the statement the session is running —
// a FLUSH, or a pull query or ANALYZE reading its inputs — and false when
// it runs none, or one with nothing to report yet. It may be called from
// another goroutine while Execute runs.
func (s *Session) Progress() (Progress, bool) {
	t := s.work.Load()
	if t == nil {
		return Progress{}, false
	}
	return t.progress()
}

// startupWork is what the engine's start is doing, for its progress
// reports.
type startupWork struct {
	restoring atomic.Pointer[restoreWork] // the query restoring its checkpoint, if one is
	started   time.Time
	// resuming is set while Open resumes the stored queries: a view
	// resumed then may answer before its operators restored
	// (background.go).
	resuming atomic.Bool
}

// restoreWork is a query restoring its checkpoint.
type restoreWork struct {
	label string
	job   *dataflow.Job
	known int64 // the checkpoint's bytes as stored
	start time.Time
}

// noteRestoring records that obj's query, job, is restoring the
// checkpoint in qs, for the start's progress reports.
func (e *Engine) noteRestoring(obj *catalog.Object, job *dataflow.Job, qs *queryState) {
	known, err := qs.store.Bytes()
	if err != nil {
		known = 0 // progress is only a report: go on without the total
	}
	e.startup.restoring.Store(&restoreWork{label: obj.Kind.String() + " " + obj.Name, job: job, known: known, start: time.Now()})
}

// startupProgress returns the progress of the engine's start: the query
// restoring its checkpoint, or else the catching up of every query on the
// input it has not read.
func (e *Engine) startupProgress() (Progress, bool) {
	if r := e.startup.restoring.Load(); r != nil {
		return Progress{What: "restoring " + r.label, Done: r.job.RestoredBytes(), Known: r.known,
			Unit: "bytes", Elapsed: time.Since(r.start)}, true
	}
	e.mu.Lock()
	jobs := make([]*dataflow.Job, 0, len(e.queries))
	for _, q := range e.queries {
		if q.job != nil {
			jobs = append(jobs, q.job)
		}
	}
	e.mu.Unlock()
	read, backlog := jobProgress(jobs)
	if backlog == 0 {
		return Progress{}, false
	}
	return Progress{What: "catching up", Done: read, Known: read + backlog, Unit: "rows",
		Elapsed: time.Since(e.startup.started)}, true
}

// reportStartup calls Config.OnProgress every Config.ProgressEvery until
// done is closed.
func (e *Engine) reportStartup(done <-chan struct{}) {
	every := e.cfg.ProgressEvery
	if every <= 0 {
		every = time.Second
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
			if p, ok := e.startupProgress(); ok {
				e.cfg.OnProgress(p)
			}
		}
	}
}
