package engine

import (
	"context"
	"time"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/exec/dataflow"
)

// flush implements FLUSH: it returns once every row ingested so far (and
// every bounded source read to its end) is reflected in every view, sink
// and derived stream. When continuous queries have failed — in this
// flush, earlier, or when the engine opened — it returns a
// *QueriesFailedError naming each, after flushing the others: a failed
// query stays failed, and every FLUSH reports it, until it is dropped.
func (s *Session) flush(ctx context.Context) (*Result, error) {
	e := s.eng
	for {
		res, again, err := e.flushOnce(ctx)
		if !again || ctx.Err() != nil {
			return res, err
		}
	}
}

// flushOnce is one attempt of FLUSH. A query restarting from its
// checkpoint after a failure (recover.go) is flushed once it has
// restarted: the attempt waits for a restart under way, and when one
// starts during the attempt — taking its queries out of those the attempt
// flushes, and out of those it reports failed — it reports that the flush
// must be made again (again), whatever its outcome.
func (e *Engine) flushOnce(ctx context.Context) (res *Result, again bool, err error) {
	e.recovery.wait()
	// A rescale waits for the whole of it, sinks' checkpoints included
	// (flushAll's lock, taken here once).
	e.moves.RLock()
	defer e.moves.RUnlock()
	e.mu.Lock()
	gen, busy := e.recovery.started.Load(), e.recovery.active.Load() > 0
	jobs := make([]*dataflow.Job, 0, len(e.queries))
	for _, q := range e.queries {
		jobs = append(jobs, q.job)
	}
	e.mu.Unlock()
	if busy {
		// A restart began since the wait: the next attempt waits for it
		// (it holds e.recovery.run); the pause only keeps a restart that
		// did not take that lock from making the attempts spin.
		time.Sleep(time.Millisecond)
		return nil, true, nil
	}
	if e.afterFlushCollect != nil {
		e.afterFlushCollect()
	}
	restarted := func() bool { return e.recovery.started.Load() != gen }
	trackJobs(ctx, jobs...)
	if _, err := e.flushLevelsOf(ctx, e.flushLevels(nil), nil); err != nil {
		return nil, restarted(), err
	}
	// A checkpointed file sink's rows reach its files when a checkpoint
	// commits (a failure shows as the query's, below); flushAll did so
	// for the queries writing streams.
	e.checkpointQueries(ctx, func(q *runningQuery) bool { return e.writesOut(q.obj) })
	if restarted() {
		return nil, true, nil
	}
	if failed := e.failedQueries(); len(failed) > 0 {
		return nil, false, &QueriesFailedError{Failures: failed}
	}
	return ok("FLUSH"), false, nil
}

// flushAll sends a flush marker through every continuous query (and extra,
// when given) and waits for it to reach their sinks. Each query's sources
// send the marker after the rows they hold; a view's sink passes it on to
// the queries reading the view, so views over views need nothing more. A
// derived stream or a continuous insert writes a log that other queries
// read, so those readers are flushed after their writers finished: queries
// go in levels, each after the level it reads from.
//
// A query aligns the markers of all its inputs, and a view forwards only
// the markers its own sources were asked for, so every query a level reads
// from, directly or through views, must be asked for that level's marker
// too: each level's marker goes to the queries of that level and of every
// level below it (those have caught up already, so it passes quickly).
//
// A checkpointed stream-writing query appends its rows to the log when a
// checkpoint commits (stream_stage.go), so once a level's markers have
// reached their sinks its checkpointed stream-writing queries take a
// checkpoint, and their readers, in the next level, find the rows there.
//
// A rescale waits for it, and it for a rescale: a job replaced while its
// marker is on the way would never send it.
func (e *Engine) flushAll(ctx context.Context, extra *dataflow.Job) ([]*dataflow.Job, error) {
	e.moves.RLock()
	defer e.moves.RUnlock()
	return e.flushLevelsOf(ctx, e.flushLevels(nil), extra)
}

// flushLevel is a level of queries to flush together: their jobs, and
// those of its checkpointed stream-writing queries.
type flushLevel struct {
	jobs, writers []*dataflow.Job
}

// flushLevelsOf flushes levels (from flushLevels), then extra when given.
func (e *Engine) flushLevelsOf(ctx context.Context, levels []flushLevel, extra *dataflow.Job) ([]*dataflow.Job, error) {
	if extra != nil {
		levels = append(levels, flushLevel{jobs: []*dataflow.Job{extra}})
	}
	var asked []*dataflow.Job
	for _, level := range levels {
		id := e.flushSeq.Add(1)
		asked = append(asked, level.jobs...)
		for _, j := range asked {
			j.RequestFlush(id)
		}
		for _, j := range asked {
			if err := j.WaitFlushed(ctx, id); err != nil {
				return nil, err
			}
		}
		// A checkpoint that fails fails its query, which FLUSH reports.
		if err := checkpointJobs(ctx, level.writers); err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	return asked, nil
}

// flushLevels groups the running queries (those keep accepts, all when
// keep is nil) by how many stream-writing queries (derived streams,
// continuous inserts) stand between them and their sources; a query
// reading a view is at least at the view's level.
func (e *Engine) flushLevels(keep func(*runningQuery) bool) []flushLevel {
	e.mu.Lock()
	queries := make([]*runningQuery, 0, len(e.queries))
	if keep == nil {
		// Dropped views that run on for their readers pass the markers
		// on to them (share.go); first, so that a running view of the
		// same name is the one byName finds.
		for _, q := range e.detached {
			queries = append(queries, q)
		}
	}
	for _, q := range e.queries {
		if keep == nil || keep(q) {
			queries = append(queries, q)
		}
	}
	e.mu.Unlock()
	// writers maps a stream to the queries that append to it; byName maps
	// an object to the query that maintains it.
	writers := map[string][]*runningQuery{}
	byName := map[string]*runningQuery{}
	for _, q := range queries {
		byName[lower(q.obj.Name)] = q
		switch {
		case q.obj.Kind == catalog.Stream:
			writers[lower(q.obj.Name)] = append(writers[lower(q.obj.Name)], q)
		default:
			if target, ok := e.insertTarget(q.obj); ok {
				writers[lower(target)] = append(writers[lower(target)], q)
			}
		}
	}
	level := map[*runningQuery]int{}
	var depth func(q *runningQuery, seen map[*runningQuery]bool) int
	depth = func(q *runningQuery, seen map[*runningQuery]bool) int {
		if l, ok := level[q]; ok {
			return l
		}
		if seen[q] {
			return 0 // a cycle cannot be created; be safe anyway
		}
		seen[q] = true
		l := 0
		for _, d := range q.obj.DependsOn {
			for _, w := range writers[lower(d)] {
				if w != q {
					l = max(l, depth(w, seen)+1)
				}
			}
			// A view's markers reach its readers through the view, so a
			// reader is flushed no earlier than the view it reads.
			if v := byName[lower(d)]; v != nil && v != q && v.obj.Kind == catalog.View {
				l = max(l, depth(v, seen))
			}
		}
		level[q] = l
		return l
	}
	var out []flushLevel
	for _, q := range queries {
		l := depth(q, map[*runningQuery]bool{})
		for len(out) <= l {
			out = append(out, flushLevel{})
		}
		out[l].jobs = append(out[l].jobs, q.job)
		if _, insert := e.insertTarget(q.obj); (insert || q.obj.Kind == catalog.Stream) && q.state != nil && q.job.Resumable() == nil {
			out[l].writers = append(out[l].writers, q.job)
		}
	}
	return out
}
