package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/autoscale"
	"github.com/eddysql/eddy/exec/dataflow"
	"github.com/eddysql/eddy/sql"
)

// Autoscaling: a query created after SET autoscale = 'ds2' has a DS2
// controller (exec/autoscale) of its own, which every policy interval reads
// what each operator instance of the query's job did (autoscaleInterval),
// decides the parallelism it needs, and applies a decision through a live
// rescale (Engine.Rescale). Every decision, with its inputs and what
// applying it did, is logged and shown by SHOW AUTOSCALE. The setting is
// stored with the query, so its controller starts again after a restart.

// autoscaleDS2 is SET autoscale's value that turns the DS2 controller on.
const autoscaleDS2 = "ds2"

// autoscaleLogSize is how many decisions SHOW AUTOSCALE keeps per query.
const autoscaleLogSize = 64

// autoscalers are the engine's running controllers, by query name.
type autoscalers struct {
	mu     sync.Mutex
	byName map[string]*autoscaler
	wg     sync.WaitGroup
	ctx    context.Context
	cancel context.CancelFunc
}

// autoscaler is one query's controller and its log.
type autoscaler struct {
	name  string
	objID uint64
	every time.Duration
	ctl   *autoscale.Controller

	mu  sync.Mutex
	log []autoscaleEntry
	off string // why decisions are no longer applied ("" while they are)
}

// autoscaleEntry is a logged decision and what applying it did.
type autoscaleEntry struct {
	at       time.Time
	decision autoscale.Decision
	from, to int
	result   string
}

// setAutoscale is SET autoscale = 'ds2' | 'off'.
func (s *Session) setAutoscale(st *sql.Set) (*Result, error) {
	switch v := strings.ToLower(strings.TrimSpace(st.Value)); v {
	case autoscaleDS2, "off", "none":
		if v != autoscaleDS2 {
			v = "off" // stored: it overrides the engine's --autoscale
		}
		s.autoscale = v
		return ok("SET"), nil
	}
	return nil, bindErr(st.ValuePos, st.Source(), "autoscale must be 'ds2' or 'off', got '%s'", st.Value)
}

// startAutoscaler starts obj's controller if its query asked for one and
// it has none running.
func (e *Engine) startAutoscaler(obj *catalog.Object) {
	mode := e.cfg.Autoscale
	if obj.Settings != nil && obj.Settings.Autoscale != "" {
		mode = obj.Settings.Autoscale
	}
	if mode != autoscaleDS2 {
		return
	}
	cfg := autoscale.DefaultConfig()
	if e.cfg.AutoscaleMax > 0 {
		cfg.Max = e.cfg.AutoscaleMax
	} else {
		cfg.Max = runtime.NumCPU()
	}
	policy, _ := e.rateIntervals(obj)
	ctl, err := autoscale.New(cfg)
	if err != nil {
		e.notices.add(fmt.Sprintf("%s %s has no autoscaling: %v", obj.Kind, obj.Name, err))
		return
	}
	sc := &e.scale
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.ctx == nil || sc.ctx.Err() != nil {
		return // the engine is closing
	}
	if a := sc.byName[lower(obj.Name)]; a != nil && a.objID == obj.ID {
		return // running (a rescale restarted the query's job)
	}
	a := &autoscaler{name: obj.Name, objID: obj.ID, every: policy, ctl: ctl}
	sc.byName[lower(obj.Name)] = a
	sc.wg.Add(1)
	go e.runAutoscaler(a)
}

// stopAutoscalers stops every controller and waits for them.
func (e *Engine) stopAutoscalers() {
	sc := &e.scale
	sc.mu.Lock()
	if sc.cancel != nil {
		sc.cancel()
	}
	sc.mu.Unlock()
	sc.wg.Wait()
}

// everyInterval calls check with the running query named name, of object
// id, every interval until the query is dropped (then gone runs) or ctx
// ends: the loop of the controllers that watch one query each.
func (e *Engine) everyInterval(ctx context.Context, every time.Duration, name string, id uint64, gone func(), check func(q *runningQuery)) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		e.mu.Lock()
		q := e.queries[lower(name)]
		e.mu.Unlock()
		if q == nil || q.obj.ID != id {
			gone()
			return
		}
		check(q)
	}
}

