package engine

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/build"
	"github.com/eddysql/eddy/exec/connector"
	"github.com/eddysql/eddy/exec/dataflow"
	"github.com/eddysql/eddy/exec/mview"
	"github.com/eddysql/eddy/storage"
)

// startQuery starts the continuous query behind a view, a sink, a derived
// stream or a continuous insert, and registers it. resuming says the
// engine is restarting a stored query, which a checkpoint may resume; a
// query just created starts with no state. The query is checkpointed
// every interval (0: never) when it can be (see checkpoints.go).
func (e *Engine) startQuery(obj *catalog.Object, cq *compiledQuery, resuming bool, interval time.Duration) error {
	if e.member != nil {
		return e.startClusterQuery(obj, cq)
	}
	checkpointed := interval > 0 && e.rebuiltInput(cq.phys) == nil
	qg, err := e.queryGraph(obj, cq, checkpointed, viewKeep{})
	if err != nil {
		return err
	}
	g, mv := qg.graph, qg.mv
	opts := qg.options
	var qs *queryState
	rebuild := e.takeMustRebuild(obj)
	if checkpointed {
		if !resuming {
			if err := e.dropQueryState(obj); err != nil { // left by a view of this id that failed to drop
				return err
			}
		}
		if qs, err = e.openQueryState(obj, g); err != nil {
			if resuming && errors.Is(err, storage.ErrCorrupt) {
				var epoch uint64
				if re := (*checkpointReadError)(nil); errors.As(err, &re) {
					epoch = re.epoch
				}
				return damagedCheckpoint(obj, epoch, true, err)
			}
			return err
		}
		if qs.restore && rebuild {
			// An input it read was rebuilt: its checkpoint's positions
			// there no longer hold.
			e.notices.add(fmt.Sprintf("%s %s is rebuilt from its inputs: a derived stream it reads was rebuilt", obj.Kind, obj.Name))
			if qs, err = e.reopenQueryState(obj, g, qs); err != nil {
				return err
			}
		}
		opts.State, opts.Restore, opts.Relayout, opts.CheckpointInterval = qs.store, qs.restore, qs.relayout, interval
	}
	if err := e.prepareRebuild(obj, qs); err != nil {
		if qs != nil {
			qs.store.Close()
		}
		return err
	}
	job, err := dataflow.StartJob(e.ctx, g, opts)
	if err != nil && qs != nil && qs.restore {
		// The checkpoint cannot be resumed (the plan became one that is
		// not resumable): rebuild the view from its inputs.
		e.notices.add(fmt.Sprintf("%s %s is rebuilt from its inputs: %v", obj.Kind, obj.Name, err))
		if qs, err = e.reopenQueryState(obj, g, qs); err != nil {
			return err
		}
		if err := e.prepareRebuild(obj, qs); err != nil {
			qs.store.Close()
			return err
		}
		opts.State, opts.Restore = qs.store, false
		job, err = dataflow.StartJob(e.ctx, g, opts)
	}
	if err != nil {
		if qs != nil {
			qs.store.Close()
		}
		return err
	}
	background := false
	if qs != nil && qs.restore {
		// The queries started after this one may read the view: they
		// subscribe to its rows, which must be restored by then. A view
		// with nothing to catch up on may answer before the rest of its
		// state is back (background.go).
		e.noteRestoring(obj, job, qs)
		var err error
		if background = mv != nil && e.startup.resuming.Load(); background {
			background, err = job.WaitReadable(e.ctx)
		}
		if err == nil && !background {
			err = job.WaitOpened(e.ctx)
		}
		e.startup.restoring.Store(nil)
		if err != nil {
			job.Stop()
			qs.store.Close()
			return err
		}
		// A checkpoint that does not restore fails this query alone.
		var re *dataflow.RestoreError
		if state, jerr := job.State(); state == dataflow.JobFailed && errors.As(jerr, &re) {
			job.Stop()
			qs.store.Close()
			return damagedCheckpoint(obj, re.Epoch, re.Damaged, re.Err)
		}
	}
	if qs != nil {
		if err := qs.recordPlan(); err != nil {
			job.Stop()
			qs.store.Close()
			return fmt.Errorf("writing the checkpoints of %s: %w", obj.Name, err)
		}
	}
	e.register(&runningQuery{obj: obj, job: job, mv: mv, plan: cq.phys, bound: cq.own, graph: g, state: qs, background: background})
	return nil
}

