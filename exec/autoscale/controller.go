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
	// check says the first interval after the warm-up checks the last
	// change of parallelism, of the operators in changed.
	check   bool
	changed []bool
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
	c.noticeChange(in.Parallelism())
	d := Decision{Interval: c.seen, Ops: make([]OpDecision, len(est))}
	checking := c.warm == 0 && c.check
	for i, e := range est {
		o := &d.Ops[i]
		*o = OpDecision{Estimate: e, New: e.Parallelism}
		o.Want, o.Rule = c.want(&in.Ops[i], &e, in.Length.Seconds())
		if checking && c.changed[i] && o.Rule == RuleDeadBand && e.Need*(1+c.cfg.UpHeadroom/2) > float64(e.Parallelism) {
			o.Want, o.Rule = c.target(&e), RuleCheck
		}
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
		if c.check {
			d.Reason = "warming up after a change of parallelism"
		}
	case !any:
		d.Action, d.Reason = Hold, holdReason(&d)
		c.dirs, c.streak = nil, 0
	case up && (d.Backpressured || checking):
		// The true rates are exact when the dataflow is backpressured, and
		// what the first interval after a change finds short completes
		// that change: scale up at once, and leave any scale-down to
		// later intervals.
		c.change(in, d.Ops, dirs, true)
		d.Action = Apply
		if e := &est[max(lagging, 0)]; d.Backpressured {
			d.Reason = fmt.Sprintf("backpressured: source %s reads %.0f%% of its target %s, scaling up at once",
				e.Name, 100*e.Observed/e.Target, rate(e.Target))
		} else {
			d.Reason = "the last change left operators short, scaling up at once"
		}
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
		c.change(in, d.Ops, dirs, false)
		d.Action = Apply
		d.Reason = fmt.Sprintf("change proposed in %d consecutive intervals", c.streak)
	}
	if checking {
		c.check = false
	}
	if d.Action == Apply {
		c.warm, c.dirs, c.streak = c.cfg.WarmUp, nil, 0
	}
	c.record(d)
	return d, nil
}

// noticeChange compares the parallelism of the interval observed with the
// last one's. When it changed, the warm-up starts again, a pending
// proposal is dropped, and the operators that changed are to be checked
// after the warm-up.
func (c *Controller) noticeChange(par []int) {
	if slices.Equal(par, c.last) {
		return
	}
	c.warm, c.dirs, c.streak = c.cfg.WarmUp, nil, 0
	c.check = len(c.last) == len(par)
	c.changed = make([]bool, len(par))
	for i := range par {
		c.changed[i] = c.check && par[i] != c.last[i]
	}
	c.last = par
}

// holdReason says why nothing changes: an operator that cannot keep up
// even with the most instances, a backpressured dataflow whose
// bottleneck cannot scale, or operators that all keep up.
func holdReason(d *Decision) string {
	for _, o := range d.Ops {
		if o.Rule == RuleMax {
			return fmt.Sprintf("%s cannot keep up even with the most instances, %d", o.Name, o.Parallelism)
		}
	}
	if d.Backpressured {
		return "backpressured, but no operator that can scale is short"
	}
	return "every operator keeps up within its headroom"
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
