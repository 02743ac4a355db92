package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/exec/dataflow"
	"github.com/eddysql/eddy/sql"
)

// Rescaling a running query (ALTER ... SET (parallelism = N), and
// Engine.Rescale for an autoscaler). The query of a view, a sink or a
// derived stream changes parallelism while every other query runs on:
//
//  1. It is planned at the new parallelism. Its state layout (stateLayout:
//     each operator's table, named by its place in the plan, with its
//     configuration) must be the one its checkpoints have — the same
//     operators, keyed the same way; only the exchanges and the key groups
//     each instance owns differ. Otherwise the rescale is refused before
//     anything stops.
//  2. Its job stops at a checkpoint (dataflow.Job.StopAtCheckpoint): a
//     barrier goes through the dataflow after the rows the sources have
//     read, every task stops once it has handled it, and the epoch
//     commits. Nothing after the barrier happened anywhere: a view holds
//     exactly the rows of the cut, a derived stream's log and a sink's
//     files what the cut published.
//  3. The job of the new plan starts from that checkpoint: every instance
//     restores the key groups it now owns, each source seeks to the
//     recorded position, and the query goes on. An instance of an
//     operator that adopts key groups (exec.GroupMover: every keyed
//     operator — hash aggregate, hash join, Top-N, de-duplication, OVER,
//     INTERSECT/EXCEPT, temporal filter, SESSION window and Upsert) takes
//     over the stopped job's instance it is matched with
//     (dataflow.Job.StopAndHandOver) and reads only the groups it gains,
//     unless it falls back to a full restore. A view's rows are not
//     restored but kept (mview.Sink.Kept): the view, and every
//     subscription to it (push queries, views over it), stays, so its
//     readers see the changes before the cut and then those after it,
//     none lost and none twice, only later for the pause.
//  4. The new parallelism is stored with the query, so a restart plans it
//     at the new parallelism (and resumes its checkpoint: the layout is
//     the same).
//
// The other operators' instances read all their key groups from the
// store (dataflow.Job.RestoreMoves measures what was read, and how much
// of it lies in groups that changed instance).
//
// A query that is not checkpointed cannot stop at a cut and resume from
// it: one reading a materialized view (a view's changes have no position),
// one reading a derived stream rebuilt on restart, or one created with
// checkpoint_interval = 0. A view's is rebuilt instead (rebuildView): its
// job stops, the job of the new plan recomputes the view from its inputs
// beside the rows the view keeps, and once it has caught up (a flush) the
// view becomes what it computed through one chunk of differences
// (mview.Sink.Reconcile), so its readers' integral is always one the view
// held. A sink's or a derived stream's rebuilt query would publish its
// output again, so they are refused, as are a continuous INSERT ...
// SELECT (it runs as one instance, so that a replay appends its rows in
// the same order) and a query whose plan at the new parallelism keeps its
// state otherwise (a broadcast join, a source read in parallel splits).

// maxParallelism bounds SET parallelism and ALTER ... SET (parallelism):
// no more instances than key groups, or some would own none.
const maxParallelism = 256

// RescaleReport says what a rescale did.
type RescaleReport struct {
	Kind catalog.Kind
	Name string
	// From and To are the query's parallelism before and after.
	From, To int
	// Epoch is the checkpoint the query stopped at and resumed from (0:
	// nothing moved — the parallelism was already To, or the query had
	// finished and only its setting changed).
	Epoch uint64
	// Pause is how long the query processed nothing: from the barrier's
	// request until every instance of the new job had restored its state
	// and its sources could read again (then it reads what arrived
	// meanwhile).
	Pause time.Duration
	// StateBytes is the state (keys and values) the new job's instances
	// restored from the checkpoint: an instance that took over the old
	// instance it is matched with reads the key groups it gains, any
	// other all the groups it owns.
	StateBytes int64
	// MovedBytes is the part of StateBytes in key groups that changed
	// instance (a group changes instance when the old instance matched
	// with its new owner, exec.MatchInstances, did not own it) —
	// what moving only those groups carries — and MovedGroups counts
	// those groups over the stateful operators.
	MovedBytes  int64
	MovedGroups int
	// Rebuilt, when set, says why the query was rebuilt from its inputs
	// rather than moved at a checkpoint (a view's query that is not
	// checkpointed): Epoch is 0, nothing was restored, Pause lasts until
	// the rebuilt query caught up, and its view's readers received the
	// difference between what it held and what the rebuilt query
	// computed, Reconciled rows.
	Rebuilt    string
	Reconciled int
	// Switch, when set, says the move switches a join's distribution
	// rather than the parallelism (adaptive_join.go): "switching join 1
	// (bid ⋈ dim) of materialized view v to hash".
	Switch string
}

