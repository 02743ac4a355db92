package dataflow

import (
	"slices"
	"time"
)

// Diagnosis says what limited a job over an interval: the operator whose
// speed bounds the job's throughput, the instances slower than their
// peers, and the exchanges sending an instance more than its share.
type Diagnosis struct {
	// Bottleneck is the index in Interval.Ops of the operator limiting
	// the job's throughput, -1 when no operator was busy (an idle job).
	Bottleneck int
	// Capacity is the rows per second the bottleneck could take, spread
	// over its instances as in the interval (OpInterval.Capacity).
	Capacity float64
	// Backpressured says, per stage, whether its instances were blocked
	// on output for at least backpressuredShare of the interval.
	Backpressured []bool
	// Stragglers are the instances much busier than their peers.
	Stragglers []Straggler
	// Skews are the instances of hash-partitioned operators receiving
	// much more than their share of the rows.
	Skews []Skew
}

// Straggler is an instance busy at least stragglerFactor times as long as
// the median instance of its operator.
type Straggler struct {
	Op, Instance int // Op indexes Interval.Ops
	Busy, Median time.Duration
}

// Skew is an instance of an operator behind a hash exchange that received
// at least skewFactor times the median instance's rows.
type Skew struct {
	Op, Instance int // Op indexes Interval.Ops
	Rows         int64
	Median       float64
	// Share is the instance's share of the operator's rows, from 0 to 1.
	Share float64
}

// backpressuredShare is the share of an interval a stage's instances must
// on average spend blocked on output for the stage to count as
// backpressured. A consumer that keeps up seldom lets its inbox fill (64
// messages and a share of the job's buffer), so a tenth of the interval
// blocked means the consumer is behind; less is a burst.
const backpressuredShare = 0.1

// busyOnPath is how busy, relative to the job's busiest operator, the
// busiest operator of a stage on the backpressure path must be to be the
// bottleneck. A stage that is not backpressured but barely busy while its
// producers are held back waits for something else (another input, the
// alignment of a barrier) rather than limiting them, and the busiest
// operator of the job is the better answer.
const busyOnPath = 0.5

// minUtilization is the utilization below which no operator limits the
// job: a job that busy is idle, and its busiest operator is noise.
const minUtilization = 0.01

// stragglerFactor and skewFactor are how many times the median instance's
// busy time or rows an instance must reach to be a straggler or skewed.
const (
	stragglerFactor = 1.5
	skewFactor      = 1.5
)

// minStragglerShare is the share of the interval a straggler must be
// busy: an instance busy for less limits nothing, and its excess over its
// peers is scheduling noise (a preemption, a garbage collection).
const minStragglerShare = 0.05

// minSkewRows is the rows an operator must receive in an interval for its
// spread to tell: with 1,000 rows spread evenly by hash over 8 instances
// an instance's count deviates by about 10 rows, so reaching 1.5 times
// the median (some 60 more) is no accident; with a few dozen rows it can
// be.
const minSkewRows = 1000

// Diagnose finds what limited the job over iv.
//
// The bottleneck is found on the backpressure path. A stage is
// backpressured when its instances spent on average at least a tenth of
// the interval blocked on output: its consumer was behind. Following the
// consumers of each backpressured stage downstream, the first stage that
// is not backpressured is one that held its producers back; the busiest
// operator of those stages (by utilization, the busy share of its busiest
// instance) is the bottleneck — provided it is busy, at least half as
// utilized as the job's busiest operator. Without backpressure (no
// operator saturated, or the slowest runs in the source's own stage) or
// without a busy operator on the path, the bottleneck is the job's most
// utilized operator: as the input rate rises, every operator's load rises
// in proportion, and the one busiest now saturates first. A job whose
// busiest operator was busy less than 1% of the interval has none.
func Diagnose(iv Interval) Diagnosis {
	d := Diagnosis{Bottleneck: -1}
	util := make([]float64, len(iv.Ops))
	best := -1
	for k, o := range iv.Ops {
		util[k] = o.Utilization()
		if best < 0 || util[k] > util[best] {
			best = k
		}
		d.Stragglers = append(d.Stragglers, stragglers(k, o)...)
	}
	sh := iv.Shape
	if len(sh.Ops) == len(iv.Ops) {
		d.Backpressured = backpressured(iv, sh)
		for k, o := range iv.Ops {
			if p := sh.Ops[k]; p.Chain == 0 && sh.Stages[p.Stage].Hashed {
				d.Skews = append(d.Skews, skews(k, o)...)
			}
		}
	}
	if best < 0 || util[best] < minUtilization {
		return d
	}
	d.Bottleneck = best
	if onPath := pathStages(sh, d.Backpressured); onPath != nil {
		cand := -1
		for k, p := range sh.Ops {
			if onPath[p.Stage] && (cand < 0 || util[k] > util[cand]) {
				cand = k
			}
		}
		if cand >= 0 && util[cand] >= busyOnPath*util[best] {
			d.Bottleneck = cand
		}
	}
	d.Capacity = iv.Ops[d.Bottleneck].Capacity()
	return d
}

