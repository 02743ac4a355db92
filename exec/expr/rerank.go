package expr

import (
	"fmt"
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
	sel, cost := s.kept/s.in, max(s.ns/s.in, 0.01)
	return (1 - sel) / cost, true
}

// current reports whether a conjunct's figures are mostly fresh: at
// least rerankFreshRows rows, and a quarter of the rows they count (a
// steady stream makes half), evaluated since the last look.
func (s conjStats) current() bool {
	return s.fresh >= rerankFreshRows && float64(s.fresh) >= s.in/4
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
		total += reach * s.ns / s.in
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
}

// rerank looks at the measurements and reorders the conjuncts when the
// measured ranks promise a cheaper filter; it returns the reorder, or nil.
func (p *Program) rerank() *Reorder {
	defer func() {
		for i := range p.stats {
			p.stats[i].in /= 2
			p.stats[i].kept /= 2
			p.stats[i].ns /= 2
			p.stats[i].fresh = 0
		}
	}()
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
		reason = append(reason, fmt.Sprintf("%s keeps %.0f%% at %.0f ns/row", p.conj[i].text, 100*s.kept/s.in, s.ns/s.in))
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
