package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/exec/dataflow"
	"github.com/eddysql/eddy/exec/join"
	"github.com/eddysql/eddy/optimizer/physical"
)

// The run-time switch of adaptive joins (adaptive_join.go). Every policy
// interval a checkpointed query with adaptive joins compares each one's
// right side, as its instances hold it, with the crossover the optimizer
// planned it by:
//
//   - a broadcast join switches to hash when its replicas together take
//     more than the broadcast budget (the optimizer's own limit), or when
//     the optimizer's costs (physical.DistributionCosts) with the rows
//     held make broadcasting cost more than twice hashing;
//   - a hash join over a left input that never retracts switches to
//     broadcast when the replicas it would keep take less than half the
//     budget and broadcasting costs less than half of hashing.
//
// The factors of two are the hysteresis: a join just switched is not near
// the threshold that switches it back. The left side's size is the larger
// of what the cost model planned with and what the join holds, so the
// comparison changes only with what the right side became. A switch moves
// the query at a checkpoint (switchJoin); the query's notices and EXPLAIN
// ANALYZE show it with its reason. A switch refused (the query cannot move)
// turns the query's switching off, with the reason in EXPLAIN ANALYZE.

// hysteresis is the factor by which a crossover must be passed.
const hysteresis = 2

// joinSwitchers are the engine's running switch controllers, by query
// name. They run with the autoscalers' context and wait group.
type joinSwitchers struct {
	mu     sync.Mutex
	byName map[string]*joinSwitcher
}

// joinSwitcher watches one query's adaptive joins.
type joinSwitcher struct {
	name  string
	objID uint64
	every time.Duration

	mu  sync.Mutex
	off string // why it no longer switches ("" while it does)
}

// startJoinSwitcher starts q's switch controller if its query has
// adaptive joins, is checkpointed, and has none running.
func (e *Engine) startJoinSwitcher(q *runningQuery) {
	obj := q.obj
	if q.state == nil || len(physical.AdaptiveJoins(q.plan)) == 0 {
		return
	}
	policy, _ := e.rateIntervals(obj)
	sc := &e.scale
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.ctx == nil || sc.ctx.Err() != nil {
		return // the engine is closing
	}
	js := &e.switchers
	js.mu.Lock()
	defer js.mu.Unlock()
	if js.byName == nil {
		js.byName = map[string]*joinSwitcher{}
	}
	if s := js.byName[lower(obj.Name)]; s != nil && s.objID == obj.ID {
		return // running (a move restarted the query's job)
	}
	s := &joinSwitcher{name: obj.Name, objID: obj.ID, every: policy}
	js.byName[lower(obj.Name)] = s
	sc.wg.Add(1)
	go e.runJoinSwitcher(s)
}

// switcherOff returns why the switching of the query named name stopped,
// or "".
func (e *Engine) switcherOff(name string) string {
	e.switchers.mu.Lock()
	s := e.switchers.byName[lower(name)]
	e.switchers.mu.Unlock()
	if s == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.off
}

// runJoinSwitcher checks s's query every interval until it is dropped or
// the engine closes.
func (e *Engine) runJoinSwitcher(s *joinSwitcher) {
	defer e.scale.wg.Done()
	ctx := e.scale.ctx
	gone := func() {
		e.switchers.mu.Lock()
		if e.switchers.byName[lower(s.name)] == s {
			delete(e.switchers.byName, lower(s.name))
		}
		e.switchers.mu.Unlock()
	}
	e.everyInterval(ctx, s.every, s.name, s.objID, gone, func(q *runningQuery) {
		s.mu.Lock()
		off := s.off
		s.mu.Unlock()
		if state, _ := q.job.State(); off != "" || state != dataflow.JobRunning {
			return
		}
		j, broadcast, why := crossover(q)
		if j == nil {
			return
		}
		err := e.switchJoin(ctx, q, j, broadcast, why)
		var re *RescaleError
		if errors.As(err, &re) && re.Code == RescaleNotSupported {
			s.mu.Lock()
			s.off = err.Error()
			s.mu.Unlock()
			e.notices.add(fmt.Sprintf("%s %s keeps its joins' distributions: %v", q.obj.Kind, q.obj.Name, err))
		}
	})
}