// String returns the notice a rescale leaves.
func (r RescaleReport) String() string {
	switch {
	case r.From == r.To:
		return fmt.Sprintf("%s %s already runs at parallelism %d", r.Kind, r.Name, r.To)
	case r.Rebuilt != "":
		return fmt.Sprintf("%s %s rescaled from parallelism %d to %d by rebuilding it from its inputs (%s): processing paused %s; its readers received the difference, %d rows",
			r.Kind, r.Name, r.From, r.To, r.Rebuilt, r.Pause.Round(10*time.Microsecond), r.Reconciled)
	case r.Epoch == 0:
		return fmt.Sprintf("%s %s has finished: it runs at parallelism %d when it starts again", r.Kind, r.Name, r.To)
	}
	return fmt.Sprintf("%s %s rescaled from parallelism %d to %d at checkpoint %d: processing paused %s; %s of state restored, %s of it in the %d key groups that changed instance",
		r.Kind, r.Name, r.From, r.To, r.Epoch, r.Pause.Round(10*time.Microsecond), dataflow.FormatBytes(r.StateBytes),
		dataflow.FormatBytes(r.MovedBytes), r.MovedGroups)
}

// RescaleErrorCode says why a rescale was refused.
type RescaleErrorCode uint8

// The reasons a rescale is refused.
const (
	RescaleUnknown        RescaleErrorCode = iota + 1 // no object of that name
	RescaleNoQuery                                    // the object runs no query (a source stream, a table)
	RescaleNotRunning                                 // its query failed, could not resume, or is being restarted
	RescaleBadParallelism                             // not an integer from 1 to maxParallelism
	RescaleNotSupported                               // the query cannot move (yet): a sink's or stream's not checkpointed, another state layout
)

// RescaleError is a refused rescale. Nothing stopped: the query runs on
// as it did.
type RescaleError struct {
	Code RescaleErrorCode
	Name string
	Msg  string
}

func (e *RescaleError) Error() string {
	if e.Code == RescaleNotSupported {
		return "not supported yet: " + e.Msg
	}
	return e.Msg
}

// Rescale changes the parallelism of the running query of the view, sink
// or derived stream named name to parallelism, while the other queries
// run on, and stores it with the query. Its readers see no gap and no
// duplicate (see above). It returns what moved, and leaves the report as
// a notice for every session. A refusal is a *RescaleError; a failure
// after the query stopped restarts it, and its readers, from its last
// checkpoint at its old parallelism. Rescales run one at a time, and
// FLUSH and DROP wait for one in progress.
func (e *Engine) Rescale(ctx context.Context, name string, parallelism int) (RescaleReport, error) {
	if parallelism < 1 || parallelism > maxParallelism {
		return RescaleReport{}, &RescaleError{Code: RescaleBadParallelism, Name: name,
			Msg: fmt.Sprintf("parallelism must be an integer from 1 to %d, got %d", maxParallelism, parallelism)}
	}
	e.moves.Lock()
	defer e.moves.Unlock()
	if err := e.ctx.Err(); err != nil {
		return RescaleReport{}, fmt.Errorf("rescaling %s: the engine is closing: %w", name, err)
	}
	e.recovery.run.Lock()
	defer e.recovery.run.Unlock()
	obj, q, rebuild, err := e.movable(name)
	if err != nil {
		return RescaleReport{}, err
	}
	ps, interval := e.storedSettings(obj)
	rep := RescaleReport{Kind: obj.Kind, Name: obj.Name, From: ps.parallelism, To: parallelism, Rebuilt: rebuild}
	if ps.parallelism == parallelism {
		return rep, nil
	}
	if state, _ := q.job.State(); state == dataflow.JobFinished {
		// Its inputs ended: nothing runs to move.
		now, err := e.storeParallelism(obj, parallelism)
		if err != nil {
			return RescaleReport{}, err
		}
		finished := *q
		finished.obj = now
		e.mu.Lock()
		e.queries[lower(obj.Name)] = &finished
		e.mu.Unlock()
		rep.Rebuilt = ""
		e.notices.add(rep.String())
		return rep, nil
	}
	ps.parallelism = parallelism
	cq, err := e.replan(obj, ps)
	if err != nil {
		return RescaleReport{}, fmt.Errorf("planning %s %s at parallelism %d: %w", obj.Kind, obj.Name, parallelism, err)
	}
	var moved *runningQuery
	if rebuild != "" {
		moved, err = e.rebuildView(obj, q, cq, interval, &rep)
	} else {
		moved, err = e.moveAtCheckpoint(obj, q, cq, interval, &rep)
	}
	if err != nil {
		return RescaleReport{}, err
	}
	now, err := e.storeParallelism(obj, parallelism)
	if err != nil {
		// It runs at the new parallelism, and a restart plans it at the
		// old one, whose layout is the same: it resumes all the same.
		e.notices.add(fmt.Sprintf("%s %s runs at parallelism %d, but storing it failed (a restart runs it at %d): %v",
			obj.Kind, obj.Name, parallelism, rep.From, err))
		now = obj
	}
	moved.obj = now
	e.register(moved)
	e.notices.add(rep.String())
	return rep, nil
}

