package autoscale_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec/autoscale"
)

// pair is a source reading read rows in a second of input arriving at
// rate rows/s (0: what it reads), feeding op, whose p instances each take
// an even share and are busy for busy seconds: op needs p·rate/read·busy
// instances.
func pair(rate float64, read int64, p int, busy float64) *autoscale.Interval {
	insts := make([]autoscale.Instance, p)
	for k := range insts {
		insts[k] = inst(read/int64(p), read/int64(p), busy)
	}
	return &autoscale.Interval{Length: time.Second, Ops: []autoscale.Op{
		{Name: "src", Rate: rate, Fixed: true, Instances: []autoscale.Instance{inst(read, read, 0.01)}},
		{Name: "op", Inputs: []autoscale.Edge{{From: 0}}, Instances: insts},
	}}
}

func newController(t *testing.T, c autoscale.Config) *autoscale.Controller {
	t.Helper()
	ctl, err := autoscale.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return ctl
}

// observe feeds in to ctl and checks the action and op's new parallelism.
func observe(t *testing.T, ctl *autoscale.Controller, in *autoscale.Interval, act autoscale.Action, newPar int) autoscale.Decision {
	t.Helper()
	d, err := ctl.Observe(in)
	if err != nil {
		t.Fatal(err)
	}
	if d.Action != act || d.Ops[1].New != newPar {
		t.Fatalf("want %v to %d, got %v", act, newPar, d)
	}
	return d
}

// TestWarmUp: the first WarmUp intervals are ignored, and so are those
// after the parallelism changes — the controller's change or anyone's.
func TestWarmUp(t *testing.T) {
	ctl := newController(t, cfg(16))
	over := pair(0, 8000, 4, 0.25) // needs 1 of its 4 instances
	observe(t, ctl, over, autoscale.WarmingUp, 4)
	observe(t, ctl, over, autoscale.Pending, 4)
	d := observe(t, ctl, over, autoscale.Apply, 2) // to ⌈1·1.25⌉
	if d.Ops[1].Rule != autoscale.RuleDown || !d.Changed() {
		t.Errorf("rule %s", d.Ops[1].Rule)
	}
	observe(t, ctl, pair(0, 8000, 2, 0.5), autoscale.WarmingUp, 2)
	observe(t, ctl, pair(0, 8000, 2, 0.5), autoscale.Hold, 2)
	// Someone else sets 3 instances: warm up again.
	observe(t, ctl, pair(0, 8000, 3, 0.33), autoscale.WarmingUp, 3)

	c := cfg(16)
	c.WarmUp, c.Activation = 0, 1
	ctl = newController(t, c)
	observe(t, ctl, over, autoscale.Apply, 2)
	observe(t, ctl, pair(0, 8000, 2, 0.5), autoscale.Hold, 2)
}

// TestActivation: a change applies once proposed in Activation
// consecutive intervals; an interval in between that proposes nothing, or
// the opposite, starts the count again.
func TestActivation(t *testing.T) {
	c := cfg(16)
	c.Activation = 3
	ctl := newController(t, c)
	over, fine := pair(0, 8000, 4, 0.25), pair(0, 8000, 4, 0.8)
	observe(t, ctl, over, autoscale.WarmingUp, 4)
	observe(t, ctl, over, autoscale.Pending, 4)
	observe(t, ctl, over, autoscale.Pending, 4)
	observe(t, ctl, fine, autoscale.Hold, 4)
	observe(t, ctl, over, autoscale.Pending, 4)
	// A scale-up that is not from a lagging source (5% short) waits too.
	observe(t, ctl, pair(8400, 8000, 4, 1), autoscale.Pending, 4)
	observe(t, ctl, over, autoscale.Pending, 4)
	observe(t, ctl, over, autoscale.Pending, 4)
	d := observe(t, ctl, over, autoscale.Apply, 2)
	if !strings.Contains(d.Reason, "3 consecutive") {
		t.Errorf("reason %q", d.Reason)
	}
}

