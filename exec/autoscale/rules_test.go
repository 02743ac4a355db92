package autoscale

import (
	"math"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec"
)

// TestKeyGroupLayout: the controller's idea of which instance owns a key
// group is eddy's.
func TestKeyGroupLayout(t *testing.T) {
	if keyGroups != exec.NumKeyGroups {
		t.Fatalf("keyGroups %d, exec.NumKeyGroups %d", keyGroups, exec.NumKeyGroups)
	}
	for p := 1; p <= 64; p++ {
		for i := range p {
			r := exec.KeyGroupsOf(i, p)
			if firstGroup(i, p) != r.Lo || firstGroup(i+1, p) != r.Hi {
				t.Fatalf("instance %d of %d: [%d, %d), eddy [%d, %d)", i, p, firstGroup(i, p), firstGroup(i+1, p), r.Lo, r.Hi)
			}
			for g := r.Lo; g < r.Hi; g++ {
				if owner(g, p) != i || exec.InstanceForKeyGroup(g, p) != i {
					t.Fatalf("group %d of %d instances: owner %d, want %d", g, p, owner(g, p), i)
				}
			}
		}
	}
}

// TestSkewedDown: an operator of 8 instances whose two first hold its hot
// keys (60% and 40% busy; the others 5%) needs 4.8 instances by DS2,
// which would have it go to 6. But instance 0 of 6 or of 7 owns key groups
// of both hot instances, and would be fully busy: it holds. With the
// second instance as idle as the rest, instance 0 of 6 would be 66% busy:
// it goes to 6.
func TestSkewedDown(t *testing.T) {
	in := func(second float64) *Interval {
		insts := make([]Instance, 8)
		var rows int64
		for k := range insts {
			busy := 0.05
			switch k {
			case 0:
				busy = 0.6
			case 1:
				busy = second
			}
			insts[k] = Instance{RowsIn: int64(busy * 5000), RowsOut: int64(busy * 5000), Busy: time.Duration(busy * float64(time.Second))}
			rows += insts[k].RowsIn
		}
		return &Interval{Length: time.Second, Ops: []Op{
			{Name: "src", Fixed: true, Instances: []Instance{{RowsIn: rows, RowsOut: rows, Busy: time.Second / 100}}},
			{Name: "hot", Inputs: []Edge{{From: 0}}, Instances: insts},
		}}
	}
	cfg := DefaultConfig()
	cfg.Max, cfg.WarmUp, cfg.Activation = 16, 0, 1
	ctl, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d, err := ctl.Observe(in(0.4))
	if err != nil {
		t.Fatal(err)
	}
	if o := d.Ops[1]; math.Abs(o.Need-4.8) > 1e-6 || math.Abs(o.Imbalance-0.6/(1.3/8)) > 1e-6 || o.Rule != RuleSkew || o.New != 8 {
		t.Errorf("%v (imbalance %.2f)", d, o.Imbalance)
	}
	d, err = ctl.Observe(in(0.05))
	if err != nil {
		t.Fatal(err)
	}
	if o := d.Ops[1]; o.Rule != RuleDown || o.New != 6 {
		t.Errorf("%v", d)
	}
}
