package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/exec/connector"
	"github.com/eddysql/eddy/exec/dataflow"
	"github.com/eddysql/eddy/optimizer/physical"
	"github.com/eddysql/eddy/storage"
)

// Checkpoints of continuous queries. The query of a view, a sink, a
// derived stream or a continuous insert whose dataflow is resumable
// (every operator Stateful or Stateless, every source Positioned: see
// dataflow.Job.Resumable) is checkpointed every Config.CheckpointInterval
// into a state store of its own, and a restarted engine resumes it from
// its last checkpoint — its rows, its operators' state and its sources'
// positions — instead of replaying its inputs from the beginning. The
// store also records the state layout the checkpoint belongs to
// (stateLayout): a checkpoint of another layout (the optimizer chose
// other operators) is dropped and the query rebuilt by replay, while one
// of the same query at another parallelism, whose state is keyed by key
// group all the same, is resumed (a rescale, rescale.go).
//
// A checkpointed file sink publishes exactly once (sink.TwoPhase): its
// rows reach its files when a checkpoint commits; so do a checkpointed
// derived stream's or continuous insert's rows reach the stream's log
// (stream_stage.go). So FLUSH, which promises that the files hold every
// row ingested before it and that every query reflects them, checkpoints
// the stream-writing queries of each level once its flush markers have
// arrived (before flushing their readers) and the sinks' queries at the
// end, and closing the engine
// checkpoints every checkpointed query a last time, so that a clean
// restart resumes exactly where the engine stopped.

// stateJob names the state store of object id's query.
func stateJob(id uint64) string { return fmt.Sprintf("query/%d", id) }

// metaTable and planKey locate the plan fingerprint in a query's store.
const (
	metaTable = "meta"
	planKey   = "plan"
	// placementKey holds the plan's statePlacement, committed with the
	// checkpoints its job writes.
	placementKey = "placement"
)

// queryState is a view's state store and what it holds.
type queryState struct {
	store   storage.StateStore
	epoch   uint64 // the last committed checkpoint; 0 if none
	restore bool   // the checkpoint is of this plan: resume from it

	meta        storage.StateTable
	layout      []string // of the plan's dataflow (stateLayout)
	fingerprint string   // of the layout
	// placement is the plan's statePlacement, and relayout says the
	// checkpoint restored was written by a plan that placed state
	// otherwise (or did not record how: one written before placements
	// were recorded).
	placement string
	relayout  bool
}

// openQueryState opens the state store of obj's query, whose dataflow is
// g. A checkpoint of another state layout is dropped.
func (e *Engine) openQueryState(obj *catalog.Object, g dataflow.GraphSpec) (*queryState, error) {
	name := stateJob(obj.ID)
	layout := stateLayout(g)
	fp := layoutFingerprint(layout)
	for attempt := 0; ; attempt++ {
		store, err := e.db.State(name)
		if err != nil {
			return nil, fmt.Errorf("opening the checkpoints of %s: %w", obj.Name, err)
		}
		qs := &queryState{store: store}
		meta, err := store.Table(metaTable, storage.TableOptions{})
		if err == nil {
			qs.epoch, err = store.Recover(context.Background())
		}
		var stored []byte
		var found bool
		if err == nil {
			stored, found, err = meta.Get([]byte(planKey))
		}
		if err != nil {
			store.Close()
			return nil, &checkpointReadError{epoch: qs.epoch, err: fmt.Errorf("reading the checkpoints of %s: %w", obj.Name, err)}
		}
		if qs.epoch > 0 && (!found || string(stored) != fp) && attempt == 0 {
			// A checkpoint of another plan: start over.
			store.Close()
			if err := e.db.DropState(name); err != nil {
				return nil, fmt.Errorf("dropping the checkpoints of %s: %w", obj.Name, err)
			}
			e.notices.add(fmt.Sprintf("%s %s is rebuilt from its inputs: its plan changed since its last checkpoint", obj.Kind, obj.Name))
			continue
		}
		qs.restore = qs.epoch > 0
		qs.meta, qs.layout, qs.fingerprint = meta, layout, fp
		qs.placement = statePlacement(g)
		if qs.restore && qs.placement != "" {
			placed, found, err := meta.Get([]byte(placementKey))
			if err != nil {
				store.Close()
				return nil, &checkpointReadError{epoch: qs.epoch, err: fmt.Errorf("reading the checkpoints of %s: %w", obj.Name, err)}
			}
			qs.relayout = !found || string(placed) != qs.placement
		}
		return qs, nil
	}
}

// checkpointReadError is an error reading a query's last checkpoint,
// epoch (0: not known yet).
type checkpointReadError struct {
	epoch uint64
	err   error
}

func (e *checkpointReadError) Error() string { return e.err.Error() }
func (e *checkpointReadError) Unwrap() error { return e.err }

// recordPlan writes the plan's fingerprint, to be committed with the next
// checkpoint. It is written once the job has started, as starting a job
// discards what its store has not committed.
func (qs *queryState) recordPlan() error {
	if err := qs.meta.Put([]byte(planKey), []byte(qs.fingerprint)); err != nil {
		return err
	}
	return qs.meta.Put([]byte(placementKey), []byte(qs.placement))
}

// rollbackQueryState makes the checkpoint before the last of obj's query,
// whose store is closed, its last, and returns its epoch.
func (e *Engine) rollbackQueryState(obj *catalog.Object) (uint64, error) {
	store, err := e.db.State(stateJob(obj.ID))
	if err != nil {
		return 0, err
	}
	defer store.Close()
	return store.Rollback(context.Background())
}