// TestBackpressuredAtOnce: when a source reads less than 90% of its
// target rate, a scale-up applies in the interval that proposes it —
// the scale-ups only, the rest waiting for activation.
func TestBackpressuredAtOnce(t *testing.T) {
	ctl := newController(t, cfg(16))
	under := pair(8000, 2000, 1, 1) // 4× too few
	observe(t, ctl, under, autoscale.WarmingUp, 1)
	d := observe(t, ctl, under, autoscale.Apply, 5)
	if !d.Backpressured || !strings.Contains(d.Reason, "reads 25% of its target 8k/s") {
		t.Errorf("%v", d)
	}

	// Two operators behind one lagging source: a is 4× short, b has four
	// times what it needs.
	in := &autoscale.Interval{Length: time.Second, Ops: []autoscale.Op{
		{Name: "src", Rate: 8000, Fixed: true, Instances: []autoscale.Instance{inst(2000, 2000, 0.01)}},
		{Name: "a", Inputs: []autoscale.Edge{{From: 0}}, Instances: []autoscale.Instance{inst(2000, 2000, 1)}},
		{Name: "b", Inputs: []autoscale.Edge{{From: 0}},
			Instances: []autoscale.Instance{inst(500, 500, 0.01), inst(500, 500, 0.01), inst(500, 500, 0.01), inst(500, 500, 0.01)}},
	}}
	ctl = newController(t, cfg(16))
	ctl.Observe(in)
	d, err := ctl.Observe(in)
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Parallelism(); d.Action != autoscale.Apply || got[1] != 5 || got[2] != 4 || d.Ops[2].Want != 1 {
		t.Errorf("%v", d)
	}
}

// TestDeadBand: an operator scales up only when it cannot keep up, to
// π plus 15% (at most π+1, at most Max); it scales down only when fewer
// instances keep 40% spare, to π plus 15%. In between it holds, even
// without the 15% spare.
func TestDeadBand(t *testing.T) {
	for _, c := range []struct {
		p         int
		need      float64
		want, max int
		rule      autoscale.Rule
	}{
		{p: 4, need: 3.9, want: 4, rule: autoscale.RuleDeadBand},
		{p: 4, need: 2.9, want: 4, rule: autoscale.RuleDeadBand}, // 3 instances would be 97% busy
		{p: 4, need: 2.4, want: 4, rule: autoscale.RuleDeadBand}, // 3 instances would be 80% busy
		{p: 4, need: 2.1, want: 3, rule: autoscale.RuleDown},     // 3 instances: 70%
		{p: 8, need: 4.2, want: 5, rule: autoscale.RuleDown},     // 6 would be 70% busy; to 5, 84%
		{p: 4, need: 0.5, want: 1, rule: autoscale.RuleDown},
		{p: 2, need: 3.5, want: 5, rule: autoscale.RuleUp}, // ⌈4.03⌉
		{p: 2, need: 7.0, want: 8, rule: autoscale.RuleUp}, // ⌈8.05⌉ = 9, but π+1 = 8
		{p: 2, need: 7.0, want: 7, max: 7, rule: autoscale.RuleUp},
		{p: 7, need: 9, want: 7, max: 7, rule: autoscale.RuleMax},
		{p: 4, need: 4.04, want: 5, rule: autoscale.RuleUp}, // 1% over: up, once activated
	} {
		conf := cfg(16)
		if c.max > 0 {
			conf.Max = c.max
		}
		conf.WarmUp, conf.Activation = 0, 1
		ctl := newController(t, conf)
		// The source keeps up (no immediate rule), so need = p·busy.
		d, err := ctl.Observe(pair(0, 8000, c.p, c.need/float64(c.p)))
		if err != nil {
			t.Fatal(err)
		}
		if o := d.Ops[1]; o.Want != c.want || o.Rule != c.rule {
			t.Errorf("p %d need %v: want %d [%s], got %d [%s]", c.p, c.need, c.want, c.rule, o.Want, o.Rule)
		}
		if hold := c.want == c.p; hold != (d.Action == autoscale.Hold) || hold == d.Changed() {
			t.Errorf("p %d need %v: %v", c.p, c.need, d)
		}
		if c.rule == autoscale.RuleMax && d.Reason != "op cannot keep up even with the most instances, 7" {
			t.Errorf("p %d need %v: reason %q", c.p, c.need, d.Reason)
		}
	}
}

