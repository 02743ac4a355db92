package dataflow

import (
	"time"

	"github.com/eddysql/eddy/exec"
)

// aligner merges the control messages of a task's senders (every upstream
// instance of every input). A control message takes effect once it is
// aligned:
//
//   - a watermark is the minimum of the senders' latest watermarks, reported
//     when that minimum advances;
//   - a barrier or flush marker is reported when every live sender has sent
//     it (markers are numbered increasingly, so a sender that sends a later
//     one has also passed the earlier);
//   - end of input is reported when every sender has ended. An ended sender
//     no longer holds back watermarks or markers.
type aligner struct {
	n         int
	ended     []bool
	nEnded    int
	wm        []int64
	idle      []bool // senders that declared themselves idle
	idleOut   bool   // the output is idle (every live sender is)
	wmOut     int64
	flushSeen []uint64 // latest flush id per sender
	flushOut  uint64
	barSeen   []uint64
	barOut    uint64
	// barFirst is when the first sender's barrier after barOut arrived
	// (zero when none waits), and aligned how long the last barrier
	// released waited for the others: its alignment time. A task with one
	// sender aligns every barrier at once and reads no clock.
	barFirst  time.Time
	aligned   time.Duration
	deaf      []bool // senders whose watermarks do not count
	inputOf   []int  // the operator input each sender feeds
	caught    []bool // senders that sent CaughtUp (or ended)
	caughtIn  []bool // inputs reported caught up
	caughtAll bool
	// pending counts, per input, the senders that have not caught up, so
	// a sender catching up costs a constant, not a scan of every input's
	// senders (a union of thousands of inputs has that many senders, each
	// of which catches up). Counted on first use, once setInput is done.
	pending   []int
	nCaughtIn int // inputs reported caught up
	// caughtWork counts the inputs and senders examined for CaughtUp, for
	// the test that bounds it.
	caughtWork int
	// lat aligns latency markers (latency.go); nil until the first.
	lat *latencyAlign
}

const noWatermark = int64(-1 << 63)

func newAligner(senders int) *aligner {
	a := &aligner{
		n: senders, ended: make([]bool, senders), wm: make([]int64, senders), idle: make([]bool, senders),
		wmOut: noWatermark, flushSeen: make([]uint64, senders), barSeen: make([]uint64, senders),
		deaf: make([]bool, senders), inputOf: make([]int, senders), caught: make([]bool, senders),
		caughtIn: make([]bool, 1),
	}
	for i := range a.wm {
		a.wm[i] = noWatermark
	}
	return a
}

// setInput records that sender feeds operator input in.
func (a *aligner) setInput(sender, in int) {
	a.inputOf[sender] = in
	for len(a.caughtIn) <= in {
		a.caughtIn = append(a.caughtIn, false)
	}
}

// ignoreWatermarks leaves sender out of the watermark: it neither holds
// it back nor advances it.
func (a *aligner) ignoreWatermarks(sender int) { a.deaf[sender] = true }

// add records a control message from sender and returns the messages that
// became aligned, in order.
func (a *aligner) add(sender int, m exec.Control) []exec.Control {
	switch m.Kind {
	case exec.Watermark:
		if a.deaf[sender] {
			return nil
		}
		a.idle[sender] = m.Idle
		if !m.Idle && m.Watermark > a.wm[sender] {
			a.wm[sender] = m.Watermark
		}
		return a.advanceWatermark(nil)
	case exec.Flush:
		a.flushSeen[sender] = max(a.flushSeen[sender], m.FlushID)
		return a.advanceMarkers(nil)
	case exec.Barrier:
		a.barSeen[sender] = max(a.barSeen[sender], m.Epoch)
		if a.n > 1 && m.Epoch > a.barOut && a.barFirst.IsZero() {
			a.barFirst = time.Now()
		}
		return a.advanceMarkers(nil)
	case exec.CaughtUp:
		return a.advanceCaughtUp(sender, nil)
	case exec.LatencyMarker:
		return a.addLatency(sender, m)
	case exec.EndOfInput:
		if !a.ended[sender] {
			a.ended[sender] = true
			a.nEnded++
		}
		out := a.advanceCaughtUp(sender, nil)
		out = a.advanceWatermark(out)
		out = a.advanceMarkers(out)
		out = a.advanceLatency(out)
		if a.nEnded == a.n {
			out = append(out, exec.Control{Kind: exec.EndOfInput})
		}
		return out
	}
	return nil
}