// dropQueryState deletes the checkpoints of obj's query, whose store is
// closed.
func (e *Engine) dropQueryState(obj *catalog.Object) error {
	if err := e.db.DropState(stateJob(obj.ID)); err != nil && !errors.Is(err, storage.ErrClosed) {
		return fmt.Errorf("dropping the checkpoints of %s: %w", obj.Name, err)
	}
	return nil
}

// noteResumed says, for each view resumed from a checkpoint, which
// checkpoint and how much state it read: a long start is not a silent one.
func (e *Engine) noteResumed() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, obj := range e.cat.InCreationOrder() {
		q := e.queries[lower(obj.Name)]
		if q == nil || q.state == nil || !q.state.restore {
			continue
		}
		e.notices.add(resumedNotice(q))
	}
}

// rebuiltInput returns the first object root reads whose rows are
// recomputed when the engine restarts — a derived stream whose query is
// not checkpointed, whose log its query rewrites from its own inputs — or
// nil. A position in such an input does not survive a restart, so a query
// reading one is not checkpointed. A checkpointed derived stream's log is
// kept across restarts and only ever appended to (stream_stage.go).
func (e *Engine) rebuiltInput(root physical.Node) *catalog.Object {
	if src, ok := root.(*physical.Source); ok && src.Object.Kind == catalog.Stream && src.Object.Query != "" {
		e.mu.Lock()
		q := e.queries[lower(src.Object.Name)]
		e.mu.Unlock()
		if q == nil || q.state == nil || q.job.Resumable() != nil {
			return src.Object
		}
	}
	for _, in := range root.Hdr().Inputs {
		if o := e.rebuiltInput(in); o != nil {
			return o
		}
	}
	return nil
}

// checkpointQueries takes a checkpoint of every running, checkpointed
// query that keep accepts (all when nil), in parallel, and returns the
// first error.
func (e *Engine) checkpointQueries(ctx context.Context, keep func(*runningQuery) bool) error {
	e.mu.Lock()
	var jobs []*dataflow.Job
	for _, q := range e.queries {
		if q.state != nil && q.job.Resumable() == nil && (keep == nil || keep(q)) {
			jobs = append(jobs, q.job)
		}
	}
	e.mu.Unlock()
	return checkpointJobs(ctx, jobs)
}

// checkpointJobs takes a checkpoint of each of jobs that is running, in
// parallel, and returns the errors. A job whose input ended takes its
// final checkpoint on its own, which it waits for.
func checkpointJobs(ctx context.Context, jobs []*dataflow.Job) error {
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Go(func() {
			if state, _ := j.State(); state == dataflow.JobRunning || state == dataflow.JobFinished && j.TakesFinalCheckpoint() {
				_, errs[i] = j.CheckpointNext(ctx)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Delivery guarantees of sinks, as SHOW SINKS and EXPLAIN show them.
const (
	exactlyOnce        = "exactly-once"
	atLeastOnce        = "at-least-once"
	rewrittenOnRestart = "rewritten on restart"
	replayedOnRestart  = "replayed on restart"
)

// guarantee says what a sink with traits t delivers when its query is
// checkpointed or not: a checkpointed file sink publishes exactly once, a
// print sink prints again what it printed since the last checkpoint;
// without checkpoints a restarted query recomputes its output from its
// inputs' beginning, and a file is rewritten from the start.
func guarantee(t connector.SinkTraits, checkpointed bool) string {
	switch {
	case t.Discards || checkpointed && t.ExactlyOnce:
		return exactlyOnce
	case checkpointed:
		return atLeastOnce
	case t.Rewrites:
		return rewrittenOnRestart
	}
	return replayedOnRestart
}

// readsView reports whether root reads a materialized view: its rows come
// from the view's changes, which have no position to resume from.
func readsView(root physical.Node) bool {
	return readsSource(root, func(src *physical.Source) bool { return src.Object.Kind == catalog.View })
}

// readsSource reports whether root has a Source for which is holds.
func readsSource(root physical.Node, is func(*physical.Source) bool) bool {
	if src, ok := root.(*physical.Source); ok && is(src) {
		return true
	}
	for _, in := range root.Hdr().Inputs {
		if readsSource(in, is) {
			return true
		}
	}
	return false
}

// sinkGuarantee returns the guarantee of sink obj: of its running query,
// or the one its plan root would have, checkpointed every interval.
func (e *Engine) sinkGuarantee(obj *catalog.Object, root physical.Node, interval time.Duration) string {
	e.mu.Lock()
	q := e.queries[lower(obj.Name)]
	e.mu.Unlock()
	conn, err := e.conns.Sink(obj.Connector())
	if err != nil {
		return "-"
	}
	traits, err := conn.Check(obj.Options, e.connEnv())
	if err != nil {
		return "-"
	}
	if q != nil {
		return guarantee(traits, q.state != nil && q.job.Resumable() == nil)
	}
	return guarantee(traits, interval > 0 && e.rebuiltInput(root) == nil && !readsView(root))
}

// showGuarantee is the guarantee SHOW SINKS lists for sink o. A
// continuous insert into a stream appends exactly once: checkpointed, in
// two phases (stream_stage.go); otherwise it replays its query after a
// restart and skips the rows it appended before (stream_sink.go).
func (e *Engine) showGuarantee(o *catalog.Object) string {
	if !e.writesOut(o) {
		return exactlyOnce
	}
	e.mu.Lock()
	q := e.queries[lower(o.Name)]
	e.mu.Unlock()
	if q == nil {
		return "-" // the query is not running
	}
	return e.sinkGuarantee(o, q.plan, 0)
}
