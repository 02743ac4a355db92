package dataflow

import (
	"context"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/eddysql/eddy/exec"
)

// Latency markers measure how long rows take from the sources to the
// sink. When a job has a LatencyInterval, its sampler asks every source
// task for marker round r every interval (requestLatency), stamped with
// the time it asked (Control.Emitted): the time the round is emitted. A
// source task sends it between chunks, after the rows it emitted before;
// one that is behind sends only the latest round asked for. Markers
// travel the channels the rows do, so they never overtake a row, and are
// aligned like flush markers: a task releases round r once every live
// sender has sent it or a later round, without holding any sender's rows
// back. Operators never see them: the chain is skipped and the marker
// goes on to every consumer instance. When round r reaches the sink,
// every row any source emitted before the round's time has reached it
// too (each source sent its marker after it was asked, so after those
// rows), and the sink records the time since. That includes the time a
// source took to get to the marker — blocked on a full inbox, or reading
// — which rows arriving then wait too. Rows an operator keeps (a window
// awaiting its watermark) are not waited for: the latency is the
// dataflow's, not a window's. With no LatencyInterval no source task
// looks for a marker or sends one (task.markers is false).

// latencyAsk is a round of latency markers asked of the source tasks: the
// same value for all of them.
type latencyAsk struct {
	round uint64
	at    int64 // Unix nanoseconds
}

// latencyAlign is an aligner's state for latency markers: the latest
// round each sender sent, and the rounds some senders sent and others
// have not yet, in increasing order.
type latencyAlign struct {
	seen []uint64
	out  uint64 // the last round released
	pend []exec.Control
}

// addLatency records a latency marker from sender and returns the rounds
// it aligned.
func (a *aligner) addLatency(sender int, m exec.Control) []exec.Control {
	if a.lat == nil {
		a.lat = &latencyAlign{seen: make([]uint64, a.n)}
	}
	l := a.lat
	l.seen[sender] = max(l.seen[sender], m.Epoch)
	if m.Epoch > l.out {
		l.note(m)
	}
	return a.advanceLatency(nil)
}

// note records that a sender sent round m.Epoch. Every source stamps a
// round with the same time; the earliest is kept all the same.
func (l *latencyAlign) note(m exec.Control) {
	i, found := slices.BinarySearchFunc(l.pend, m.Epoch, func(c exec.Control, r uint64) int {
		switch {
		case c.Epoch < r:
			return -1
		case c.Epoch > r:
			return 1
		}
		return 0
	})
	if found {
		l.pend[i].Emitted = min(l.pend[i].Emitted, m.Emitted)
		return
	}
	l.pend = slices.Insert(l.pend, i, exec.Control{Kind: exec.LatencyMarker, Epoch: m.Epoch, Emitted: m.Emitted})
}

// advanceLatency releases, in order, the rounds every live sender has
// sent or passed. An ended sender holds no round back; a round no sender
// sent (each sent a later one) is skipped.
func (a *aligner) advanceLatency(out []exec.Control) []exec.Control {
	l := a.lat
	if l == nil {
		return out
	}
	low, live := uint64(math.MaxUint64), false
	for i, r := range l.seen {
		if !a.ended[i] {
			live = true
			low = min(low, r)
		}
	}
	if !live {
		return out
	}
	n := 0
	for n < len(l.pend) && l.pend[n].Epoch <= low {
		out = append(out, l.pend[n])
		n++
	}
	l.pend = slices.Delete(l.pend, 0, n)
	l.out = max(l.out, low)
	return out
}

// requestLatency asks a source task to send the latency marker of ask
// after the rows it has emitted, waking it if it waits for input.
func (t *task) requestLatency(ask *latencyAsk) {
	t.latAsk.Store(ask)
	t.mu.Lock()
	wake := t.wake
	t.mu.Unlock()
	if wake != nil {
		wake()
	}
}

// latencyAsked reports whether a latency marker waits to be sent.
func (t *task) latencyAsked() bool { return t.markers && t.latAsk.Load() != nil }

// sendLatency sends the latency marker asked for, if any: a task of a
// job without latency markers returns at once.
func (t *task) sendLatency(ctx context.Context) error {
	if !t.markers {
		return nil
	}
	ask := t.latAsk.Swap(nil)
	if ask == nil {
		return nil
	}
	return t.deliver(ctx, exec.Control{Kind: exec.LatencyMarker, Epoch: ask.round, Emitted: ask.at})
}

// passLatency takes an aligned latency marker past the chain: on to every
// consumer instance (after the rows waiting to be coalesced), or, in the
// sink stage, into the job's latency log.
func (t *task) passLatency(ctx context.Context, m exec.Control) error {
	if t.out != nil {
		return t.out.control(ctx, m)
	}
	t.job.lat.record(time.Duration(time.Now().UnixNano() - m.Emitted))
	if t.job.onMarker != nil {
		t.job.onMarker(m)
	}
	return nil
}

// maxLatencySamples bounds the latencies a job keeps per policy interval:
// with a latency interval 100 times shorter than the policy interval, 40
// sources' markers (a round per interval reaches the sink once) still
// fit, and the percentiles of more would not tell more.
const maxLatencySamples = 4096

// latencyLog keeps the latencies of the markers that reached the sink
// since the sampler last took them.
type latencyLog struct {
	mu  sync.Mutex
	got []time.Duration
}

// record keeps the latency of one marker.
func (l *latencyLog) record(d time.Duration) {
	l.mu.Lock()
	if len(l.got) < maxLatencySamples {
		l.got = append(l.got, max(d, 0))
	}
	l.mu.Unlock()
}

// take returns the latencies kept and starts over.
func (l *latencyLog) take() []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	got := l.got
	l.got = nil
	return got
}

// Latency summarizes the latency markers that reached the sink in an
// interval: their count and the nearest-rank percentiles of their
// latencies (all zero when Markers is 0).
type Latency struct {
	Markers            int
	P50, P95, P99, Max time.Duration
}

// LatencyOf summarizes latencies, which it sorts.
func LatencyOf(latencies []time.Duration) Latency {
	n := len(latencies)
	if n == 0 {
		return Latency{}
	}
	slices.Sort(latencies)
	rank := func(p float64) time.Duration {
		// The nearest rank: the smallest latency at or above p percent
		// of them.
		i := int(math.Ceil(p/100*float64(n))) - 1
		return latencies[min(max(i, 0), n-1)]
	}
	return Latency{Markers: n, P50: rank(50), P95: rank(95), P99: rank(99), Max: latencies[n-1]}
}
