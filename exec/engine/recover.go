package engine

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/exec/dataflow"
)

// Recovery of failed queries. A checkpointed query whose task fails on a
// bug (a panic: dataflow.ErrInternal) restarts from its last checkpoint
// while eddy and the other queries go on, as Flink restarts a failed job:
// its operators' state is restored, its sources read again from the
// recorded positions, and a file sink discards what it wrote since. The
// queries that read its view (views over it, sinks from it) restart with
// it, after it, as they would on a restart of eddy: they had seen changes
// the checkpoint does not hold. A query that fails again before a new
// checkpoint commits makes no progress (a bug its input triggers every
// time): after maxFruitless such recoveries in a row it stays failed, as
// does a query that fails on its data (a bad cast, a sink that cannot
// write), to be dropped.

// maxFruitless bounds the recoveries in a row that commit no checkpoint.
const maxFruitless = 3

// recovery is the engine's record of recoveries.
type recovery struct {
	wg   sync.WaitGroup // the goroutines watching queries; Close waits for them
	done atomic.Int64   // recoveries started
	run  sync.Mutex     // held while a recovery runs: one at a time
	mu   sync.Mutex     // guards last
	// started counts the restarts of queries with their readers, and
	// active those under way: both change under the engine's mu, when
	// the queries leave e.queries and once they are back, so that FLUSH
	// can tell whether one passed over queries a restart took away
	// (Session.flush).
	started atomic.Uint64
	active  atomic.Int32
	last    map[string]recoveryMark // by object name (lower case)
}

// recoveryMark is where a query's recoveries stand: the checkpoint the
// last one resumed from, and how many in a row resumed from it.
type recoveryMark struct {
	epoch uint64
	times int
}

// wait returns once no recovery is in progress.
func (r *recovery) wait() {
	r.run.Lock()
	defer r.run.Unlock()
}

// allow records a recovery of name from checkpoint epoch and reports
// whether it may go ahead.
func (r *recovery) allow(name string, epoch uint64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.last == nil {
		r.last = map[string]recoveryMark{}
	}
	m := r.last[name]
	if epoch != m.epoch {
		m = recoveryMark{epoch: epoch}
	}
	if m.times >= maxFruitless {
		return false
	}
	m.times++
	r.last[name] = m
	return true
}

// committedEpoch returns the last checkpoint q's query committed: the
// latest of its job's, or the one it resumed from.
func committedEpoch(q *runningQuery) uint64 {
	epoch := q.state.epoch
	for _, c := range q.job.Checkpoints() {
		if c.Err == nil {
			epoch = max(epoch, c.Epoch)
		}
	}
	return epoch
}

// watchFailures watches job, obj's checkpointed query, and recovers the
// query when a bug fails it.
func (e *Engine) watchFailures(obj *catalog.Object, job *dataflow.Job) {
	e.recovery.wg.Add(1)
	go func() {
		defer e.recovery.wg.Done()
		select {
		case <-job.Done():
		case <-e.ctx.Done():
			return
		}
		state, err := job.State()
		if state != dataflow.JobFailed || e.ctx.Err() != nil {
			return
		}
		e.mu.Lock()
		q := e.queries[lower(obj.Name)]
		e.mu.Unlock()
		if q == nil || q.job != job {
			return // dropped
		}
		if !errors.Is(err, dataflow.ErrInternal) && !backgroundRestoreFailed(q, err) {
			return
		}
		if !e.recovery.allow(lower(obj.Name), committedEpoch(q)) {
			e.notices.add(fmt.Sprintf("%s %s failed %d times in a row before its next checkpoint: it stays failed: %v",
				obj.Kind, obj.Name, maxFruitless+1, firstLine(err)))
			return
		}
		e.recoverQuery(obj, job, err)
	}()
}

// recoverQuery restarts obj's failed query, job, from its last checkpoint,
// and the queries that read it after it.
func (e *Engine) recoverQuery(obj *catalog.Object, job *dataflow.Job, cause error) {
	e.recovery.run.Lock()
	defer e.recovery.run.Unlock()
	e.restartWithReaders(obj, job, fmt.Sprintf("%s %s failed (%s): it restarts from its last checkpoint", obj.Kind, obj.Name, firstLine(cause)))
}

// restartWithReaders restarts obj's query, while its job is job, from its
// last checkpoint, and the queries that read it after it, saying so with
// notice. The caller holds e.recovery.run.
func (e *Engine) restartWithReaders(obj *catalog.Object, job *dataflow.Job, notice string) {
	e.mu.Lock()
	q := e.queries[lower(obj.Name)]
	if q == nil || q.job != job {
		e.mu.Unlock()
		return // dropped, or recovered already
	}
	restart := e.readersOf(obj)
	e.recovery.started.Add(1)
	e.recovery.active.Add(1)
	defer func() {
		e.mu.Lock()
		e.recovery.active.Add(-1)
		e.mu.Unlock()
	}()
	var stopped []*runningQuery
	for _, o := range restart {
		if q := e.queries[lower(o.Name)]; q != nil {
			stopped = append(stopped, q)
			delete(e.queries, lower(o.Name))
		}
		// A reader that could not resume after an earlier recovery (its
		// input failed again meanwhile) tries again.
		delete(e.broken, lower(o.Name))
	}
	e.mu.Unlock()
	for i := len(stopped) - 1; i >= 0; i-- { // readers first
		stopped[i].stop()
	}
	e.recovery.done.Add(1)
	e.notices.add(notice)
	for _, o := range restart {
		if e.ctx.Err() != nil {
			return
		}
		if err := e.resumeQuery(o); err != nil {
			e.mu.Lock()
			e.broken[lower(o.Name)] = err
			e.mu.Unlock()
			e.notices.add(fmt.Sprintf("%s %s could not resume: %v", o.Kind, o.Name, err))
		}
	}
}

// readersOf returns obj and every object whose query reads it, directly
// or through others, in creation order. The caller holds e.mu.
func (e *Engine) readersOf(obj *catalog.Object) []*catalog.Object {
	set := map[string]bool{lower(obj.Name): true}
	ids := map[uint64]bool{obj.ID: true}
	out := []*catalog.Object{obj}
	for _, o := range e.cat.InCreationOrder() {
		if set[lower(o.Name)] || o.Query == "" {
			continue
		}
		// A query reads what it depends on, and the views it reads in
		// place of its own sub-plans (share.go).
		reads := slices.ContainsFunc(o.DependsOn, func(d string) bool { return set[lower(d)] })
		if q := e.queries[lower(o.Name)]; !reads && q != nil && q.plan != nil {
			reads = readsObject(q.plan, ids)
		}
		if reads {
			set[lower(o.Name)], ids[o.ID] = true, true
			out = append(out, o)
		}
	}
	return out
}

// firstLine returns the first line of err's message (an internal error
// carries its stack after it).
func firstLine(err error) string {
	msg := err.Error()
	for i := range len(msg) {
		if msg[i] == '\n' {
			return msg[:i]
		}
	}
	return msg
}
