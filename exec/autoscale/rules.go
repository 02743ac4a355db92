package autoscale

import (
	"math"
	"slices"
)

// change sets the new parallelism of an applied change: the wanted one
// of the operators that scale up (those with dirs[i] > 0) and, unless
// upOnly, of those that scale down; and since the change is made anyway,
// an operator in the dead band that would not have UpHeadroom spare gets
// it too. Operators of a stage end with the highest of theirs.
func (c *Controller) change(in *Interval, ops []OpDecision, dirs []int, upOnly bool) {
	for i := range ops {
		o := &ops[i]
		switch {
		case dirs[i] > 0 || dirs[i] < 0 && !upOnly:
			o.New = o.Want
		case o.Rule == RuleDeadBand:
			if up := c.target(&o.Estimate); up > o.Parallelism {
				o.New, o.Rule = up, RuleHeadroom
			}
		}
	}
	for i := range ops {
		if stage := in.Ops[i].Stage; stage != 0 {
			for j := range ops {
				if in.Ops[j].Stage == stage && ops[j].New > ops[i].New {
					ops[i].New = ops[j].New
				}
			}
		}
	}
}

// target returns the parallelism an operator gets when it scales, up or
// down: DS2's π with UpHeadroom spare capacity, but at most one instance
// more than π.
func (c *Controller) target(e *Estimate) int {
	return min(c.cfg.bound(e.Need*(1+c.cfg.UpHeadroom)), e.Optimal+1)
}

// want applies the rules to one operator's estimate and returns the
// parallelism they want and the rule that decided it; secs is the
// interval's length.
func (c *Controller) want(op *Op, e *Estimate, secs float64) (int, Rule) {
	p := e.Parallelism
	switch {
	case e.Fixed:
		return p, RuleFixed
	case !e.Known:
		return p, RuleUnknown
	case e.Need*(1-1e-9) > float64(p): // the same rounding as Config.bound
		if p >= c.cfg.Max {
			return p, RuleMax
		}
		return c.target(e), RuleUp
	}
	if c.cfg.bound(e.Need*(1+c.cfg.DownHeadroom)) < p {
		if e.Busiest >= c.cfg.Saturated {
			return p, RuleSaturated
		}
		if e.Imbalance < c.cfg.Skew {
			return c.target(e), RuleDown
		}
		if q := c.skewedDown(op, e, c.target(e), secs); q < p {
			return q, RuleDown
		}
		return p, RuleSkew
	}
	return p, RuleDeadBand
}

// mergeStages gives the operators of a stage one parallelism: the highest
// any of them wants, or their current one if one of them is fixed.
func mergeStages(in *Interval, ops []OpDecision) {
	for i := range ops {
		stage := in.Ops[i].Stage
		if stage == 0 || slices.ContainsFunc(in.Ops[:i], func(o Op) bool { return o.Stage == stage }) {
			continue // not in a stage, or its stage was merged already
		}
		want, fixed := 0, false
		for j := i; j < len(ops); j++ {
			if in.Ops[j].Stage == stage {
				want = max(want, ops[j].Want)
				fixed = fixed || ops[j].Rule == RuleFixed
			}
		}
		for j := i; j < len(ops); j++ {
			switch {
			case in.Ops[j].Stage != stage:
			case fixed:
				ops[j].Want, ops[j].Rule = ops[j].Parallelism, RuleFixed
			case ops[j].Want != want:
				ops[j].Want, ops[j].Rule = want, RuleStage
			}
		}
	}
}

// keyGroups is the number of key groups eddy's hash exchanges route by
// (exec.NumKeyGroups; a test checks they agree). Instance i of p owns the
// contiguous range [⌈i·keyGroups/p⌉, ⌈(i+1)·keyGroups/p⌉), so rescaling
// moves whole ranges.
const keyGroups = 256

// owner returns the instance of p that owns key group g.
func owner(g, p int) int { return g * p / keyGroups }

// firstGroup returns the first key group instance i of p owns.
func firstGroup(i, p int) int { return (i*keyGroups + p - 1) / p }

// skewedDown returns the parallelism, from want up to below the current
// one, that a skewed operator can scale down to, or its current
// parallelism if none will do; secs is the interval's length.
//
// DS2 assumes the imbalance it measures persists at the new parallelism,
// which a skewed operator belies when it scales down: the instance that
// inherits its hottest keys may inherit other hot keys too. So each
// candidate q is judged by a bound instead: instance j of q owns a range
// of key groups that overlaps those of a few instances now, and takes at
// most all their rows (and, at the target rate, as many more as the
// target exceeds what the operator took). The busiest such instance must
// keep UpHeadroom spare processing them at the rate of the slowest
// instance now.
func (c *Controller) skewedDown(op *Op, e *Estimate, want int, secs float64) int {
	p := len(op.Instances)
	slowest := math.Inf(1)
	for _, inst := range op.Instances {
		if inst.RowsIn > 0 && inst.Busy > 0 {
			slowest = math.Min(slowest, float64(inst.RowsIn)/inst.Busy.Seconds())
		}
	}
	if e.Observed <= 0 || math.IsInf(slowest, 1) {
		return p
	}
	// The busy fraction per row of an instance at the target rate.
	perRow := e.Target / e.Observed / slowest / secs
	for q := max(want, 1); q < p; q++ {
		var worst int64
		for j := range q {
			lo, hi := firstGroup(j, q), firstGroup(j+1, q)
			var rows int64
			for i := owner(lo, p); i <= owner(hi-1, p); i++ {
				rows += op.Instances[i].RowsIn
			}
			worst = max(worst, rows)
		}
		if float64(worst)*perRow <= 1/(1+c.cfg.UpHeadroom) {
			return q
		}
	}
	return p
}
