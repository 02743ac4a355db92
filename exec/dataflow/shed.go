package dataflow

import (
	"context"
	"math"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/exec"
)

// Load shedding (Aurora's, Tatbul et al., VLDB 2003): when a query's input
// outruns what it can process, rows are dropped as early as possible — at
// its sources, before anything is spent on them — with a probability that
// makes the load fit the capacity, and every dropped row is counted. A
// query that sheds trades accuracy for latency; the trade shows in its
// figures (OpStats.ShedRows, Job.DropFraction).

// ShedSpec makes a job shed load to keep its latency under MaxLatency.
type ShedSpec struct {
	// MaxLatency is the latency to keep under: how long the oldest input
	// a source has not read may wait.
	MaxLatency time.Duration
	// Every is how often the load is evaluated and the drop fraction set
	// (0: a fifth of MaxLatency, at least 50ms and at most a second).
	Every time.Duration
	// Headroom is the share of the capacity kept free when the drop
	// fraction is set (0: 5%), so that queues drain.
	Headroom float64
	// Seed seeds the sources' choice of rows to drop (0: a fixed seed).
	Seed uint64
	// Window, if set, drops whole windows instead of rows at random
	// (shed_window.go).
	Window *WindowShed
}

// period returns the evaluation period.
func (s ShedSpec) period() time.Duration {
	if s.Every > 0 {
		return s.Every
	}
	return min(max(s.MaxLatency/5, 50*time.Millisecond), time.Second)
}

// headroom returns the headroom.
func (s ShedSpec) headroom() float64 {
	if s.Headroom > 0 && s.Headroom < 1 {
		return s.Headroom
	}
	return 0.05
}

// maxDrop bounds the drop fraction: some rows always pass, so the
// capacity stays measurable.
const maxDrop = 0.99

// shedder drops rows at one source instance with the job's current drop
// fraction.
type shedder struct {
	drop *atomic.Uint64 // the job's drop fraction, as math.Float64bits
	p    float64        // the drop fraction the last chunk was shed with
	rng  uint64         // xorshift64* state
	sel  []int32
}

func newShedder(drop *atomic.Uint64, seed uint64, instance int) *shedder {
	s := seed ^ (uint64(instance)+1)*0x9e3779b97f4a7c15
	if s == 0 {
		s = 1
	}
	return &shedder{drop: drop, rng: s}
}

// next returns a uniform number in [0, 1).
func (s *shedder) next() float64 {
	x := s.rng
	x ^= x >> 12
	x ^= x << 25
	x ^= x >> 27
	s.rng = x
	return float64((x*0x2545f4914f6cdd1d)>>11) / (1 << 53)
}

// apply returns the rows of c that are kept, counting the others as shed
// in m: c itself when all are, else a new chunk (c is not released).
func (s *shedder) apply(c exec.Chunk, m *exec.OperatorMetrics, alloc memory.Allocator) (exec.Chunk, error) {
	p := math.Float64frombits(s.drop.Load())
	s.p = p
	n := c.NumRows()
	if p <= 0 || n == 0 {
		return c, nil
	}
	s.sel = s.sel[:0]
	for i := 0; i < n; i++ {
		if s.next() >= p {
			s.sel = append(s.sel, int32(i))
		}
	}
	if len(s.sel) == n {
		return c, nil
	}
	m.ShedRows.Add(int64(n - len(s.sel)))
	return exec.TakeRows(alloc, c, s.sel)
}

// shedControl sets a job's drop fraction every period from the job's
// figures (Aurora's load versus capacity, with headroom): the offered load
// (rows the sources read, plus the growth of what waits unread), the
// capacity (the rows per second of its sources the slowest operator could
// take, from its rows per busy second) and the latency (how long the
// sources' oldest unread input has waited, plus the rows queued between
// stages over the rate their stage can take them).
type shedControl struct {
	spec ShedSpec
	drop atomic.Uint64 // float64 bits

	// history are the figures of the last capacityWindow+1 evaluations,
	// oldest first: rates are measured over the window, as operators
	// count their rows in when a batch starts and their busy time when it
	// ends, and one period may see a long batch's rows and the next its
	// time.
	history  []shedSample
	capacity float64 // source rows per second the job can take; 0 before known
	latency  atomic.Int64
	windows  *windowFates // when the job sheds whole windows
}

// capacityWindow is how many evaluation periods the rates are measured
// over.
const capacityWindow = 4

// shedSample is a job's cumulative figures at one time.
type shedSample struct {
	at            time.Time
	read, dropped int64 // rows the sources read, and of them dropped (shed or late)
	backlog       int64 // rows waiting unread at the sources
	lag           time.Duration
	ops           []opSample // every operator of every stage, in order
	stageIn       []int64    // rows into each stage's first operator (0 for sources)
	stageOut      []int64    // rows out of each stage's last operator (or its source)
}

// opSample is one operator's figures, over its instances.
type opSample struct {
	stage   int
	in      int64
	busy    []int64 // per instance, ns
	firstOp bool    // the first operator of a stage with inputs
}

