package autoscale

import (
	"fmt"
	"math"
	"strings"
)

// Action is what the controller did with an interval.
type Action int

const (
	// WarmingUp: the interval was ignored, during the warm-up after a
	// change of parallelism or at the start.
	WarmingUp Action = iota
	// Hold: no operator's parallelism needs to change.
	Hold
	// Pending: a change was proposed, but has not yet been proposed in
	// Config.Activation consecutive intervals.
	Pending
	// Apply: the caller should change the parallelism to Decision.New.
	Apply
)

var actionNames = [...]string{"warm-up", "hold", "pending", "apply"}

// String returns the action's name: warm-up, hold, pending or apply.
func (a Action) String() string {
	if a < 0 || int(a) >= len(actionNames) {
		return fmt.Sprintf("Action(%d)", int(a))
	}
	return actionNames[a]
}

// Rule names what decided an operator's parallelism in a Decision.
type Rule string

// The rules, in the order the controller tries them.
const (
	RuleFixed     Rule = "fixed"     // Op.Fixed, or a stage holding a fixed operator
	RuleUnknown   Rule = "unknown"   // too few rows or no busy time to estimate
	RuleUp        Rule = "up"        // cannot keep up: to π with UpHeadroom, at most π+1
	RuleMax       Rule = "max"       // cannot keep up, but already at Config.Max
	RuleSaturated Rule = "saturated" // would scale down, but the busiest instance is Saturated
	RuleSkew      Rule = "skew"      // would scale down, but is skewed, and fewer instances might gather its hot keys
	RuleDown      Rule = "down"      // would keep DownHeadroom with fewer instances: to π with UpHeadroom
	RuleDeadBand  Rule = "dead band" // keeps up, and fewer instances would not keep DownHeadroom
	RuleCheck     Rule = "check"     // changed by the last change, which left it less than half its UpHeadroom
	RuleHeadroom  Rule = "headroom"  // in the dead band without UpHeadroom spare: scales up with a change made anyway
	RuleStage     Rule = "stage"     // follows another operator of its stage
)

// OpDecision is the controller's view of one operator in one interval:
// the policy's estimate, and the parallelism it wants.
type OpDecision struct {
	Estimate
	// Want is the parallelism the rules want for the operator this
	// interval; New is the parallelism the decision sets (Want for an
	// applied change, else the current parallelism).
	Want, New int
	Rule      Rule
}

// Decision is the controller's record of one interval: what it saw, what
// it wanted and what it did.
type Decision struct {
	// Interval numbers the intervals observed, from 1.
	Interval int
	Action   Action
	// Reason says why, in a sentence fragment.
	Reason string
	// Backpressured says a source read less than 1−Config.Lag of its
	// target rate.
	Backpressured bool
	// Ops has one entry per operator, in the order of Interval.Ops.
	Ops []OpDecision
}

// Changed reports whether the decision changes any operator's
// parallelism.
func (d *Decision) Changed() bool {
	for _, o := range d.Ops {
		if o.New != o.Parallelism {
			return true
		}
	}
	return false
}

// Parallelism returns the parallelism the decision sets for every
// operator, in the order of Interval.Ops.
func (d *Decision) Parallelism() []int {
	p := make([]int, len(d.Ops))
	for i, o := range d.Ops {
		p[i] = o.New
	}
	return p
}

// String formats the decision for people (SHOW AUTOSCALE): a line with
// the interval, the action and the reason, then one line per operator
// with its parallelism before → after, the rule, and the figures it was
// decided on (rates in rows per second; λp and λo per instance).
func (d Decision) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "interval %d: %s", d.Interval, d.Action)
	if d.Reason != "" {
		fmt.Fprintf(&b, " (%s)", d.Reason)
	}
	for _, o := range d.Ops {
		fmt.Fprintf(&b, "\n  %s: %d → %d [%s]", o.Name, o.Parallelism, o.New, o.Rule)
		if !o.Known {
			fmt.Fprintf(&b, " in %s, target %s", rate(o.Observed), rate(o.Target))
			continue
		}
		fmt.Fprintf(&b, " π %d (need %.2f), λp %s, λo %s, busiest %.0f%%, in %s, target %s",
			o.Optimal, o.Need, rate(o.ProcRate), rate(o.OutRate), 100*o.Busiest, rate(o.Observed), rate(o.Target))
		if o.Broadcast > 0 {
			fmt.Fprintf(&b, " (broadcast %s)", rate(o.Broadcast))
		}
	}
	return b.String()
}

// rate formats rows per second with three significant digits and a
// k/M/G suffix.
func rate(r float64) string {
	switch a := math.Abs(r); {
	case math.IsInf(r, 0) || math.IsNaN(r):
		return fmt.Sprint(r)
	case a >= 1e9:
		return fmt.Sprintf("%.3gG/s", r/1e9)
	case a >= 1e6:
		return fmt.Sprintf("%.3gM/s", r/1e6)
	case a >= 1e3:
		return fmt.Sprintf("%.3gk/s", r/1e3)
	}
	return fmt.Sprintf("%.3g/s", r)
}