// movable returns the object named name and its running query, and, when
// the query cannot stop at a checkpoint but can be rebuilt (a view's),
// why it is rebuilt; otherwise a *RescaleError says why it cannot move.
func (e *Engine) movable(name string) (*catalog.Object, *runningQuery, string, error) {
	obj, ok := e.cat.Get(name)
	if !ok {
		return nil, nil, "", &RescaleError{Code: RescaleUnknown, Name: name, Msg: fmt.Sprintf("unknown materialized view, sink or stream '%s'", name)}
	}
	refuse := func(code RescaleErrorCode, format string, args ...any) (*catalog.Object, *runningQuery, string, error) {
		return nil, nil, "", &RescaleError{Code: code, Name: obj.Name, Msg: fmt.Sprintf(format, args...)}
	}
	if obj.Query == "" {
		return refuse(RescaleNoQuery, "%s '%s' runs no query: only a materialized view, a sink or a derived stream (CREATE STREAM ... AS SELECT) can be rescaled", obj.Kind, obj.Name)
	}
	if _, insert := e.insertTarget(obj); insert {
		return refuse(RescaleNotSupported, "rescaling %s '%s', a continuous INSERT ... SELECT: it runs as one instance, so that a replay appends its rows in the same order", obj.Kind, obj.Name)
	}
	e.mu.Lock()
	q, broken := e.queries[lower(obj.Name)], e.broken[lower(obj.Name)]
	e.mu.Unlock()
	switch {
	case broken != nil:
		return refuse(RescaleNotRunning, "%s '%s' is not running: it could not resume: %v", obj.Kind, obj.Name, broken)
	case q == nil:
		return refuse(RescaleNotRunning, "%s '%s' is not running", obj.Kind, obj.Name)
	}
	if state, err := q.job.State(); state == dataflow.JobFailed || state == dataflow.JobCancelled {
		return refuse(RescaleNotRunning, "%s '%s' is not running: %s", obj.Kind, obj.Name, queryStatus{state: state, err: err})
	}
	if q.state != nil && q.job.Resumable() == nil {
		return obj, q, "", nil
	}
	why := "its query is not checkpointed (it was created with checkpoint_interval = 0)"
	switch {
	case readsView(q.plan):
		why = "it reads a materialized view, whose changes have no position to resume from"
	case e.rebuiltInput(q.plan) != nil:
		why = fmt.Sprintf("it reads stream %s, which is rebuilt from its inputs on a restart", e.rebuiltInput(q.plan).Name)
	case q.state != nil:
		why = fmt.Sprintf("it cannot resume from a checkpoint: %v", q.job.Resumable())
	}
	if q.mv != nil {
		return obj, q, why, nil
	}
	// A sink or a derived stream rebuilt from its inputs would publish its
	// output again.
	return refuse(RescaleNotSupported, "rescaling %s %s: %s", obj.Kind, obj.Name, why)
}

// replan plans obj's stored query with the settings ps.
func (e *Engine) replan(obj *catalog.Object, ps planSettings) (*compiledQuery, error) {
	stmt, err := sql.ParseOne(obj.Query, sql.Pos{Line: 1, Col: 1})
	if err != nil {
		return nil, err
	}
	sel, ok := stmt.(*sql.Select)
	if !ok {
		return nil, errors.New("its stored query is not a SELECT")
	}
	return e.planContinuous(obj, sel.Query, stmt.Source(), sql.Pos{Line: 1, Col: 1}, ps)
}

// storeParallelism stores parallelism with obj's query and returns the
// object that holds it, which replaces obj in the catalog.
func (e *Engine) storeParallelism(obj *catalog.Object, parallelism int) (*catalog.Object, error) {
	st := catalog.QuerySettings{}
	if obj.Settings != nil {
		st = *obj.Settings
	}
	st.Parallelism = parallelism
	return e.cat.SetSettings(obj.Name, st)
}

// moveFailed handles a rescale of obj's query q that failed after its job
// was told to stop: its view may hold rows past the last checkpoint that
// committed, so its readers fail with the cause, and it restarts, with
// the queries reading it, from that checkpoint at its old parallelism,
// as a query that fails does (recover.go). The caller holds
// e.recovery.run.
func (e *Engine) moveFailed(obj *catalog.Object, q *runningQuery, parallelism int, cause error) {
	if e.ctx.Err() != nil {
		return // closing: the query stops anyway
	}
	q.job.Stop()
	if q.mv != nil {
		q.mv.Fail(fmt.Errorf("materialized view '%s' failed to move to parallelism %d: %w", obj.Name, parallelism, cause))
	}
	e.restartWithReaders(obj, q.job, fmt.Sprintf("%s %s could not move to parallelism %d (%s): it restarts from its last checkpoint",
		obj.Kind, obj.Name, parallelism, firstLine(cause)))
}
