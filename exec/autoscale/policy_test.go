package autoscale_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec/autoscale"
)

// inst is an instance that processed in rows, produced out and was busy
// for busy seconds.
func inst(in, out int64, busy float64) autoscale.Instance {
	return autoscale.Instance{RowsIn: in, RowsOut: out, Busy: time.Duration(busy * float64(time.Second))}
}

func cfg(max int) autoscale.Config {
	c := autoscale.DefaultConfig()
	c.Max = max
	return c
}

func near(got, want float64) bool { return math.Abs(got-want) <= 1e-6*math.Max(1, math.Abs(want)) }

// chainInterval is src → a → b over one second: the source's input
// arrives at 10000 rows/s but a (2 instances of 1250 rows per busy
// second) is the bottleneck, so only 2500 rows/s flow; b (1 instance of
// 5000 rows per busy second) is a quarter busy.
func chainInterval() *autoscale.Interval {
	return &autoscale.Interval{Length: time.Second, Ops: []autoscale.Op{
		{Name: "src", Rate: 10000, Fixed: true, Instances: []autoscale.Instance{inst(2500, 2500, 0.05)}},
		{Name: "a", Inputs: []autoscale.Edge{{From: 0}}, Instances: []autoscale.Instance{inst(1250, 625, 1), inst(1250, 625, 1)}},
		{Name: "b", Inputs: []autoscale.Edge{{From: 1}}, Instances: []autoscale.Instance{inst(1250, 1250, 0.25)}},
	}}
}

// TestPolicyChain: the true rates come from busy time, not from the
// capped observed rates, and targets propagate by selectivity — so the
// bottleneck gets the parallelism that keeps up in one step, and so does
// the operator behind it, which is not busy at all now.
func TestPolicyChain(t *testing.T) {
	est, err := cfg(16).Policy(chainInterval())
	if err != nil {
		t.Fatal(err)
	}
	a, b := est[1], est[2]
	if !near(a.ProcRate, 1250) || !near(a.OutRate, 625) || !near(a.Target, 10000) || !near(a.TargetOut, 5000) ||
		!near(a.Need, 8) || a.Optimal != 8 || !near(a.Busiest, 1) || !near(a.Observed, 2500) {
		t.Errorf("a: %+v", a)
	}
	if !near(b.ProcRate, 5000) || !near(b.Target, 5000) || !near(b.Need, 1) || b.Optimal != 1 {
		t.Errorf("b: %+v", b)
	}
	if !est[0].Source || est[1].Source || !est[0].Fixed {
		t.Errorf("source flags: %+v", est[:2])
	}
	// Bounded by Max.
	if est, _ := cfg(5).Policy(chainInterval()); est[1].Optimal != 5 {
		t.Errorf("a at Max 5: π %d", est[1].Optimal)
	}
	// Without a stated rate a source's target is what it read, and the
	// dataflow keeps up with that.
	in := chainInterval()
	in.Ops[0].Rate = 0
	if est, _ := cfg(16).Policy(in); est[1].Optimal != 2 || !near(est[0].Target, 2500) {
		t.Errorf("without a rate: a's π %d, source target %v", est[1].Optimal, est[0].Target)
	}
}

// TestPolicySkew: an operator is as fast as its busiest instance. One
// instance with four times the rows of the others (a hot key) makes the
// operator need 3.2 instances, where the mean rate would say 1.4; an
// instance half as fast as the other makes it need 3.6, not 2.4.
func TestPolicySkew(t *testing.T) {
	in := &autoscale.Interval{Length: time.Second, Ops: []autoscale.Op{
		{Name: "src", Instances: []autoscale.Instance{inst(7000, 7000, 0.1)}},
		{Name: "hot", Inputs: []autoscale.Edge{{From: 0}},
			Instances: []autoscale.Instance{inst(4000, 4000, 0.8), inst(1000, 1000, 0.2), inst(1000, 1000, 0.2), inst(1000, 1000, 0.2)}},
	}}
	est, err := cfg(16).Policy(in)
	if err != nil {
		t.Fatal(err)
	}
	if e := est[1]; !near(e.Need, 3.2) || e.Optimal != 4 || !near(e.ProcRate, 5000) || !near(e.Busiest, 0.8) {
		t.Errorf("hot: %+v", e)
	}
	in = &autoscale.Interval{Length: time.Second, Ops: []autoscale.Op{
		{Name: "src", Rate: 4000, Instances: []autoscale.Instance{inst(2000, 2000, 0.1)}},
		{Name: "slow", Inputs: []autoscale.Edge{{From: 0}}, Instances: []autoscale.Instance{inst(1000, 1000, 0.9), inst(1000, 1000, 0.3)}},
	}}
	est, err = cfg(16).Policy(in)
	if err != nil {
		t.Fatal(err)
	}
	if e := est[1]; !near(e.Need, 3.6) || e.Optimal != 4 {
		t.Errorf("slow: %+v", e)
	}
}