// TestSaturatedGuard: an operator whose busiest instance is 95% busy or
// more is not scaled down, even when its target rate says it could be
// (here its source catches up on a backlog, reading twice its arrival
// rate).
func TestSaturatedGuard(t *testing.T) {
	conf := cfg(16)
	conf.WarmUp, conf.Activation = 0, 1
	ctl := newController(t, conf)
	d, err := ctl.Observe(pair(4000, 8000, 4, 0.96))
	if err != nil {
		t.Fatal(err)
	}
	if o := d.Ops[1]; d.Action != autoscale.Hold || o.Rule != autoscale.RuleSaturated || o.New != 4 {
		t.Errorf("%v", d)
	}
	d, _ = ctl.Observe(pair(4000, 8000, 4, 0.9))
	if o := d.Ops[1]; d.Action != autoscale.Apply || o.Rule != autoscale.RuleDown || o.New != 3 {
		t.Errorf("%v", d)
	}
}

// TestStages: operators chained in one stage get one parallelism, the
// highest any of them wants; a fixed one holds its stage. Here calc needs
// a tenth of an instance, agg 1.6 of its 2 (2.08 at the stated rate) and
// sink, alone in its stage, a tenth.
func TestStages(t *testing.T) {
	conf := cfg(16)
	conf.WarmUp, conf.Activation = 0, 1
	in := func(fixed bool) *autoscale.Interval {
		two := func(busy float64) []autoscale.Instance {
			return []autoscale.Instance{inst(1000, 1000, busy), inst(1000, 1000, busy)}
		}
		return &autoscale.Interval{Length: time.Second, Ops: []autoscale.Op{
			{Name: "src", Fixed: true, Instances: []autoscale.Instance{inst(2000, 2000, 0.01)}},
			{Name: "calc", Stage: 1, Inputs: []autoscale.Edge{{From: 0}}, Instances: two(0.05)},
			{Name: "agg", Stage: 1, Fixed: fixed, Inputs: []autoscale.Edge{{From: 1}}, Instances: two(0.8)},
			{Name: "sink", Stage: 2, Inputs: []autoscale.Edge{{From: 2}}, Instances: two(0.05)},
		}}
	}
	d, err := newController(t, conf).Observe(in(false))
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Parallelism(); got[1] != 2 || got[2] != 2 || got[3] != 1 || d.Ops[1].Rule != autoscale.RuleStage {
		t.Errorf("%v", d)
	}
	// agg wants 3 with a stated rate the stage cannot take; calc follows.
	withRate := in(false)
	withRate.Ops[0].Rate = 2600
	d, _ = newController(t, conf).Observe(withRate)
	if got := d.Parallelism(); got[1] != 3 || got[2] != 3 || d.Ops[1].Rule != autoscale.RuleStage || d.Ops[2].Rule != autoscale.RuleUp {
		t.Errorf("%v", d)
	}
	withRate = in(true)
	withRate.Ops[0].Rate = 2600
	d, _ = newController(t, conf).Observe(withRate)
	if got := d.Parallelism(); got[1] != 2 || got[2] != 2 || d.Ops[1].Rule != autoscale.RuleFixed {
		t.Errorf("%v", d)
	}
}

// TestLog: the controller keeps its last LogSize decisions, oldest first,
// each with the interval it was made in.
func TestLog(t *testing.T) {
	c := cfg(16)
	c.LogSize = 3
	ctl := newController(t, c)
	for range 5 {
		if _, err := ctl.Observe(pair(0, 8000, 2, 0.5)); err != nil {
			t.Fatal(err)
		}
	}
	log := ctl.Log()
	if len(log) != 3 || log[0].Interval != 3 || log[2].Interval != 5 {
		t.Errorf("log of %d: %v", len(log), log)
	}
	if _, err := ctl.Observe(&autoscale.Interval{}); err == nil || len(ctl.Log()) != 3 || ctl.Log()[2].Interval != 5 {
		t.Errorf("an invalid interval: %v, log %v", err, ctl.Log())
	}
}

