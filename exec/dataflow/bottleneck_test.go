package dataflow

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// costly is a test operator whose cost per row is set: it sleeps perRow
// for each row of a chunk, then passes the chunk on, or, when bit is not
// negative, the rows whose value of x has that bit clear (about half).
// Sleeping makes the busy time the runtime measures the cost set, on a
// machine loaded or not: a sleeping operator does not compete for a CPU.
// A sleep overshoots (by up to a millisecond on a busy machine), which
// would weigh on an operator of many small chunks, so the operator keeps
// what it owes: an overshoot shortens the next sleeps.
type costly struct {
	nopOp
	perRow time.Duration
	bit    int
	alloc  memory.Allocator
	owed   time.Duration
}

func (c *costly) Open(_ context.Context, env *exec.Env) error { c.alloc = env.Alloc; return nil }

func (c *costly) Process(ctx context.Context, _ int, ch exec.Chunk, out exec.Emitter) error {
	c.owed += time.Duration(ch.NumRows()) * c.perRow
	if c.owed > 0 {
		start := time.Now()
		time.Sleep(c.owed)
		c.owed -= time.Since(start)
	}
	if c.bit < 0 {
		return out.Emit(ctx, ch)
	}
	xs := ch.Batch.Column(0).(*array.Int64)
	var sel []int32
	for i := range xs.Len() {
		if xs.Value(i)>>c.bit&1 == 0 {
			sel = append(sel, int32(i))
		}
	}
	part, err := exec.TakeRows(c.alloc, ch, sel)
	if err != nil {
		return err
	}
	defer part.Batch.Release()
	return out.Emit(ctx, part)
}

// pipeline is a random dataflow of costly operators, one of them slowed.
type pipeline struct {
	g      GraphSpec
	slowed string // the slowed operator's name
	desc   strings.Builder
}

// The random pipelines' sizes: pipeBatches batches of pipeBatchRows rows
// each, and the cost per row of an operator running as one instance on
// every row (pipeCost), so that an operator takes about 2 ms of sleep per
// batch and the slowed one 6 ms: long enough for the sleep's overshoot to
// stay small, few enough for 20 pipelines to run in seconds.
const (
	pipeBatches   = 96
	pipeBatchRows = 64
	pipeCost      = 8 * time.Microsecond
)