// TestPolicyBroadcast: rows over a broadcast edge reach every instance,
// so only the hashed rows divide: p ≥ hashed / (rate − broadcast).
func TestPolicyBroadcast(t *testing.T) {
	in := func(rateA, rateB float64) *autoscale.Interval {
		return &autoscale.Interval{Length: time.Second, Ops: []autoscale.Op{
			{Name: "a", Rate: rateA, Instances: []autoscale.Instance{inst(8000, 8000, 0.1)}},
			{Name: "b", Rate: rateB, Instances: []autoscale.Instance{inst(1000, 1000, 0.1)}},
			{Name: "join", Inputs: []autoscale.Edge{{From: 0}, {From: 1, Broadcast: true}},
				Instances: []autoscale.Instance{inst(5000, 500, 0.5), inst(5000, 500, 0.5)}},
		}}
	}
	est, err := cfg(16).Policy(in(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	// Each instance does 10000 rows per busy second and must take the
	// 1000 broadcast rows: 8000 hashed rows need 8000/9000 instances.
	if j := est[2]; !near(j.Observed, 9000) || !near(j.Broadcast, 1000) || !near(j.Target, 9000) ||
		!near(j.Need, 8000.0/9000) || j.Optimal != 1 || !near(j.TargetOut, 1000) {
		t.Errorf("join: %+v", j)
	}
	// At 20000 hashed rows/s: 20000/9000 = 2.2 → 3 (at 2 an instance
	// would take 11000 rows/s).
	if est, _ := cfg(16).Policy(in(20000, 0)); est[2].Optimal != 3 {
		t.Errorf("join at 20000: %+v", est[2])
	}
	// More broadcast rows than an instance can take: no parallelism is
	// enough, so the most.
	if est, _ := cfg(16).Policy(in(0, 12000)); !math.IsInf(est[2].Need, 1) || est[2].Optimal != 16 {
		t.Errorf("join at 12000 broadcast: %+v", est[2])
	}
}

// TestPolicyUnknown: an operator with too few rows or no busy time keeps
// its parallelism, and passes its target on at its observed selectivity.
func TestPolicyUnknown(t *testing.T) {
	in := &autoscale.Interval{Length: time.Second, Ops: []autoscale.Op{
		{Name: "src", Rate: 100, Instances: []autoscale.Instance{inst(50, 50, 0.01)}},
		{Name: "few", Inputs: []autoscale.Edge{{From: 0}}, Instances: []autoscale.Instance{inst(50, 25, 0.5), inst(0, 0, 0), inst(0, 0, 0)}},
		{Name: "idle", Inputs: []autoscale.Edge{{From: 1}}, Instances: []autoscale.Instance{inst(0, 0, 0), inst(0, 0, 0)}},
	}}
	est, err := cfg(16).Policy(in)
	if err != nil {
		t.Fatal(err)
	}
	if e := est[1]; e.Known || e.Optimal != 3 || !near(e.TargetOut, 50) {
		t.Errorf("few: %+v", e)
	}
	if e := est[2]; e.Known || e.Optimal != 2 || !near(e.Target, 50) {
		t.Errorf("idle: %+v", e)
	}
	// With MinRows 10 the 50 rows are enough. All of them went to one
	// instance, 50% busy at half the target rate: as skewed at any
	// parallelism, the operator needs its 3 instances.
	c := cfg(16)
	c.MinRows = 10
	if est, _ := c.Policy(in); !est[1].Known || !near(est[1].Need, 3) || est[1].Optimal != 3 {
		t.Errorf("few with MinRows 10: %+v", est[1])
	}
}

// TestPolicyInvalid: what the policy cannot use is an error wrapping
// ErrInvalid.
func TestPolicyInvalid(t *testing.T) {
	one := []autoscale.Instance{inst(1, 1, 0.1)}
	for name, in := range map[string]*autoscale.Interval{
		"no length":    {Ops: []autoscale.Op{{Instances: one}}},
		"no operators": {Length: time.Second},
		"no instances": {Length: time.Second, Ops: []autoscale.Op{{}}},
		"bad edge":     {Length: time.Second, Ops: []autoscale.Op{{Instances: one, Inputs: []autoscale.Edge{{From: 3}}}}},
		"self edge":    {Length: time.Second, Ops: []autoscale.Op{{Instances: one, Inputs: []autoscale.Edge{{From: 0}}}}},
		"cycle": {Length: time.Second, Ops: []autoscale.Op{{Instances: one},
			{Instances: one, Inputs: []autoscale.Edge{{From: 0}, {From: 2}}}, {Instances: one, Inputs: []autoscale.Edge{{From: 1}}}}},
		"negative": {Length: time.Second, Ops: []autoscale.Op{{Instances: []autoscale.Instance{{RowsIn: -1}}}}},
		"rate":     {Length: time.Second, Ops: []autoscale.Op{{Instances: one, Rate: math.NaN()}}},
		"stage": {Length: time.Second, Ops: []autoscale.Op{{Instances: one, Stage: 1},
			{Instances: []autoscale.Instance{{}, {}}, Stage: 1, Inputs: []autoscale.Edge{{From: 0}}}}},
	} {
		if _, err := cfg(4).Policy(in); !errors.Is(err, autoscale.ErrInvalid) {
			t.Errorf("%s: %v", name, err)
		}
	}
	bad := autoscale.DefaultConfig()
	bad.DownHeadroom = 0.1 // below UpHeadroom: no dead band
	if _, err := autoscale.New(bad); !errors.Is(err, autoscale.ErrInvalid) {
		t.Errorf("down headroom below up: %v", err)
	}
	if _, err := autoscale.New(autoscale.Config{}); !errors.Is(err, autoscale.ErrInvalid) {
		t.Errorf("zero config: %v", err)
	}
}

// TestArrivalRate: rows read plus the backlog's growth, per second.
func TestArrivalRate(t *testing.T) {
	if r := autoscale.ArrivalRate(2500, 1000, 8500, time.Second/2); !near(r, 20000) {
		t.Errorf("growing backlog: %v", r)
	}
	if r := autoscale.ArrivalRate(3000, 1000, 0, time.Second); !near(r, 2000) {
		t.Errorf("draining backlog: %v", r)
	}
	if r := autoscale.ArrivalRate(10, 0, 0, 0); r != 0 {
		t.Errorf("no time: %v", r)
	}
}