// queryGraph is the dataflow of a continuous query, ready to start.
type queryGraph struct {
	graph   dataflow.GraphSpec
	mv      *mview.View // a view's rows
	options dataflow.JobOptions
}

// viewKeep is what the query of a view keeps when it moves (a rescale,
// rescale.go); the zero value keeps nothing: a new view.
type viewKeep struct {
	// mv is the view the new dataflow writes into. Its sink restores
	// nothing, as the view holds the rows of the checkpoint the query
	// moves at.
	mv *mview.View
	// rebuilt, when set, says the query is rebuilt from its inputs: its
	// sink reconciles mv with what it computes (mview.Sink.Reconcile) and
	// calls rebuilt then.
	rebuilt func(changed int)
}

// queryGraph builds the dataflow of obj's query cq, ending in the
// operator that keeps or sends its output: a view's sink, a derived
// stream's writer, a sink connector. checkpointed says the query will be
// checkpointed. keep is what a view's query that moves keeps.
func (e *Engine) queryGraph(obj *catalog.Object, cq *compiledQuery, checkpointed bool, keep viewKeep) (queryGraph, error) {
	var op func() (exec.Operator, error)
	var mv *mview.View
	name := "Materialize " + obj.Name
	coalesce := false
	switch {
	case obj.Kind == catalog.View:
		mv = keep.mv
		if mv == nil {
			mv = mview.New(cq.names(), cq.types(), resultKey(cq.logical))
			if obj.StateTTLMs > 0 {
				mv.Upsert() // an evicted group's row is replaced when its key comes back
			}
		}
		coalesce = true
		op = func() (exec.Operator, error) {
			return &mview.Sink{MV: mv, Kept: keep.mv != nil && keep.rebuilt == nil,
				Reconcile: keep.rebuilt != nil, Reconciled: keep.rebuilt}, nil
		}
	case obj.Kind == catalog.Stream:
		// A derived stream's log is kept when its query resumes from a
		// checkpoint, and recomputed from its inputs otherwise (below).
		name = "AppendTo " + obj.Name
		var mark func(int) []byte
		if checkpointed {
			mark = func(instance int) []byte { return derivedKey(obj.ID, instance) }
		}
		op = func() (exec.Operator, error) {
			return &streamSink{log: e.db.Log(), kv: e.db.KV(), stream: obj.ID, schema: obj.Schema(), mark: mark}, nil
		}
	default:
		conn, err := e.conns.Sink(obj.Connector())
		if err != nil {
			return queryGraph{}, err
		}
		env := e.connEnv()
		traits, err := conn.Check(obj.Options, env)
		if err != nil {
			return queryGraph{}, err
		}
		// A view's result and a sink whose output no one watches change
		// by change (blackhole) show no change history, so their
		// exchanges may coalesce small batches (coarser changelogs, same
		// results); push queries, file and print sinks and streams record
		// every change, batch by batch.
		coalesce = !traits.Observed
		name = "Sink " + obj.Name + " (" + conn.Name() + ")"
		if target, ok := e.insertTarget(obj); ok {
			name = "InsertInto " + target
		}
		spec := connector.SinkSpec{Object: obj.Name, Options: obj.Options, Names: cq.names(), Types: cq.types(),
			AppendOnly: cq.logical.Props().AppendOnly, Checkpointed: checkpointed}
		op = func() (exec.Operator, error) { return conn.New(spec, env) }
	}
	g, err := build.Graph(cq.phys, e.services(), dataflow.OpSpec{Name: name, New: func(int) (exec.Operator, error) { return op() }})
	if err != nil {
		return queryGraph{}, err
	}
	label := obj.Kind.String() + " " + obj.Name
	opts := e.jobOptions(label, label)
	opts.Coalesce = coalesce
	if opts.Shed, err = shedSpec(obj, cq.phys); err != nil {
		return queryGraph{}, err
	}
	opts.PolicyInterval, opts.LatencyInterval = e.rateIntervals(obj)
	if st := obj.Settings; st != nil && st.WatermarkAlignmentMs != nil {
		setAlignment(&opts, time.Duration(*st.WatermarkAlignmentMs)*time.Millisecond)
	}
	return queryGraph{graph: g, mv: mv, options: opts}, nil
}