// backpressured returns, per stage, whether its instances were blocked on
// output for at least backpressuredShare of the interval on average. The
// operators of a stage share their task's backpressure, so the stage's
// first operator (or source) tells.
func backpressured(iv Interval, sh Shape) []bool {
	bp := make([]bool, len(sh.Stages))
	seen := make([]bool, len(sh.Stages))
	for k, p := range sh.Ops {
		if seen[p.Stage] {
			continue
		}
		seen[p.Stage] = true
		share, n := 0.0, 0
		for _, s := range iv.Ops[k].Instances {
			if s.Wall > 0 {
				share += float64(s.Backpressure) / float64(s.Wall)
				n++
			}
		}
		bp[p.Stage] = n > 0 && share/float64(n) >= backpressuredShare
	}
	return bp
}

// pathStages returns the stages that hold a backpressured stage back: for
// each backpressured stage, the first stage downstream of it that is not
// backpressured. It returns nil when no stage is backpressured.
func pathStages(sh Shape, bp []bool) []bool {
	var on []bool
	for s, b := range bp {
		if !b {
			continue
		}
		c := sh.Stages[s].Consumer
		for c >= 0 && bp[c] {
			c = sh.Stages[c].Consumer
		}
		if c < 0 {
			continue
		}
		if on == nil {
			on = make([]bool, len(sh.Stages))
		}
		on[c] = true
	}
	return on
}

// stragglers returns the instances of operator k busy at least
// stragglerFactor times its median instance's busy time, and at least
// minStragglerShare of the interval; none for an operator of one
// instance.
func stragglers(k int, o OpInterval) []Straggler {
	if len(o.Instances) < 2 {
		return nil
	}
	busy := make([]float64, len(o.Instances))
	for i, s := range o.Instances {
		busy[i] = float64(s.Busy)
	}
	med := median(busy)
	var out []Straggler
	for i, s := range o.Instances {
		if s.Wall > 0 && busy[i] >= stragglerFactor*med && busy[i] >= minStragglerShare*float64(s.Wall) {
			out = append(out, Straggler{Op: k, Instance: i, Busy: s.Busy, Median: time.Duration(med)})
		}
	}
	return out
}

// skews returns the instances of operator k, the first behind a hash
// exchange, that received at least skewFactor times the median instance's
// rows, when the operator received at least minSkewRows.
func skews(k int, o OpInterval) []Skew {
	if len(o.Instances) < 2 || o.Total.RowsIn < minSkewRows {
		return nil
	}
	rows := make([]float64, len(o.Instances))
	for i, s := range o.Instances {
		rows[i] = float64(s.RowsIn)
	}
	med := median(rows)
	var out []Skew
	for i, s := range o.Instances {
		if rows[i] > 0 && rows[i] >= skewFactor*med {
			out = append(out, Skew{Op: k, Instance: i, Rows: s.RowsIn, Median: med,
				Share: rows[i] / float64(o.Total.RowsIn)})
		}
	}
	return out
}

// median returns the median of xs (the mean of the middle two for an
// even count), sorting a copy.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
