package engine

import (
	"context"
	"fmt"
	"io"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/basic"
	"github.com/eddysql/eddy/exec/build"
	"github.com/eddysql/eddy/exec/dataflow"
	"github.com/eddysql/eddy/exec/mview"
	"github.com/eddysql/eddy/sql"
)

// query runs a SELECT: a pull query returns a snapshot, a push query
// (EMIT CHANGES) a stream of changes.
func (s *Session) query(ctx context.Context, st *sql.Select) (*Result, error) {
	if st.Query.EmitChanges {
		return s.push(st)
	}
	return s.pull(ctx, st)
}

// pull runs a query over what its inputs hold now and returns the result.
func (s *Session) pull(ctx context.Context, st *sql.Select) (*Result, error) {
	e := s.eng
	cq, err := e.planQuery(st.Query, st.Source(), st.Start, snapshot, s.settings())
	if err != nil {
		return nil, err
	}
	ts := cq.types()
	collect := &collector{ordered: cq.logical.Props().AppendOnly, types: ts}
	collect.mv = mview.New(cq.names(), ts, nil)
	if err := e.readToEnd(ctx, cq, "query", "Result", collect); err != nil {
		return nil, withSnippet(err, st.Source())
	}
	rows := collect.rows
	if !collect.ordered {
		rows = collect.mv.Snapshot()
	}
	res := &Result{Kind: ResultRows, Tag: fmt.Sprintf("SELECT %d", len(rows)), Rows: rows}
	for i, n := range cq.names() {
		res.Columns = append(res.Columns, Column{Name: n, Type: ts[i]})
	}
	return res, nil
}

// readToEnd runs a bounded read, the plan cq into sink (an operator named
// opName that ends the dataflow), as a job of kind to its end: it returns
// the job's error, or says how the job ended when it did not finish.
func (e *Engine) readToEnd(ctx context.Context, cq *compiledQuery, kind, opName string, sink exec.Operator) error {
	g, err := build.Graph(cq.phys, e.services(), dataflow.OpSpec{Name: opName, New: func(int) (exec.Operator, error) { return sink, nil }})
	if err != nil {
		return err
	}
	job, err := dataflow.StartJob(ctx, g, e.jobOptions(kind, ""))
	if err != nil {
		return err
	}
	trackJobs(ctx, job)
	if err := job.Wait(ctx); err != nil {
		return err
	}
	if state, _ := job.State(); state != dataflow.JobFinished {
		return fmt.Errorf("%s %s", kind, state)
	}
	return nil
}

// collector is the sink of a pull query. Over an append-only result it
// keeps the rows in arrival order (so ORDER BY holds); otherwise it
// integrates the changes.
type collector struct {
	ordered bool
	types   []types.T
	rows    [][]types.Datum
	mv      *mview.View
}

func (c *collector) Open(ctx context.Context, env *exec.Env) error { return nil }

func (c *collector) Process(ctx context.Context, in int, ch exec.Chunk, out exec.Emitter) error {
	if !c.ordered {
		return c.mv.Apply(ctx, ch)
	}
	c.rows = append(c.rows, types.Rows(ch.Batch, c.types)...)
	return nil
}

func (c *collector) OnControl(ctx context.Context, m exec.Control, out exec.Emitter) error {
	return nil
}

func (c *collector) Close() error { return nil }

// push starts a push query and returns its change stream.
func (s *Session) push(st *sql.Select) (*Result, error) {
	e := s.eng
	cq, err := e.planQuery(st.Query, st.Source(), st.Start, continuous, s.settings())
	if err != nil {
		return nil, err
	}
	ts := cq.types()
	ch := make(chan basic.ChangeBatch, 4)
	ended := make(chan struct{})
	sink := &basic.PushSink{Types: ts, Limit: max(cq.bound.Limit, 0)}
	sink.Out = func(ctx context.Context, rows basic.ChangeBatch) bool {
		select {
		case ch <- rows:
			return true
		case <-ctx.Done():
			return false
		}
	}
	sink.End = func() { close(ended) }
	if !s.opts.Interactive {
		// Nothing can be ingested while a script waits on this query, so
		// it ends once it has caught up with what was ingested so far: at
		// the first flush marker issued from now on (flush ids increase).
		sink.EndAt = e.flushSeq.Load() + 1
	}
	g, err := build.Graph(cq.phys, e.services(), dataflow.OpSpec{Name: "PushChanges", New: func(int) (exec.Operator, error) { return sink, nil }})
	if err != nil {
		return nil, err
	}
	opts := e.jobOptions("push query", "")
	if s.alignment != nil {
		setAlignment(&opts, *s.alignment)
	}
	job, err := dataflow.StartJob(e.ctx, g, opts)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	e.pushes[job] = struct{}{}
	e.mu.Unlock()
	if !s.opts.Interactive {
		go func() {
			// Bring every query (and this one) up to date; the push query
			// ends at the marker of its own level.
			if _, err := e.flushAll(e.ctx, job); err != nil {
				job.Stop()
			}
		}()
	}
	stop := func() {
		job.Stop()
		e.mu.Lock()
		delete(e.pushes, job)
		e.mu.Unlock()
	}
	next := func(ctx context.Context) ([][]types.Datum, error) {
		select {
		case rows := <-ch:
			return rows, nil
		default:
		}
		select {
		case rows := <-ch:
			return rows, nil
		case <-ended:
			// The sink sent everything before it ended; drain what is queued.
			select {
			case rows := <-ch:
				return rows, nil
			default:
			}
			stop()
			return nil, io.EOF
		case <-job.Done():
			select {
			case rows := <-ch:
				return rows, nil
			default:
			}
			stop()
			if _, err := job.State(); err != nil {
				return nil, withSnippet(err, st.Source())
			}
			return nil, io.EOF
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	res := &Result{Kind: ResultStream, Tag: "SELECT", Stream: NewStream(next, stop)}
	res.Stream.SetProgress(func() StreamProgress { return pushProgress(job.Stats()) })
	res.Columns = append(res.Columns, Column{Name: "op", Type: types.VarcharT})
	for i, n := range cq.names() {
		res.Columns = append(res.Columns, Column{Name: n, Type: ts[i]})
	}
	return res, nil
}

// pushProgress is a push query's progress from its job's figures: the
// watermark of its last operator, the one that hands rows out, and the
// largest lag of its sources.
func pushProgress(stats []dataflow.OpStats) StreamProgress {
	var p StreamProgress
	for _, st := range stats {
		if st.Source {
			p.Lag = max(p.Lag, st.Lag)
		}
	}
	if n := len(stats); n > 0 {
		if wm := stats[n-1].Watermark; wm != 0 && wm != exec.MaxWatermark {
			p.Watermark, p.HasWatermark = wm, true
		}
	}
	return p
}
