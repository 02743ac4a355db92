package exec

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
}

const noWatermark = int64(-1 << 63)

func newAligner(senders int) *aligner {
	a := &aligner{
		n: senders, ended: make([]bool, senders), wm: make([]int64, senders), idle: make([]bool, senders),
		wmOut: noWatermark, flushSeen: make([]uint64, senders), barSeen: make([]uint64, senders),
	}
	for i := range a.wm {
		a.wm[i] = noWatermark
	}
	return a
}

// add records a control message from sender and returns the messages that
// became aligned, in order.
func (a *aligner) add(sender int, m Control) []Control {
	switch m.Kind {
	case Watermark:
		a.idle[sender] = m.Idle
		if !m.Idle && m.Watermark > a.wm[sender] {
			a.wm[sender] = m.Watermark
		}
		return a.advanceWatermark(nil)
	case Flush:
		a.flushSeen[sender] = max(a.flushSeen[sender], m.FlushID)
		return a.advanceMarkers(nil)
	case Barrier:
		a.barSeen[sender] = max(a.barSeen[sender], m.Epoch)
		return a.advanceMarkers(nil)
	case EndOfInput:
		if !a.ended[sender] {
			a.ended[sender] = true
			a.nEnded++
		}
		out := a.advanceWatermark(nil)
		out = a.advanceMarkers(out)
		if a.nEnded == a.n {
			out = append(out, Control{Kind: EndOfInput})
		}
		return out
	}
	return nil
}

// advanceWatermark reports the minimum watermark over the live senders that
// are not idle, when it advanced, or that the output became idle (every
// live sender idle) or active again.
func (a *aligner) advanceWatermark(out []Control) []Control {
	lo, live, active := int64(1<<63-1), false, false
	for i, w := range a.wm {
		if a.ended[i] {
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
			out = append(out, Control{Kind: Watermark, Watermark: a.wmOut, Idle: true})
		}
	case active && (lo > a.wmOut || a.idleOut):
		a.idleOut = false
		a.wmOut = max(a.wmOut, lo)
		out = append(out, Control{Kind: Watermark, Watermark: a.wmOut})
	}
	return out
}

func (a *aligner) advanceMarkers(out []Control) []Control {
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
		out = append(out, Control{Kind: Barrier, Epoch: lowBar})
	}
	if lowFlush > a.flushOut {
		a.flushOut = lowFlush
		out = append(out, Control{Kind: Flush, FlushID: lowFlush})
	}
	return out
}