// runAutoscaler runs a's controller every interval until its query is
// dropped or the engine closes.
func (e *Engine) runAutoscaler(a *autoscaler) {
	defer e.scale.wg.Done()
	ctx := e.scale.ctx
	var (
		prev    [][]dataflow.OpStats
		prevJob *dataflow.Job
		prevAt  time.Time
	)
	gone := func() {
		e.scale.mu.Lock()
		if e.scale.byName[lower(a.name)] == a {
			delete(e.scale.byName, lower(a.name))
		}
		e.scale.mu.Unlock()
	}
	e.everyInterval(ctx, a.every, a.name, a.objID, gone, func(q *runningQuery) {
		if state, _ := q.job.State(); state != dataflow.JobRunning {
			prev = nil
			return
		}
		cur, at := q.job.InstanceStats(), time.Now()
		if prevJob == q.job && prev != nil {
			if in := autoscaleInterval(q.graph, prev, cur, at.Sub(prevAt)); in != nil {
				if d, err := a.ctl.Observe(in); err == nil {
					e.applyDecision(ctx, a, q, d)
				}
			}
		}
		prev, prevJob, prevAt = cur, q.job, at
	})
}

// applyDecision logs d and, when it changes the parallelism, rescales q's
// query to the highest its operators want.
func (e *Engine) applyDecision(ctx context.Context, a *autoscaler, q *runningQuery, d autoscale.Decision) {
	entry := autoscaleEntry{at: time.Now(), decision: d, from: q.job.Parallelism()}
	entry.to = entry.from
	a.mu.Lock()
	off := a.off
	a.mu.Unlock()
	if d.Action == autoscale.Apply && d.Changed() {
		if n := autoscaleParallelism(&d); n != entry.from {
			switch {
			case off != "":
				entry.result = "not applied: " + off
			default:
				rep, err := e.Rescale(ctx, a.name, n)
				var re *RescaleError
				switch {
				case err == nil:
					entry.to = rep.To
					entry.result = fmt.Sprintf("rescaled %d → %d, paused %s, %s of state restored", rep.From, rep.To,
						rep.Pause.Round(time.Millisecond), dataflow.FormatBytes(rep.StateBytes))
				case errors.As(err, &re) && re.Code == RescaleNotSupported:
					entry.result = "not applied: " + err.Error()
					a.mu.Lock()
					a.off = err.Error()
					a.mu.Unlock()
				default:
					entry.result = "failed: " + err.Error()
				}
			}
		}
	}
	a.mu.Lock()
	a.log = append(a.log, entry)
	if len(a.log) > autoscaleLogSize {
		a.log = a.log[len(a.log)-autoscaleLogSize:]
	}
	a.mu.Unlock()
}

// showAutoscale lists the controllers' decisions, oldest first per query.
func (e *Engine) showAutoscale() *Result {
	cols := []Column{{Name: "query", Type: types.VarcharT}, {Name: "at", Type: types.TimestampT(3)},
		{Name: "interval", Type: types.BigIntT}, {Name: "action", Type: types.VarcharT}, {Name: "reason", Type: types.VarcharT},
		{Name: "from", Type: types.BigIntT}, {Name: "to", Type: types.BigIntT}, {Name: "result", Type: types.VarcharT},
		{Name: "decision", Type: types.VarcharT}}
	e.scale.mu.Lock()
	scalers := make([]*autoscaler, 0, len(e.scale.byName))
	for _, a := range e.scale.byName {
		scalers = append(scalers, a)
	}
	e.scale.mu.Unlock()
	var rows [][]types.Datum
	for _, o := range e.continuousObjects() {
		for _, a := range scalers {
			if a.objID != o.ID {
				continue
			}
			a.mu.Lock()
			for _, en := range a.log {
				rows = append(rows, []types.Datum{types.StringDatum(a.name), types.IntDatum(en.at.UnixMilli()),
					types.IntDatum(int64(en.decision.Interval)), types.StringDatum(en.decision.Action.String()),
					types.StringDatum(en.decision.Reason), types.IntDatum(int64(en.from)), types.IntDatum(int64(en.to)),
					types.StringDatum(en.result), types.StringDatum(en.decision.String())})
			}
			a.mu.Unlock()
		}
	}
	return rowsResult("SHOW", cols, rows)
}
