package engine

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/exec/dataflow"
	"github.com/eddysql/eddy/optimizer/physical"
)

// Observed statistics. Every continuous query counts the rows each of its
// sources reads (exec.Job.Stats). Every statsObserveInterval the engine
// samples those counts and turns the change since the previous sample into
// an input rate per stream or table, which it merges into the catalog's
// statistics (Source "observed", keeping the row count, width and column
// sketches an ANALYZE left):
//
//   - RowsPerSec is the rows a source read in the interval over its length,
//     the highest over the queries reading the object (they all read the
//     same input), smoothed with the previous figure (statsRateWeight). A
//     source that has been behind for longer than an interval is catching
//     up (a view replaying a log) or held back, and what it reads then is
//     not the input's rate, so it is left out; a generator (its traits
//     say Generated, as nexmark's do) is always behind and always counts,
//     since it produces at its rate.
//   - Rows of a stream is raised to the most rows one query has read from
//     it (every query reads a stream from its beginning). A table's reads
//     are upserts, not rows, so its count is left to ANALYZE.
//
// Bounded sources are read once to their end: their rate would be the
// speed of reading, so they are not observed (ANALYZE measures them).
// Column values are not sampled: the source path stays untouched, and
// column figures come from ANALYZE only.

// statsObserveInterval is how often rates are sampled. The figures feed
// plan choices, which care about orders of magnitude over minutes; a
// shorter interval would write the catalog more for no better plans.
const statsObserveInterval = 10 * time.Second

// statsRateWeight is the weight of a new rate sample against the stored
// rate: half, so a burst or a pause moves the figure without replacing it,
// and a lasting change takes over within a few intervals.
const statsRateWeight = 0.5

// statsRateChange is the relative change of a rate below which it is not
// rewritten, so a steady stream does not cost a catalog write per sample.
const statsRateChange = 0.05

// statsObserver samples the running queries' source counts. Its sample
// state belongs to the goroutine that calls observe.
type statsObserver struct {
	eng    *Engine
	last   map[sourceKey]sourceSample
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
}

// sourceKey is one source of one running query.
type sourceKey struct {
	job  *dataflow.Job
	node int
}

type sourceSample struct {
	rows int64
	at   time.Time
}

// objectSample is what one observation found out about one object.
type objectSample struct {
	obj  *catalog.Object
	rate float64 // rows/s; valid when hasRate
	rows int64   // the most rows one query has read
	// hasRate is set when some source of the object had a valid interval.
	hasRate bool
}

func newStatsObserver(e *Engine) *statsObserver {
	return &statsObserver{eng: e, last: map[sourceKey]sourceSample{}}
}

// startStatsObserver starts the goroutine that keeps observed statistics
// up to date; stopStatsObserver (from Close) stops it and waits for it.
func (e *Engine) startStatsObserver() {
	o := newStatsObserver(e)
	ctx, cancel := context.WithCancel(e.ctx)
	o.cancel, o.done = cancel, make(chan struct{})
	e.statsObs = o
	go func() {
		defer close(o.done)
		t := time.NewTicker(statsObserveInterval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-t.C:
				// Failures (a write refused while storage closes) lose one
				// sample; the next tick tries again.
				_ = o.observe(now)
			}
		}
	}()
}

// stopStatsObserver stops the observer goroutine, if one runs, and waits
// until it has returned. It is idempotent.
func (e *Engine) stopStatsObserver() {
	o := e.statsObs
	if o == nil || o.cancel == nil {
		return
	}
	o.once.Do(func() {
		o.cancel()
		<-o.done
	})
}

