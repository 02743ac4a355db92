package engine

import (
	"context"
	"fmt"
	"sort"

	"github.com/eddysql/eddy/exec"
)

// flush implements FLUSH: it returns once every row ingested so far (and
// every bounded source read to its end) is reflected in every view. Each
// query's sources send a flush marker after the rows they have; a view's
// sink passes the marker on to the queries reading the view, so views over
// views are flushed in order.
func (s *Session) flush(ctx context.Context) (*Result, error) {
	e := s.eng
	id := e.flushSeq.Add(1)
	jobs := e.requestFlush(id, nil)
	for _, j := range jobs {
		if err := j.WaitFlushed(ctx, id); err != nil {
			return nil, err
		}
	}
	res := ok("FLUSH")
	var failed []string
	for _, j := range jobs {
		if state, err := j.State(); state == exec.JobFailed {
			failed = append(failed, fmt.Sprintf("%s failed: %v", j.Name(), err))
		}
	}
	sort.Strings(failed)
	res.Notices = failed
	return res, nil
}

// requestFlush sends flush marker id to every continuous query (and to
// extra, when given) and returns the queries asked.
func (e *Engine) requestFlush(id uint64, extra *exec.Job) []*exec.Job {
	e.mu.Lock()
	jobs := make([]*exec.Job, 0, len(e.queries)+1)
	for _, q := range e.queries {
		jobs = append(jobs, q.job)
	}
	e.mu.Unlock()
	if extra != nil {
		jobs = append(jobs, extra)
	}
	for _, j := range jobs {
		j.RequestFlush(id)
	}
	return jobs
}
