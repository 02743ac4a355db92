package engine

import (
	"fmt"
	"time"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/exec/dataflow"
)

// The two ways a rescale moves a query (rescale.go): at a checkpoint, or,
// for a view whose query is not checkpointed, by rebuilding it.

// moveAtCheckpoint moves q, obj's checkpointed query, to the plan cq: it
// stops q's job at a checkpoint and starts cq's from it, keeping q's view.
// It returns the new query, not registered yet, and fills in rep; a
// refusal leaves q running, a failure after the stop restarts it.
func (e *Engine) moveAtCheckpoint(obj *catalog.Object, q *runningQuery, cq *compiledQuery, interval time.Duration, rep *RescaleReport) (*runningQuery, error) {
	qg, err := e.queryGraph(obj, cq, true, viewKeep{mv: q.mv})
	if err != nil {
		return nil, err
	}
	layout := stateLayout(qg.graph)
	why := layoutChange(q.state.layout, layout)
	if why == "" {
		why = joinMoves(q.plan, cq.phys)
	}
	if why != "" {
		return nil, &RescaleError{Code: RescaleNotSupported, Name: obj.Name, Msg: fmt.Sprintf("%s: %s", rep.doing(), why)}
	}
	start := time.Now()
	// The stopped job hands its instances over: those of the operators
	// that adopt key groups keep the state of the groups they still own.
	epoch, handoff, err := q.job.StopAndHandOver(e.ctx)
	if err != nil {
		e.moveFailed(obj, q, rep.To, err)
		return nil, fmt.Errorf("%s: stopping it at a checkpoint: %w", rep.doing(), err)
	}
	opts := qg.options
	placement := statePlacement(qg.graph)
	opts.State, opts.Restore, opts.CheckpointInterval, opts.Handoff = q.state.store, true, interval, handoff
	// The stop's checkpoint was written by q's job: by q's plan's placement.
	opts.Relayout = q.state.placement != placement
	job, err := dataflow.StartJob(e.ctx, qg.graph, opts)
	if err == nil {
		err = job.WaitOpened(e.ctx)
		if state, jerr := job.State(); err == nil && state == dataflow.JobFailed {
			err = jerr
		}
		if err != nil {
			job.Stop()
		}
	}
	qs := &queryState{store: q.state.store, epoch: epoch, restore: true, meta: q.state.meta, layout: layout, fingerprint: q.state.fingerprint,
		placement: placement, relayout: opts.Relayout}
	if err == nil {
		if err = qs.recordPlan(); err != nil {
			job.Stop()
		}
	}
	if err != nil {
		e.moveFailed(obj, q, rep.To, err)
		return nil, fmt.Errorf("%s: starting its new plan: %w", rep.doing(), err)
	}
	rep.Epoch, rep.Pause = epoch, time.Since(start)
	m := job.RestoreMoves(q.graph)
	rep.StateBytes, rep.MovedBytes, rep.MovedGroups = m.Read, m.Moved, m.MovedGroups
	return &runningQuery{obj: obj, job: job, mv: qg.mv, plan: cq.phys, bound: cq.own, graph: qg.graph, state: qs}, nil
}

// doing says what the move does, for its errors.
func (r *RescaleReport) doing() string {
	if r.Switch != "" {
		return r.Switch
	}
	return fmt.Sprintf("rescaling %s %s to parallelism %d", r.Kind, r.Name, r.To)
}

// rebuildView moves q, the query of view obj that is not checkpointed, to
// the plan cq by rebuilding it from its inputs: q's job stops, cq's starts
// afresh writing into q's view, which it reconciles with what it computed
// once it has caught up (every query is flushed, the new job in q's
// place): the view's readers get the difference, in one chunk. It
// returns the new query, not registered yet, and fills in rep; a failure
// restarts q.
func (e *Engine) rebuildView(obj *catalog.Object, q *runningQuery, cq *compiledQuery, interval time.Duration, rep *RescaleReport) (*runningQuery, error) {
	reconciled := -1
	qg, err := e.queryGraph(obj, cq, q.state != nil, viewKeep{mv: q.mv, rebuilt: func(n int) { reconciled = n }})
	if err != nil {
		return nil, err
	}
	start := time.Now()
	q.job.Stop()
	opts := qg.options
	var qs *queryState
	if q.state != nil {
		// The job cannot checkpoint (it is not resumable), but runs as a
		// new one would, with the store.
		qs = &queryState{store: q.state.store, epoch: q.state.epoch, meta: q.state.meta, layout: stateLayout(qg.graph), placement: statePlacement(qg.graph)}
		qs.fingerprint = layoutFingerprint(qs.layout)
		opts.State, opts.CheckpointInterval = qs.store, interval
	}
	job, err := dataflow.StartJob(e.ctx, qg.graph, opts)
	if err == nil {
		// Every query is flushed, the new job in the old one's place: it
		// aligns the markers of the views it reads (which forward those
		// their own sources were asked for), and the views reading its
		// view wait for the markers it forwards.
		levels := e.flushLevels(nil)
		for _, level := range levels {
			for i, j := range level.jobs {
				if j == q.job {
					level.jobs[i] = job
				}
			}
		}
		_, err = e.flushLevelsOf(e.ctx, levels, nil)
		if state, jerr := job.State(); err == nil && state == dataflow.JobFailed {
			err = jerr
		}
		// The sink set reconciled before it passed the marker on, which
		// the flush waited for (or the job ended, and its tasks with it).
		if state, _ := job.State(); err == nil && reconciled < 0 {
			err = fmt.Errorf("its job ended (%s) before it caught up", state)
		}
		if err == nil && qs != nil {
			err = qs.recordPlan()
		}
		if err != nil {
			job.Stop()
		}
	}
	if err != nil {
		e.moveFailed(obj, q, rep.To, err)
		return nil, fmt.Errorf("rescaling %s %s: rebuilding it at parallelism %d: %w", obj.Kind, obj.Name, rep.To, err)
	}
	rep.Pause, rep.Reconciled = time.Since(start), reconciled
	return &runningQuery{obj: obj, job: job, mv: qg.mv, plan: cq.phys, bound: cq.own, graph: qg.graph, state: qs}, nil
}
