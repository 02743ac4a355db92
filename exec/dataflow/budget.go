package dataflow

import (
	"errors"
	"fmt"
	"github.com/eddysql/eddy/exec"
	"sync"
	"sync/atomic"
)

// StateBudget bounds the memory that the state of every job sharing it may
// take. Operators report their state's size in OperatorMetrics.StateBytes;
// after each call that changed it, the runtime charges the change to the
// job and to the budget. When a growth takes the total past the limit, the
// job holding the most state fails with a *StateLimitError naming its
// largest operator (as an out-of-memory killer picks the largest process):
// the query that caused the growth, not whichever query grew last, while
// the others keep running. A failed job's state returns to the budget
// when its operators close.
//
// The check follows the operators' own estimates, taken after each chunk
// or control message, so the total can pass the limit by what one call
// adds and stays above it until the failed job's tasks have closed: the
// limit should leave room for that, for batches in flight and for the
// garbage collector's headroom.
type StateBudget struct {
	limit int64
	used  atomic.Int64

	mu   sync.Mutex
	jobs map[*jobState]struct{}
}

// jobState is one job's account with the budget.
type jobState struct {
	job     *Job
	used    atomic.Int64
	failing bool // chosen to fail; guarded by the budget's mu
}

// NewStateBudget returns a budget of limit bytes; limit <= 0 means no
// limit (the state is still counted).
func NewStateBudget(limit int64) *StateBudget {
	return &StateBudget{limit: max(limit, 0), jobs: map[*jobState]struct{}{}}
}

// Limit returns the budget's limit in bytes, 0 when there is none.
func (b *StateBudget) Limit() int64 { return b.limit }

// Used returns the bytes of state charged to the budget now.
func (b *StateBudget) Used() int64 { return b.used.Load() }

// join opens j's account.
func (b *StateBudget) join(j *Job) *jobState {
	js := &jobState{job: j}
	b.mu.Lock()
	b.jobs[js] = struct{}{}
	b.mu.Unlock()
	return js
}

// leave closes an account once its job's tasks have all closed (and so
// returned their state).
func (b *StateBudget) leave(js *jobState) {
	b.mu.Lock()
	delete(b.jobs, js)
	b.mu.Unlock()
}

// charge adds delta bytes (negative when state shrank) to js and the
// budget. When a growth takes the total past the limit, it fails the job
// holding the most state (not counting jobs already failing), and returns
// that error when the job is js's own.
func (b *StateBudget) charge(js *jobState, delta int64) error {
	js.used.Add(delta)
	total := b.used.Add(delta)
	if delta <= 0 || b.limit == 0 || total <= b.limit {
		return nil
	}
	b.mu.Lock()
	var victim *jobState
	live := total
	for o := range b.jobs {
		if o.failing {
			live -= o.used.Load()
		} else if victim == nil || o.used.Load() > victim.used.Load() {
			victim = o
		}
	}
	if victim == nil || live <= b.limit {
		b.mu.Unlock()
		return nil // the jobs already failing will bring the total down
	}
	victim.failing = true
	b.mu.Unlock()
	err := victim.job.stateLimitError(victim.used.Load(), total, b.limit)
	victim.job.fail(err)
	if victim == js {
		return err
	}
	return nil
}

// ErrStateLimit is wrapped by the error of a job failed by its
// StateBudget.
var ErrStateLimit = errors.New("state memory limit exceeded")

// StateLimitError reports a job failed by its StateBudget: it held the
// most state when the state of all jobs passed the limit.
type StateLimitError struct {
	// Operator names the job's operator with the most state, as EXPLAIN
	// ANALYZE does, and OperatorBytes is that state (all its instances).
	Operator      string
	OperatorBytes int64
	// Query is the job's state, Total the state of every job sharing the
	// budget, and Limit the budget's limit.
	Query, Total, Limit int64
}

// Error names the operator, its state, the query's, the total and the
// limit.
func (e *StateLimitError) Error() string {
	return fmt.Sprintf("%v: the state of all queries reached %s, over the limit of %s; this query held the most, %s, of which %s held %s",
		ErrStateLimit, FormatBytes(e.Total), FormatBytes(e.Limit), FormatBytes(e.Query), e.Operator, FormatBytes(e.OperatorBytes))
}

// Unwrap returns ErrStateLimit.
func (e *StateLimitError) Unwrap() error { return ErrStateLimit }

// stateLimitError describes j's state for a StateLimitError.
func (j *Job) stateLimitError(query, total, limit int64) *StateLimitError {
	e := &StateLimitError{Query: query, Total: total, Limit: limit}
	for _, s := range j.Stats() {
		if s.StateBytes > e.OperatorBytes || e.Operator == "" {
			e.Operator, e.OperatorBytes = s.Name, s.StateBytes
		}
	}
	return e
}

// FormatBytes renders a byte count in binary units, as the memory flags
// take them ("512.00 MiB").
func FormatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.2f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// stateAccount charges the state changes of a chain's operators to their
// job's account. It is used by the chain's goroutine only.
type stateAccount struct {
	budget  *StateBudget
	job     *jobState
	charged []int64 // per operator: the bytes charged so far
}

// settle charges the change of operator i's state since the last call.
func (a *stateAccount) settle(i int, m *exec.OperatorMetrics) error {
	now := m.StateBytes.Load()
	delta := now - a.charged[i]
	if delta == 0 {
		return nil
	}
	a.charged[i] = now
	return a.budget.charge(a.job, delta)
}

// release returns every operator's charged state to the budget.
func (a *stateAccount) release() {
	for i, c := range a.charged {
		if c != 0 {
			a.job.used.Add(-c)
			a.budget.used.Add(-c)
			a.charged[i] = 0
		}
	}
}
