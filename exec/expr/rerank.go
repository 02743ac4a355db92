package expr

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// Re-ranking a filter's conjuncts at run time. The optimizer orders them
// from estimates (OrderConjuncts: increasing (selectivity − 1) / cost);
// the Program measures what each conjunct really does — the rows it sees,
// the rows it keeps and the time it takes — and every rerankEvery batches
// puts them in the order the measurements rank best, when that order's
// expected cost per row is at least rerankGain lower than the current
// one's. Measurements are halved after each look, so the order follows
// selectivities that drift. A conjunct that suddenly sees far fewer rows
// (one moved ahead of it now drops nearly all) has figures that are
// mostly what it did before, halved: they would move it ahead on data it
// no longer sees, then back once it sees them again. So no order changes
// until every conjunct that may move has figures mostly fresh — at least
// a quarter of its rows, and rerankFreshRows, evaluated since the last
// look. One that has always seen few rows (behind a conjunct that always
// dropped most) has fresh figures and moves when they say so. As in the
// optimizer, a conjunct that can fail on some rows keeps its place (the
// ones before it may guard it), and the others move only within the runs
// between two such.
//
// Figures a conjunct gathers on a few rows a call are mostly the fixed
// cost of a call, and rank it lower than it deserves: an equality behind
// a LIKE that keeps 1 row in 200 measures tens of times its cost per row
// on full batches, and never moves ahead. So when ranking finds nothing
// better, such a conjunct is measured on a whole batch now and then (a
// probe, rerank_probe.go), and ranked on those figures.

const (
	rerankEvery     = 32   // batches between two looks
	rerankGain      = 0.10 // the least fall in expected cost that reorders
	rerankFreshRows = 16   // the least rows a conjunct must evaluate between two looks to move
)

// conjStats are a conjunct's measurements since the last halving.
type conjStats struct {
	in, kept float64 // rows evaluated, rows kept
	ns       float64 // time spent
	fresh    int     // rows evaluated since the last look
	calls    int     // evaluations since the last look
	freshNs  float64 // time spent since the last look
	probed   bool    // the figures are a probe's, taken since the last look
	// looks are the cost per row in the last looks that saw at least
	// rerankFreshRows rows, the latest at looks[(nLooks-1)%costLooks].
	looks  [costLooks]float64
	nLooks int
}

// costLooks is the number of looks a conjunct's cost is the least of: a
// preempted thread or a garbage collection during a look makes it dear,
// never cheap, and one such look would otherwise weigh for several.
const costLooks = 3

// cost returns a conjunct's measured cost per row: the least of its last
// looks', or, before any, what its figures add up to.
func (s *conjStats) cost() float64 {
	if s.nLooks == 0 {
		return s.ns / s.in
	}
	return slices.Min(s.looks[:min(s.nLooks, costLooks)])
}

// look ends a look: it records the cost per row since the last one, if
// enough rows came, halves the figures and starts counting fresh.
func (s *conjStats) look() {
	if s.fresh >= rerankFreshRows {
		s.looks[s.nLooks%costLooks] = s.freshNs / float64(s.fresh)
		s.nLooks++
	}
	s.in, s.kept, s.ns = s.in/2, s.kept/2, s.ns/2
	s.fresh, s.calls, s.freshNs, s.probed = 0, 0, 0, false
}

// Reorder is a re-ranking of a filter's conjuncts at run time.
type Reorder struct {
	// Order is the conjuncts' text in their new order, Reason the
	// measurements it was decided on.
	Order  []string
	Reason string
}

// rank returns a conjunct's measured rank: the rows it drops per
// nanosecond it costs (higher goes first), and false when it has not been
// measured.
func (s conjStats) rank() (float64, bool) {
	if s.in < 1 {
		return 0, false
	}
	sel, cost := s.kept/s.in, max(s.cost(), 0.01)
	return (1 - sel) / cost, true
}

// current reports whether a conjunct's figures are mostly fresh: at
// least rerankFreshRows rows, and a quarter of the rows they count (a
// steady stream makes half), evaluated since the last look; or a probe's.
func (s conjStats) current() bool {
	return s.probed || s.fresh >= rerankFreshRows && float64(s.fresh) >= s.in/4
}

// expectedCost is the cost per input row of evaluating conjuncts in order,
// each over the rows the ones before it kept (their measured selectivity,
// as if independent).
func expectedCost(order []int, st []conjStats) float64 {
	total, reach := 0.0, 1.0
	for _, i := range order {
		s := st[i]
		if s.in < 1 {
			continue
		}
		total += reach * s.cost()
		reach *= s.kept / s.in
	}
	return total
}

// measure records that conjunct k evaluated in rows, kept kept, in d.
func (p *Program) measure(k, in, kept int, d time.Duration) {
	s := &p.stats[k]
	s.in += float64(in)
	s.kept += float64(kept)
	s.ns += float64(d)
	s.fresh += in
	s.calls++
	s.freshNs += float64(d)
}

// rerank looks at the measurements, a probe's among them, and reorders
// the conjuncts when the measured ranks promise a cheaper filter; if not,
// it may ask for a probe. It returns the reorder, or nil.
func (p *Program) rerank() *Reorder {
	defer func() {
		for i := range p.stats {
			p.stats[i].look()
		}
	}()
	probed := p.takeProbe()
	r := p.rankOrder()
	p.probes.looked(r != nil, probed)
	if r == nil {
		p.askProbe()
	}
	return r
}

// rankOrder returns the order of the conjuncts by their measured ranks,
// made the filter's, if its expected cost is lower enough; else nil.
func (p *Program) rankOrder() *Reorder {
	cur := make([]int, len(p.conj))
	for i := range cur {
		cur[i] = i
	}
	for i, st := range p.stats {
		if _, ok := st.rank(); (!ok || !st.current()) && !p.conj[i].fixed {
			return nil // a conjunct the rows (lately) did not reach: nothing to go on
		}
	}
	better := append([]int(nil), cur...)
	start := 0
	for i := 0; i <= len(better); i++ {
		if i < len(better) && !p.conj[better[i]].fixed {
			continue
		}
		run := better[start:i]
		sort.SliceStable(run, func(a, b int) bool {
			ra, _ := p.stats[run[a]].rank()
			rb, _ := p.stats[run[b]].rank()
			return ra > rb
		})
		start = i + 1
	}
	now, then := expectedCost(cur, p.stats), expectedCost(better, p.stats)
	if now <= 0 || then > now*(1-rerankGain) {
		return nil
	}
	var reason []string
	conj := make([]conjunct, len(better))
	stats := make([]conjStats, len(better))
	r := &Reorder{}
	for j, i := range better {
		conj[j], stats[j] = p.conj[i], p.stats[i]
		s := p.stats[i]
		r.Order = append(r.Order, p.conj[i].text)
		on := ""
		if s.probed {
			on = " on a whole batch"
		}
		reason = append(reason, fmt.Sprintf("%s keeps %.0f%% at %.0f ns/row%s", p.conj[i].text, 100*s.kept/s.in, s.cost(), on))
	}
	p.conj, p.stats = conj, stats
	r.Reason = fmt.Sprintf("observed: %s; expected %.0f ns/row, was %.0f", strings.Join(reason, ", "), then, now)
	return r
}

// Reordered returns the re-rankings of the filter since the last call, at
// most one per rerankEvery batches (callers report them).
func (p *Program) Reordered() *Reorder {
	r := p.reorder
	p.reorder = nil
	return r
}