// randomPipeline builds a pipeline of 1 to 4 stages: a source stage of 1
// or 2 instances with up to 2 chained operators, then stages of 1 to 3
// instances with 1 to 3 operators each behind forward, hash or
// round-robin exchanges, the last of one instance. Some operators keep
// half their rows (at most two). Every operator's cost per row is set so
// that each of its instances would be busy as long as every other
// operator's — its parallelism times pipeCost, over the share of the
// rows that reaches it — except the slowed one, 3 times as long.
func randomPipeline(t *testing.T, rng *rand.Rand, alloc memory.Allocator) *pipeline {
	p := &pipeline{}
	type opDef struct {
		stage, par, bit int
		frac            float64 // the share of the source's rows reaching it
	}
	var ops []opDef
	nStages := 1 + rng.IntN(4)
	pars := make([]int, nStages)
	frac, filters := 1.0, 0
	for s := range nStages {
		pars[s] = 1 + rng.IntN(3)
		n := 1 + rng.IntN(3)
		if s == 0 {
			pars[s] = 1 + rng.IntN(2)
			n = rng.IntN(3)
		}
		if s == nStages-1 {
			pars[s] = 1
		}
		for range n {
			bit := -1
			if filters < 2 && rng.IntN(4) == 0 {
				bit = filters
				filters++
			}
			ops = append(ops, opDef{stage: s, par: pars[s], bit: bit, frac: frac})
			if bit >= 0 {
				frac /= 2
			}
		}
	}
	if len(ops) < 2 {
		return nil
	}
	slowed := rng.IntN(len(ops))
	// The source instances share the batches of x = 0, 1, 2, ...
	var batches []arrow.RecordBatch
	for b := range pipeBatches {
		batches = append(batches, intBatch(alloc, b*pipeBatchRows, (b+1)*pipeBatchRows))
	}
	t.Cleanup(func() {
		for _, b := range batches {
			b.Release()
		}
	})
	for s := range nStages {
		st := StageSpec{Parallelism: pars[s]}
		if s == 0 {
			st.SourceName = "source"
			st.Source = func(inst int) (exec.Source, error) {
				r := &exectest.Replay{}
				for b := inst; b < len(batches); b += pars[0] {
					r.Batches = append(r.Batches, batches[b])
				}
				return r, nil
			}
			fmt.Fprintf(&p.desc, "source×%d", pars[0])
		} else {
			dist := []Distribution{DistHash, DistRoundRobin}[rng.IntN(2)]
			switch {
			case s == nStages-1:
				dist = DistSingle
			case pars[s] == pars[s-1] && rng.IntN(3) == 0:
				dist = DistForward
			}
			st.Inputs = []InputSpec{{From: s - 1, Dist: dist, Keys: []int{0}}}
			fmt.Fprintf(&p.desc, " =%s=> ×%d", dist, pars[s])
		}
		for k, o := range ops {
			if o.stage != s {
				continue
			}
			name := fmt.Sprintf("op%d", k)
			perRow := time.Duration(float64(pipeCost) * float64(o.par) / o.frac)
			if k == slowed {
				perRow *= 3
				name += "(slowed)"
			}
			if o.bit >= 0 {
				name += "(keeps half)"
			}
			if k == slowed {
				p.slowed = name
			}
			st.Ops = append(st.Ops, OpSpec{Name: name, New: func(int) (exec.Operator, error) {
				return &costly{perRow: perRow, bit: o.bit}, nil
			}})
			fmt.Fprintf(&p.desc, " %s", name)
		}
		if s == nStages-1 {
			st.Ops = append(st.Ops, OpSpec{Name: "sink", New: func(int) (exec.Operator, error) { return &exectest.Counter{}, nil }})
		}
		p.g.Stages = append(p.g.Stages, st)
	}
	return p
}

// TestBottleneckNamedOnRandomPipelines is issue 12's acceptance test: on
// 20 random pipelines with one operator slowed 3 times, the diagnosis of
// the run names the slowed operator the bottleneck every time.
func TestBottleneckNamedOnRandomPipelines(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 20 pipelines")
	}
	alloc := exectest.Alloc(t)
	rng := rand.New(rand.NewPCG(12, 1))
	named, margin := 0, math.Inf(1)
	for i := 0; i < 20; {
		p := randomPipeline(t, rng, alloc)
		if p == nil {
			continue // fewer than two operators: nothing to tell apart
		}
		i++
		job := runJob(t, p.g, JobOptions{Alloc: alloc})
		iv := Delta(Sample{}, job.Sample())
		iv.Shape = job.Shape()
		d := Diagnose(iv)
		var got string
		if d.Bottleneck >= 0 {
			got = iv.Ops[d.Bottleneck].Total.Name
		}
		if got == p.slowed {
			named++
			next := 0.0
			for k, o := range iv.Ops {
				if k != d.Bottleneck {
					next = max(next, o.Utilization())
				}
			}
			margin = min(margin, iv.Ops[d.Bottleneck].Utilization()/next)
			if testing.Verbose() {
				var util []string
				for _, o := range iv.Ops {
					util = append(util, fmt.Sprintf("%s %.2f", o.Total.Name, o.Utilization()))
				}
				t.Logf("pipeline %d (%s): named, %.2f times as utilized as the next; utilization %s; backpressured stages %v",
					i, p.desc.String(), iv.Ops[d.Bottleneck].Utilization()/next, strings.Join(util, ", "), d.Backpressured)
			}
			continue
		}
		var util []string
		for _, o := range iv.Ops {
			util = append(util, fmt.Sprintf("%s %.2f (bp %v)", o.Total.Name, o.Utilization(), o.Total.Backpressure))
		}
		t.Errorf("pipeline %d (%s): bottleneck %q, want %q; utilization: %s; backpressured stages %v",
			i, p.desc.String(), got, p.slowed, strings.Join(util, ", "), d.Backpressured)
	}
	t.Logf("the bottleneck was named %d/20; its utilization was at least %.1f times the next operator's", named, margin)
}
