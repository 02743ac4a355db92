package autoscale

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Controller runs the DS2 policy on each interval of one query and
// decides when to change its parallelism (see the package documentation
// for the rules). It is not safe for concurrent use.
type Controller struct {
	cfg  Config
	seen int   // intervals observed
	last []int // the parallelism of the last interval observed
	warm int   // intervals still to ignore
	// dirs is the direction (-1, 0, +1) per operator of the change the
	// last streak intervals proposed.
	dirs   []int
	streak int
	log    []Decision // a ring of the last cfg.LogSize decisions
	next   int        // where the next decision goes in log
}

// New returns a controller with the settings cfg, or an error wrapping
// ErrInvalid if one is out of range.
func New(cfg Config) (*Controller, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	return &Controller{cfg: cfg}, nil
}

// Config returns the controller's settings.
func (c *Controller) Config() Config { return c.cfg }

// Observe decides what to do after one interval. When the Decision's
// Action is Apply the caller should set every operator's parallelism to
// Decision.Parallelism(); the controller learns that it did from the
// parallelism of the intervals it observes next (and warms up again when
// it changes, whoever changed it). An invalid interval returns an error
// wrapping ErrInvalid and changes nothing.
func (c *Controller) Observe(in *Interval) (Decision, error) {
	est, err := c.cfg.Policy(in)
	if err != nil {
		return Decision{}, err
	}
	c.seen++
	par := in.Parallelism()
	changed := !slices.Equal(par, c.last)
	if changed {
		c.last, c.warm = par, c.cfg.WarmUp
		c.dirs, c.streak = nil, 0
	}
	d := Decision{Interval: c.seen, Ops: make([]OpDecision, len(est))}
	for i, e := range est {
		d.Ops[i] = OpDecision{Estimate: e, New: e.Parallelism}
		d.Ops[i].Want, d.Ops[i].Rule = c.want(&e)
	}
	mergeStages(in, d.Ops)
	lagging := c.lagging(est)
	d.Backpressured = lagging >= 0
	dirs := make([]int, len(est))
	var up, any bool
	for i, o := range d.Ops {
		dirs[i] = cmp.Compare(o.Want, o.Parallelism)
		up = up || dirs[i] > 0
		any = any || dirs[i] != 0
	}
	switch {
	case c.warm > 0:
		c.warm--
		d.Action, d.Reason = WarmingUp, "warming up"
		if changed && c.seen > 1 {
			d.Reason = "warming up after a change of parallelism"
		}
	case !any:
		d.Action, d.Reason = Hold, "every operator keeps up within its headroom"
		c.dirs, c.streak = nil, 0
	case up && d.Backpressured:
		// The true rates are exact when the dataflow is backpressured:
		// scale up at once, and leave any scale-down to later intervals.
		for i := range d.Ops {
			if dirs[i] > 0 {
				d.Ops[i].New = d.Ops[i].Want
			}
		}
		e := &est[lagging]
		d.Action = Apply
		d.Reason = fmt.Sprintf("backpressured: source %s reads %.0f%% of its target %s, scaling up at once",
			e.Name, 100*e.Observed/e.Target, rate(e.Target))
	default:
		if slices.Equal(dirs, c.dirs) {
			c.streak++
		} else {
			c.dirs, c.streak = dirs, 1
		}
		if c.streak < c.cfg.Activation {
			d.Action = Pending
			d.Reason = fmt.Sprintf("change proposed in %d of %d consecutive intervals", c.streak, c.cfg.Activation)
			break
		}
		for i := range d.Ops {
			d.Ops[i].New = d.Ops[i].Want
		}
		d.Action = Apply
		d.Reason = fmt.Sprintf("change proposed in %d consecutive intervals", c.streak)
	}
	if d.Action == Apply {
		c.warm, c.dirs, c.streak = c.cfg.WarmUp, nil, 0
	}
	c.record(d)
	return d, nil
}

// want applies the rules to one operator's estimate and returns the
// parallelism they want and the rule that decided it.
func (c *Controller) want(e *Estimate) (int, Rule) {
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
		return min(c.cfg.bound(e.Need*(1+c.cfg.UpHeadroom)), e.Optimal+1), RuleUp
	}
	if down := c.cfg.bound(e.Need * (1 + c.cfg.DownHeadroom)); down < p {
		if e.Busiest >= c.cfg.Saturated {
			return p, RuleSaturated
		}
		return down, RuleDown
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

// lagging returns the index of the source reading the smallest fraction
// of its target rate if that is below 1−Lag, and -1 if every source keeps
// up.
func (c *Controller) lagging(est []Estimate) int {
	worst, ratio := -1, 1-c.cfg.Lag
	for i, e := range est {
		if e.Source && e.Target > 0 {
			if r := e.Observed / e.Target; r < ratio && !math.IsNaN(r) {
				worst, ratio = i, r
			}
		}
	}
	return worst
}

// record adds d to the log, dropping the oldest decision when it is full.
func (c *Controller) record(d Decision) {
	if len(c.log) < c.cfg.LogSize {
		c.log = append(c.log, d)
		return
	}
	c.log[c.next] = d
	c.next = (c.next + 1) % c.cfg.LogSize
}

// Log returns the decisions the controller keeps (the last
// Config.LogSize), oldest first.
func (c *Controller) Log() []Decision {
	return slices.Concat(c.log[c.next:], c.log[:c.next])
}
