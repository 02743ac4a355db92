package dataflow

import (
	"context"
	"sync"
	"time"
)

// sampler keeps a job's last policy interval. One goroutine per job
// (sampleLoop) reads the operators' counters every PolicyInterval — the
// atomic counters the runtime keeps anyway, so the data path does no work
// for it — and, with a LatencyInterval, asks the sources for latency
// markers. It stops when the job's tasks have returned or the job is
// stopped.
type sampler struct {
	every time.Duration // the policy interval (0: the job does not sample)
	shape Shape

	mu   sync.Mutex
	last Interval
	seq  uint64
}

// startSampler starts the job's sampler when opts has a PolicyInterval.
// The tasks must exist (the shape is theirs), and, for latency markers,
// not have started: their markers flag is set here.
func (j *Job) startSampler(ctx context.Context, opts JobOptions) {
	if opts.PolicyInterval <= 0 {
		return
	}
	j.rates.every = opts.PolicyInterval
	j.rates.shape = j.Shape()
	var markers time.Duration
	if opts.LatencyInterval > 0 {
		markers = opts.LatencyInterval
		for _, sr := range j.stages {
			for _, t := range sr.tasks {
				t.markers = t.source != nil
			}
		}
	}
	j.coord.Add(1)
	go j.sampleLoop(ctx, opts.PolicyInterval, markers)
}

// sampleLoop samples the job every interval and asks for a round of
// latency markers every markers (0: never), until the tasks have
// returned or ctx is done.
func (j *Job) sampleLoop(ctx context.Context, every, markers time.Duration) {
	defer j.coord.Done()
	tick := time.NewTicker(every)
	defer tick.Stop()
	var latency <-chan time.Time
	if markers > 0 {
		lt := time.NewTicker(markers)
		defer lt.Stop()
		latency = lt.C
	}
	var prev Sample // the job's start
	var round uint64
	for {
		select {
		case <-ctx.Done():
			return
		case <-j.tasksDone:
			return
		case <-tick.C:
			cur := j.Sample()
			j.rates.add(Delta(prev, cur), j.lat.take())
			prev = cur
		case <-latency:
			round++
			ask := &latencyAsk{round: round, at: time.Now().UnixNano()}
			for _, sr := range j.stages {
				for _, t := range sr.tasks {
					if t.source != nil {
						t.requestLatency(ask)
					}
				}
			}
		}
	}
}

// add makes iv, with the latencies of its markers, the last interval.
func (s *sampler) add(iv Interval, latencies []time.Duration) {
	iv.Shape = s.shape
	iv.Latency = LatencyOf(latencies)
	s.mu.Lock()
	s.seq++
	iv.Seq = s.seq
	s.last = iv
	s.mu.Unlock()
}

// LastInterval returns the figures of the job's last complete policy
// interval, and false before the first one ends or when the job does not
// sample (JobOptions.PolicyInterval). Intervals are numbered (Seq), so a
// caller polling it can tell a new one. It may be called while the job
// runs; the interval is the caller's.
func (j *Job) LastInterval() (Interval, bool) {
	j.rates.mu.Lock()
	defer j.rates.mu.Unlock()
	return j.rates.last, j.rates.seq > 0
}

// PolicyInterval returns how often the job samples its counters (0:
// never).
func (j *Job) PolicyInterval() time.Duration { return j.rates.every }