// sample reads j's figures.
func (j *Job) shedSample() shedSample {
	s := shedSample{at: time.Now(), stageIn: make([]int64, len(j.stages)), stageOut: make([]int64, len(j.stages))}
	for si, sr := range j.stages {
		nops := len(sr.spec.Ops)
		first := len(s.ops)
		for k := range nops {
			s.ops = append(s.ops, opSample{stage: si, busy: make([]int64, len(sr.tasks)), firstOp: k == 0 && sr.spec.Source == nil})
		}
		for ti, t := range sr.tasks {
			if sr.spec.Source != nil {
				m := t.env.Metrics
				s.read += m.RowsIn.Load()
				s.dropped += m.ShedRows.Load() + m.LateRows.Load()
				s.backlog += m.EstimateBacklog()
				if since := t.behindSince.Load(); since != 0 {
					s.lag = max(s.lag, time.Since(time.Unix(0, since)))
				}
				if nops == 0 {
					s.stageOut[si] += m.RowsOut.Load()
				}
			}
			for k := range min(nops, len(t.metrics)) {
				m := t.metrics[k]
				o := &s.ops[first+k]
				o.in += m.RowsIn.Load()
				o.busy[ti] = m.BusyNanos.Load()
				if k == 0 {
					s.stageIn[si] += m.RowsIn.Load()
				}
				if k == nops-1 {
					s.stageOut[si] += m.RowsOut.Load()
				}
			}
		}
	}
	return s
}

// DropFraction returns the share of its sources' rows the job drops now
// (0 when it does not shed).
func (j *Job) DropFraction() float64 {
	if j.shed == nil {
		return 0
	}
	return math.Float64frombits(j.shed.drop.Load())
}

// ShedLatency returns the job's latency as its load shedding estimated it
// last (0 when it does not shed).
func (j *Job) ShedLatency() time.Duration {
	if j.shed == nil {
		return 0
	}
	return time.Duration(j.shed.latency.Load())
}

// runShedControl evaluates j's load every period until ctx ends.
func (j *Job) runShedControl(ctx context.Context) {
	defer j.coord.Done()
	c := j.shed
	tick := time.NewTicker(c.spec.period())
	defer tick.Stop()
	c.history = []shedSample{j.shedSample()}
	for {
		select {
		case <-ctx.Done():
			return
		case <-j.tasksDone:
			return
		case <-tick.C:
		}
		cur := j.shedSample()
		p := c.decide(j, c.history[0], cur)
		c.drop.Store(math.Float64bits(p))
		if c.windows != nil {
			c.windows.publish(p)
		}
		c.history = append(c.history, cur)
		if len(c.history) > capacityWindow {
			c.history = c.history[1:]
		}
	}
}

// decide returns the drop fraction for the next period from the figures
// at the start (a) and end (b) of the window of the last periods.
func (c *shedControl) decide(j *Job, a, b shedSample) float64 {
	p := math.Float64frombits(c.drop.Load())
	dt := b.at.Sub(a.at).Seconds()
	if dt <= 0 || len(a.ops) != len(b.ops) {
		return p
	}
	read := float64(b.read-a.read) / dt
	kept := float64((b.read-b.dropped)-(a.read-a.dropped)) / dt
	load := max(read+float64(b.backlog-a.backlog)/dt, 0)
	// Each operator's capacity in its own input rows (its busiest
	// instance saturates first), in source rows through the rows it got
	// per row kept, and the job's is the smallest.
	capNow := math.Inf(1)
	opCap := make([]float64, len(b.ops))
	for i := range b.ops {
		in := float64(b.ops[i].in-a.ops[i].in) / dt
		util := 0.0
		for k := range b.ops[i].busy {
			util = max(util, float64(b.ops[i].busy[k]-a.ops[i].busy[k])/1e9/dt)
		}
		if util < 0.05 || in <= 0 {
			continue
		}
		opCap[i] = in / min(util, 1)
		if kept > 0 {
			capNow = min(capNow, opCap[i]*kept/in)
		}
	}
	if !math.IsInf(capNow, 1) {
		c.capacity = capNow
	}
	// The latency: the sources' wait, and every stage's queue over the
	// rate its first operator can take it.
	latency := b.lag.Seconds()
	for i, o := range b.ops {
		if !o.firstOp || opCap[i] <= 0 {
			continue
		}
		queued := float64(-b.stageIn[o.stage])
		for _, in := range j.stages[o.stage].spec.Inputs {
			n := float64(b.stageOut[in.From])
			if in.Dist == DistBroadcast {
				n *= float64(len(j.stages[o.stage].tasks))
			}
			queued += n
		}
		latency += max(queued, 0) / opCap[i]
	}
	c.latency.Store(int64(latency * 1e9))
	if c.capacity == 0 || load <= 0 {
		return p
	}
	// Take in the capacity less the headroom, and less what drains the
	// work queued beyond a quarter of the target within two periods; when
	// late, or on the way, read what waits unread as it comes.
	maxLat, period := c.spec.MaxLatency.Seconds(), c.spec.period().Seconds()
	excess := max(latency-maxLat/4, 0)
	target := c.capacity * max(1-c.spec.headroom()-excess/(2*period), 1-maxDrop)
	if latency > maxLat/2 {
		load += float64(b.backlog) / period
	}
	want := min(max(1-target/load, 0), maxDrop)
	return want
}