// blocked reports whether sender has sent a barrier that is not aligned
// yet: what it sends next belongs after the barrier.
func (a *aligner) blocked(sender int) bool { return a.barSeen[sender] > a.barOut }

// advanceWatermark reports the minimum watermark over the live senders that
// are not idle, when it advanced, or that the output became idle (every
// live sender idle) or active again.
func (a *aligner) advanceWatermark(out []exec.Control) []exec.Control {
	lo, live, active := int64(1<<63-1), false, false
	for i, w := range a.wm {
		if a.ended[i] || a.deaf[i] {
			continue
		}
		live = true
		if a.idle[i] {
			continue
		}
		active = true
		lo = min(lo, w)
	}
	switch {
	case live && !active:
		if !a.idleOut {
			a.idleOut = true
			out = append(out, exec.Control{Kind: exec.Watermark, Watermark: a.wmOut, Idle: true})
		}
	case active && (lo > a.wmOut || a.idleOut):
		a.idleOut = false
		a.wmOut = max(a.wmOut, lo)
		out = append(out, exec.Control{Kind: exec.Watermark, Watermark: a.wmOut})
	}
	return out
}

// advanceCaughtUp records that sender has caught up (or ended) and
// reports each input whose senders have all caught up, then, once, that
// every input has. The first call also reports the inputs no sender
// feeds.
func (a *aligner) advanceCaughtUp(sender int, out []exec.Control) []exec.Control {
	if a.pending == nil {
		a.pending = make([]int, len(a.caughtIn))
		for s, in := range a.inputOf {
			a.caughtWork++
			if !a.caught[s] {
				a.pending[in]++
			}
		}
		a.caught[sender] = true
		a.pending[a.inputOf[sender]]--
		for in := range a.caughtIn {
			a.caughtWork++
			out = a.reportCaughtUp(in, out)
		}
		return out
	}
	if a.caught[sender] {
		return out
	}
	a.caught[sender] = true
	in := a.inputOf[sender]
	a.pending[in]--
	a.caughtWork++
	return a.reportCaughtUp(in, out)
}

// reportCaughtUp reports input in when its last sender caught up, and
// every input once all are.
func (a *aligner) reportCaughtUp(in int, out []exec.Control) []exec.Control {
	if a.pending[in] > 0 || a.caughtIn[in] {
		return out
	}
	a.caughtIn[in] = true
	a.nCaughtIn++
	out = append(out, exec.Control{Kind: exec.CaughtUp, Input: in})
	if a.nCaughtIn == len(a.caughtIn) && !a.caughtAll {
		a.caughtAll = true
		out = append(out, exec.Control{Kind: exec.CaughtUp, Input: -1})
	}
	return out
}

func (a *aligner) advanceMarkers(out []exec.Control) []exec.Control {
	lowFlush, lowBar, live := ^uint64(0), ^uint64(0), false
	for i := range a.flushSeen {
		if a.ended[i] {
			continue
		}
		live = true
		lowFlush = min(lowFlush, a.flushSeen[i])
		lowBar = min(lowBar, a.barSeen[i])
	}
	if !live {
		return out
	}
	if lowBar > a.barOut {
		a.barOut = lowBar
		a.timeAlignment()
		out = append(out, exec.Control{Kind: exec.Barrier, Epoch: lowBar})
	}
	if lowFlush > a.flushOut {
		a.flushOut = lowFlush
		out = append(out, exec.Control{Kind: exec.Flush, FlushID: lowFlush})
	}
	return out
}

// timeAlignment records how long the barrier just released was aligned,
// and starts timing the next if a sender has already sent it.
func (a *aligner) timeAlignment() {
	a.aligned = 0
	if a.barFirst.IsZero() {
		return
	}
	now := time.Now()
	a.aligned = now.Sub(a.barFirst)
	a.barFirst = time.Time{}
	for i, b := range a.barSeen {
		if !a.ended[i] && b > a.barOut {
			a.barFirst = now
			break
		}
	}
}