// register records q as the running query of its object, and watches its
// job: a failed query fails its view's readers, and a checkpointed one
// that fails on a bug recovers (recover.go).
func (e *Engine) register(q *runningQuery) {
	e.mu.Lock()
	e.queries[lower(q.obj.Name)] = q
	e.mu.Unlock()
	job, mv, obj := q.job, q.mv, q.obj
	if mv != nil {
		go func() {
			// A failed query fails the queries reading its view, so nothing
			// waits forever for changes that will not come.
			<-job.Done()
			if state, err := job.State(); state == dataflow.JobFailed {
				mv.Fail(fmt.Errorf("materialized view '%s' failed: %w", obj.Name, err))
			}
		}()
	}
	if q.state != nil {
		e.watchFailures(obj, job)
	}
	if q.cluster == nil { // a cluster's tasks are spread by its groups
		e.startAutoscaler(obj)
		e.startJoinSwitcher(q)
	}
	// A query replanned (a rescale, a recovery) never reads a dropped
	// view again: the views only its old plan read go (share.go).
	e.releaseDetached()
}

// damagedCheckpoint is the error of obj's query whose checkpoint epoch (0:
// not known) could not be restored, damaged or not, because of err. A
// view with a damaged checkpoint falls back on the one before it when the
// store keeps it (resumeQuery); otherwise the query can be rebuilt from
// its inputs, and the error says how.
func damagedCheckpoint(obj *catalog.Object, epoch uint64, damaged bool, err error) error {
	return &checkpointError{obj: obj, epoch: epoch, damaged: damaged, err: err}
}

// checkpointError is damagedCheckpoint's error.
type checkpointError struct {
	obj     *catalog.Object
	epoch   uint64
	damaged bool
	err     error
}

// cause says which checkpoint failed and why, without the hint.
func (c *checkpointError) cause() string {
	which := "the checkpoint"
	if c.epoch > 0 {
		which = fmt.Sprintf("checkpoint %d", c.epoch)
	}
	what := "cannot be resumed"
	if c.damaged {
		what = "is damaged"
	}
	return fmt.Sprintf("%s of %s %s %s: %v", which, c.obj.Kind, c.obj.Name, what, c.err)
}

func (c *checkpointError) Error() string {
	return fmt.Sprintf("%s; DROP %s %s and CREATE it again to rebuild it from its inputs",
		c.cause(), strings.ToUpper(c.obj.Kind.String()), c.obj.Name)
}

func (c *checkpointError) Unwrap() error { return c.err }

// reopenQueryState drops the checkpoints in qs, obj's store, and opens
// it again, empty: the query is rebuilt from its inputs.
func (e *Engine) reopenQueryState(obj *catalog.Object, g dataflow.GraphSpec, qs *queryState) (*queryState, error) {
	qs.store.Close()
	if err := e.dropQueryState(obj); err != nil {
		return nil, err
	}
	return e.openQueryState(obj, g)
}

// prepareRebuild readies the output of obj's query, which resumes from a
// checkpoint when qs says so and is otherwise computed from its inputs'
// beginning: a derived stream's log is dropped and recomputed, and the
// queries reading it, which recorded positions in it, are rebuilt too.
func (e *Engine) prepareRebuild(obj *catalog.Object, qs *queryState) error {
	if obj.Kind != catalog.Stream || qs != nil && qs.restore {
		return nil
	}
	if err := e.db.Log().Drop(obj.ID); err != nil {
		return err
	}
	if err := e.dropDerivedKeys(obj.ID); err != nil {
		return fmt.Errorf("dropping the log of %s: %w", obj.Name, err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, o := range e.readersOf(obj)[1:] {
		e.mustRebuild[lower(o.Name)] = true
	}
	return nil
}

// takeMustRebuild reports whether obj's query reads a derived stream that
// was rebuilt since its checkpoint, and forgets it.
func (e *Engine) takeMustRebuild(obj *catalog.Object) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	must := e.mustRebuild[lower(obj.Name)]
	delete(e.mustRebuild, lower(obj.Name))
	return must
}