// observe takes one sample of every running query's sources at time now
// and merges the rates it can compute into the catalog. It returns the
// first error writing the catalog, after trying every object.
func (o *statsObserver) observe(now time.Time) error {
	e := o.eng
	e.mu.Lock()
	queries := make([]*runningQuery, 0, len(e.queries))
	for _, q := range e.queries {
		queries = append(queries, q)
	}
	e.mu.Unlock()

	objects := map[uint64]*objectSample{}
	seen := map[sourceKey]bool{}
	for _, q := range queries {
		if q.job == nil {
			continue
		}
		if state, _ := q.job.State(); state != dataflow.JobRunning {
			continue
		}
		sources := map[int]*physical.Source{}
		collectSources(q.plan, sources)
		for _, st := range q.job.Stats() {
			src := sources[st.NodeID]
			if !st.Source || src == nil || !observable(src.Object) {
				continue
			}
			key := sourceKey{job: q.job, node: st.NodeID}
			seen[key] = true
			prev, had := o.last[key]
			o.last[key] = sourceSample{rows: st.RowsIn, at: now}
			os := objects[src.Object.ID]
			if os == nil {
				os = &objectSample{obj: src.Object}
				objects[src.Object.ID] = os
			}
			os.rows = max(os.rows, st.RowsIn)
			// A generator (catalog.SourceTraits.Generated) is always
			// behind and always counts: it produces at its rate.
			behind := st.Lag > statsObserveInterval && !src.Object.Traits.Generated
			if !had || behind || !now.After(prev.at) || st.RowsIn < prev.rows {
				continue
			}
			rate := float64(st.RowsIn-prev.rows) / now.Sub(prev.at).Seconds()
			os.rate = max(os.rate, rate)
			os.hasRate = true
		}
	}
	for key := range o.last {
		if !seen[key] {
			delete(o.last, key) // the query ended or was dropped
		}
	}
	var first error
	for _, os := range objects {
		if err := o.record(os, now); err != nil && first == nil && !catalog.IsCode(err, catalog.ErrNotFound) {
			first = err // an object dropped meanwhile is no error
		}
	}
	return first
}

// record merges one object's sample into its statistics, writing only when
// they change enough to matter.
func (o *statsObserver) record(os *objectSample, now time.Time) error {
	cat := o.eng.cat
	old, had := cat.Stats(os.obj.Name)
	rows := old.Rows
	if os.obj.Kind == catalog.Stream {
		rows = max(rows, os.rows)
	}
	rate := old.RowsPerSec
	if os.hasRate {
		rate = os.rate
		if had && old.RowsPerSec > 0 {
			rate = statsRateWeight*os.rate + (1-statsRateWeight)*old.RowsPerSec
		}
	}
	if had && rows == old.Rows && !rateChanged(old.RowsPerSec, rate) {
		return nil
	}
	if !had && rows == 0 && rate == 0 {
		return nil
	}
	return cat.UpdateStats(os.obj.Name, os.obj.ID, func(cur catalog.Stats, _ bool) catalog.Stats {
		// cur may have changed since Stats (an ANALYZE): keep its columns
		// and width, and apply only what was observed.
		cur.RowsPerSec = rate
		if os.obj.Kind == catalog.Stream {
			cur.Rows = max(cur.Rows, os.rows)
		}
		cur.Source = catalog.StatsObserved
		cur.Updated = now
		return cur
	})
}

// rateChanged reports whether a rate moved by more than statsRateChange.
func rateChanged(old, cur float64) bool {
	if old == 0 || cur == 0 {
		return old != cur
	}
	return math.Abs(cur-old) > statsRateChange*old
}

// observable reports whether running queries' reads of obj measure its
// input: streams and tables that do not end.
func observable(obj *catalog.Object) bool {
	return (obj.Kind == catalog.Stream || obj.Kind == catalog.Table) && !obj.Traits.Bounded
}

// collectSources maps the IDs of the Source nodes of a physical plan to
// them.
func collectSources(n physical.Node, out map[int]*physical.Source) {
	if n == nil {
		return
	}
	if src, ok := n.(*physical.Source); ok {
		out[src.Hdr().ID] = src
	}
	for _, in := range n.Hdr().Inputs {
		collectSources(in, out)
	}
}
