package expr

import "time"

// Probes: a conjunct measured on a whole batch (see rerank.go).
//
// A conjunct evaluated on few rows a call (fewer than probeRows) is
// measured mostly on what a call costs whatever its rows: gathering its
// columns at the selected rows, starting its evaluation, timing it. Its
// cost per row then says little of what it would cost first, on whole
// batches, and its selectivity is that on the rows the conjuncts before it
// kept, which may differ from its own (an equality that keeps 1 row in
// 100 may keep every row a LIKE before it kept). So when ranking finds no
// better order, the filter probes the first such conjunct that could move
// ahead: in the next batch it evaluates it once more, over every row, as
// if it came first, and keeps only the figures. At the next look those
// figures are the conjunct's, and ranking decides as usual.
//
// Only a conjunct that cannot fail is probed, as it is evaluated on rows
// the ones before it would drop (the others keep their place anyway).
// plan.CanFail counts every function call as one that can, so a probe
// never calls a volatile function (RAND(seed) would go on with its
// sequence). A probe costs an evaluation over one batch: it is asked for
// only when that costs, by the conjunct's figures so far (its cost per row
// at most what they say), no more than what the conjunct ahead of it took
// in the last look, which is as much as moving it ahead could save in a
// look. No probe is asked for within probeSettle looks of a change of
// order; each probe that moves nothing doubles the looks before the next,
// from 4 up to maxProbeWait.

const (
	probeRows    = 256 // a conjunct evaluated on fewer rows a call may be probed
	probeSettle  = 3   // the looks after a change of order before a probe
	maxProbeWait = 256 // the most looks between two probes
)

// probes is the state of a filter's probes.
type probes struct {
	next  int     // the conjunct to probe in the next batch, or -1
	taken probe   // the probe taken since the last look, if any
	wait  int     // looks to pass before the next probe
	fail  int     // the wait after the next probe that moves nothing
	sel   []int32 // scratch for a probe's rows kept
	count int     // probes taken since Probes last took the count
}

// probe is what conjunct k did over a whole batch.
type probe struct {
	k        int
	in, kept int
	ns       float64
	ok       bool
}

// newProbes returns the probes' state of a new filter.
func newProbes() probes { return probes{next: -1, wait: probeSettle} }

// runProbe evaluates the conjunct asked for over every row of the batch
// and records what it did. It evaluates nothing else and changes no row's
// fate; an error (which a conjunct that cannot fail does not return)
// drops the probe.
func (p *Program) runProbe() {
	pr := &p.probes
	k := pr.next
	pr.next = -1
	start := time.Now()
	v, err := p.conj[k].root.eval(p.ctx)
	if err != nil {
		return
	}
	pr.sel = selectTrue(v, p.ctx.n, pr.sel[:0])
	pr.taken = probe{k: k, in: p.ctx.n, kept: len(pr.sel), ns: float64(time.Since(start)), ok: true}
	pr.count++
}

// Probes returns the number of probes the filter took since the last
// call (callers count them).
func (p *Program) Probes() int {
	n := p.probes.count
	p.probes.count = 0
	return n
}

// takeProbe makes the figures of the probe taken since the last look, if
// any, its conjunct's, and reports whether there was one.
func (p *Program) takeProbe() bool {
	pr := &p.probes
	t := pr.taken
	pr.taken = probe{}
	if !t.ok || t.in == 0 {
		return false
	}
	s := &p.stats[t.k]
	s.in, s.kept, s.ns = float64(t.in), float64(t.kept), t.ns
	s.looks[s.nLooks%costLooks] = t.ns / float64(t.in)
	s.nLooks++
	s.probed = true
	return true
}

// looked updates the wait after a look that reordered the conjuncts
// (moved) or not, with a probe's figures or not.
func (pr *probes) looked(moved, probed bool) {
	switch {
	case moved:
		pr.wait = max(pr.wait, probeSettle)
	case probed:
		pr.fail = min(max(2*pr.fail, 4), maxProbeWait)
		pr.wait = pr.fail
	}
}

// askProbe asks for a probe of the first conjunct measured on few rows a
// call that may move ahead of the one before it, once the wait is over,
// if a probe costs no more than it might save.
func (p *Program) askProbe() {
	pr := &p.probes
	if pr.next >= 0 {
		return
	}
	if pr.wait > 0 {
		pr.wait--
		return
	}
	for i := 1; i < len(p.conj); i++ {
		s, ahead := p.stats[i], p.stats[i-1]
		if p.conj[i].fixed || p.conj[i-1].fixed || (s.calls > 0 && s.fresh/s.calls >= probeRows) {
			continue
		}
		batch := float64(p.stats[0].fresh) / float64(max(p.stats[0].calls, 1))
		if s.in >= 1 && s.cost()*batch > ahead.freshNs {
			continue // dearer than all it could save in a look
		}
		pr.next = i
		return
	}
}