// crossover returns the first adaptive join of q whose right side crossed
// over, the distribution it switches to, and why; nil when none did.
func crossover(q *runningQuery) (*physical.HashJoin, bool, string) {
	stats := q.job.Stats()
	for _, j := range physical.AdaptiveJoins(q.plan) {
		var os *dataflow.OpStats
		for k := range stats {
			if stats[k].NodeID == j.ID {
				os = &stats[k]
			}
		}
		if os == nil {
			continue
		}
		var rows, bytes int64
		for _, c := range os.Counts {
			switch c.Name {
			case join.RightRowsCounter:
				rows = c.Value
			case join.RightBytesCounter:
				bytes = c.Value
			}
		}
		p := max(j.Parallelism, 1)
		left := max(float64(os.StateKeys-rows), j.LeftRows)
		if j.Broadcasts() {
			// The counters sum the replicas.
			unique := float64(rows) / float64(p)
			hash, bcast := physical.DistributionCosts(left, unique, p)
			switch {
			case float64(bytes) > j.Budget:
				return j, false, fmt.Sprintf("right side %d rows × %d replicas ≈ %s > broadcast budget %s",
					int64(unique), p, dataflow.FormatBytes(bytes), dataflow.FormatBytes(int64(j.Budget)))
			case bcast > hysteresis*hash:
				return j, false, fmt.Sprintf("with the right side at %d rows, broadcasting costs %s, more than twice hashing's %s",
					int64(unique), physical.Human(bcast), physical.Human(hash))
			}
			continue
		}
		if !j.LeftAppendOnly {
			continue // its left rows could not move to broadcast replicas
		}
		replicas := bytes * int64(p)
		hash, bcast := physical.DistributionCosts(left, float64(rows), p)
		if hysteresis*float64(replicas) < j.Budget && hysteresis*bcast < hash {
			return j, true, fmt.Sprintf("right side %d rows × %d replicas ≈ %s < half the broadcast budget %s",
				rows, p, dataflow.FormatBytes(replicas), dataflow.FormatBytes(int64(j.Budget)))
		}
	}
	return nil, false, ""
}

// switchJoin switches the adaptive join j of q's query to broadcast or
// hash partitioning: it plans the query with the switch, moves it at a
// checkpoint, and stores the switch with the query. It leaves a notice
// saying what switched, where and why; a refusal is a *RescaleError.
func (e *Engine) switchJoin(ctx context.Context, q *runningQuery, j *physical.HashJoin, broadcast bool, why string) error {
	e.moves.Lock()
	defer e.moves.Unlock()
	if err := e.ctx.Err(); err != nil {
		return err
	}
	e.recovery.run.Lock()
	defer e.recovery.run.Unlock()
	obj, cur, rebuild, err := e.movable(q.obj.Name)
	if err != nil {
		return err
	}
	if cur != q {
		return nil // it moved or restarted meanwhile: the next check sees the new job
	}
	from, to := distName(j), distHash
	if broadcast {
		to = distBroadcast
	}
	rep := RescaleReport{Kind: obj.Kind, Name: obj.Name, Switch: fmt.Sprintf("switching %s of %s %s to %s", joinName(j), obj.Kind, obj.Name, to)}
	if rebuild != "" {
		return &RescaleError{Code: RescaleNotSupported, Name: obj.Name, Msg: rep.Switch + ": " + rebuild}
	}
	ps, interval := e.storedSettings(obj)
	rep.From, rep.To = ps.parallelism, ps.parallelism
	sw := catalog.JoinSwitch{Join: j.Ordinal, Distribution: to, Why: fmt.Sprintf("switched %s → %s at run time: %s", from, to, why)}
	ps.joinSwitches = withSwitch(ps.joinSwitches, sw)
	cq, err := e.replan(obj, ps)
	if err != nil {
		return fmt.Errorf("%s: planning it: %w", rep.Switch, err)
	}
	moved, err := e.moveAtCheckpoint(obj, q, cq, interval, &rep)
	if err != nil {
		return err
	}
	sw.Why = fmt.Sprintf("switched %s → %s at checkpoint %d: %s", from, to, rep.Epoch, why)
	st := catalog.QuerySettings{}
	if obj.Settings != nil {
		st = *obj.Settings
	}
	st.JoinSwitches = withSwitch(st.JoinSwitches, sw)
	now, err := e.cat.SetSettings(obj.Name, st)
	if err != nil {
		e.notices.add(fmt.Sprintf("%s %s runs with its %s switched to %s, but storing it failed (a restart plans it as before): %v",
			obj.Kind, obj.Name, joinName(j), to, err))
		now = obj
	}
	moved.obj = now
	e.register(moved)
	e.notices.add(fmt.Sprintf("%s %s: %s %s: processing paused %s, %s of state restored",
		obj.Kind, obj.Name, joinName(j), sw.Why, rep.Pause.Round(10*time.Microsecond), dataflow.FormatBytes(rep.StateBytes)))
	return nil
}

// joinSwitchLines are EXPLAIN ANALYZE's lines on q's adaptive joins: the
// switches stored with the query, oldest first, and why switching
// stopped, if it did.
func (e *Engine) joinSwitchLines(q *runningQuery) []string {
	var lines []string
	if st := q.obj.Settings; st != nil {
		for _, sw := range st.JoinSwitches {
			name := fmt.Sprintf("join %d", sw.Join)
			for _, j := range physical.AdaptiveJoins(q.plan) {
				if j.Ordinal == sw.Join {
					name = joinName(j)
				}
			}
			lines = append(lines, fmt.Sprintf("%s: %s", name, sw.Why))
		}
	}
	if off := e.switcherOff(q.obj.Name); off != "" {
		lines = append(lines, "adaptive joins stopped switching: "+off)
	}
	return lines
}