// TestDecisionString: the text SHOW AUTOSCALE will print. b keeps up
// with its target exactly, so it takes its headroom in the change a
// makes.
func TestDecisionString(t *testing.T) {
	ctl := newController(t, cfg(16))
	in := chainInterval()
	ctl.Observe(in)
	d, err := ctl.Observe(in)
	if err != nil {
		t.Fatal(err)
	}
	want := `interval 2: apply (backpressured: source src reads 25% of its target 10k/s, scaling up at once)
  src: 1 → 1 [fixed] π 1 (need 0.20), λp 50k/s, λo 50k/s, busiest 5%, in 2.5k/s, target 10k/s
  a: 2 → 9 [up] π 8 (need 8.00), λp 1.25k/s, λo 625/s, busiest 100%, in 2.5k/s, target 10k/s
  b: 1 → 2 [headroom] π 1 (need 1.00), λp 5k/s, λo 5k/s, busiest 25%, in 1.25k/s, target 5k/s`
	if got := d.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestCheckAfterChange: the first interval after a change's warm-up
// checks it. An operator the change scaled that is left with less than
// half its UpHeadroom spare (its new instances slower than measured)
// scales up at once, and the others short of UpHeadroom take it with the
// change; an operator the change left alone is not checked.
func TestCheckAfterChange(t *testing.T) {
	in := func(pa, pb int, busyA, busyB float64, rate float64, read int64) *autoscale.Interval {
		a, b := make([]autoscale.Instance, pa), make([]autoscale.Instance, pb)
		for k := range a {
			a[k] = inst(read/int64(pa), read/int64(pa), busyA)
		}
		for k := range b {
			b[k] = inst(read/int64(pb), read/int64(pb), busyB)
		}
		return &autoscale.Interval{Length: time.Second, Ops: []autoscale.Op{
			{Name: "src", Rate: rate, Fixed: true, Instances: []autoscale.Instance{inst(read, read, 0.01)}},
			{Name: "a", Inputs: []autoscale.Edge{{From: 0}}, Instances: a},
			{Name: "b", Inputs: []autoscale.Edge{{From: 0}}, Instances: b},
		}}
	}
	type step struct {
		in           *autoscale.Interval
		act          autoscale.Action
		a, b         int
		ruleA, ruleB autoscale.Rule
		reason       string
	}
	// a is 2.5 times short of the source's 2500 rows/s and goes to 3; b
	// needs 0.8 and stays. After the warm-up, b needs 0.95.
	start := []step{
		{in: in(1, 1, 1, 0.32, 2500, 1000), act: autoscale.WarmingUp, a: 1, b: 1, ruleA: autoscale.RuleUp, ruleB: autoscale.RuleDeadBand},
		{in: in(1, 1, 1, 0.32, 2500, 1000), act: autoscale.Apply, a: 3, b: 1, ruleA: autoscale.RuleUp, ruleB: autoscale.RuleDeadBand, reason: "backpressured"},
		{in: in(3, 1, 0.967, 0.95, 0, 2500), act: autoscale.WarmingUp, a: 3, b: 1, ruleA: autoscale.RuleDeadBand, ruleB: autoscale.RuleDeadBand},
	}
	for name, steps := range map[string][]step{
		// At 3 instances a needs 2.9: its new instances are slower.
		"short": {
			{in: in(3, 1, 0.967, 0.95, 0, 2500), act: autoscale.Apply, a: 4, b: 2, ruleA: autoscale.RuleCheck, ruleB: autoscale.RuleHeadroom,
				reason: "left operators short"},
			{in: in(4, 2, 0.725, 0.475, 0, 2500), act: autoscale.WarmingUp, a: 4, b: 2, ruleA: autoscale.RuleDeadBand, ruleB: autoscale.RuleDeadBand},
			{in: in(4, 2, 0.725, 0.475, 0, 2500), act: autoscale.Hold, a: 4, b: 2, ruleA: autoscale.RuleDeadBand, ruleB: autoscale.RuleDeadBand},
		},
		// a needs the 2.5 it was given.
		"fine": {
			{in: in(3, 1, 0.833, 0.95, 0, 2500), act: autoscale.Hold, a: 3, b: 1, ruleA: autoscale.RuleDeadBand, ruleB: autoscale.RuleDeadBand},
		},
	} {
		ctl := newController(t, cfg(16))
		for i, s := range append(slices.Clone(start), steps...) {
			d, err := ctl.Observe(s.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := d.Parallelism(); d.Action != s.act || got[1] != s.a || got[2] != s.b || d.Ops[1].Rule != s.ruleA ||
				d.Ops[2].Rule != s.ruleB || !strings.Contains(d.Reason, s.reason) {
				t.Fatalf("%s, step %d: %v", name, i, d)
			}
		}
	}
}
