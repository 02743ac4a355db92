package expr

import (
	"slices"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// TestAskProbe checks which conjunct a filter asks to probe, from figures
// set by hand: one behind a selective conjunct whose cost over a batch,
// by its figures, is within what the one ahead took in the look; not one
// that would cost more than it could save, not one that sees whole
// batches, not one that can fail or sits behind one that can; and none
// while the wait after a change of order runs.
func TestAskProbe(t *testing.T) {
	in := []types.T{bigint, bigint}
	eq := &plan.Binary{Op: plan.OpEq, L: col(0, bigint), R: litI(3), Typ: boolT}
	lt := &plan.Binary{Op: plan.OpLt, L: col(1, bigint), R: litI(5), Typ: boolT}
	fails := &plan.Binary{Op: plan.OpGt, L: &plan.Binary{Op: plan.OpAdd, L: col(1, bigint), R: litI(1), Typ: bigint}, R: litI(0), Typ: boolT}
	// A look of 32 batches of 1,024 rows: the first conjunct keeps 5 rows
	// a batch and took 20 ns a row; the second, on those 5 rows a call,
	// measured costPerRow.
	figures := func(p *Program, costPerRow float64) {
		p.stats[0] = conjStats{in: 32768, kept: 160, ns: 20 * 32768, fresh: 32768, calls: 32, freshNs: 20 * 32768}
		p.stats[1] = conjStats{in: 160, kept: 80, ns: costPerRow * 160, fresh: 160, calls: 32, freshNs: costPerRow * 160}
	}
	for _, tc := range []struct {
		name       string
		filter     plan.Expr
		costPerRow float64
		wait       int
		want       int
	}{
		{"cheap behind selective", &plan.And{Args: []plan.Expr{eq, lt}}, 200, 0, 1},
		{"dearer than it could save", &plan.And{Args: []plan.Expr{eq, lt}}, 1000, 0, -1},
		{"while the wait runs", &plan.And{Args: []plan.Expr{eq, lt}}, 200, 1, -1},
		{"can fail", &plan.And{Args: []plan.Expr{eq, fails}}, 200, 0, -1},
		{"behind one that can fail", &plan.And{Args: []plan.Expr{fails, lt}}, 200, 0, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := CompileProgram(tc.filter, []plan.Expr{col(0, bigint)}, in)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.conj) != 2 {
				t.Fatalf("%d conjuncts, want 2", len(p.conj))
			}
			figures(p, tc.costPerRow)
			p.probes.wait = tc.wait
			p.askProbe()
			if p.probes.next != tc.want {
				t.Fatalf("asked to probe %d, want %d", p.probes.next, tc.want)
			}
		})
	}
	// One that sees whole batches is measured well enough.
	p, err := CompileProgram(&plan.And{Args: []plan.Expr{lt, eq}}, []plan.Expr{col(0, bigint)}, in)
	if err != nil {
		t.Fatal(err)
	}
	figures(p, 2)
	p.stats[1].fresh, p.stats[1].in = 32000, 32000
	p.probes.wait = 0
	if p.askProbe(); p.probes.next != -1 {
		t.Fatalf("asked to probe %d behind a conjunct that keeps nearly every row", p.probes.next)
	}
}

// TestProbeWait checks the looks a filter waits between probes: a probe
// that moves nothing doubles the wait, from 4 up to maxProbeWait; a
// re-ranking leaves at least probeSettle looks before the next.
func TestProbeWait(t *testing.T) {
	pr := newProbes()
	if pr.wait != probeSettle || pr.next != -1 {
		t.Fatalf("a new filter waits %d looks, next %d", pr.wait, pr.next)
	}
	var waits []int
	for range 8 {
		pr.looked(false, true)
		waits = append(waits, pr.wait)
	}
	if want := []int{4, 8, 16, 32, 64, 128, 256, 256}; !slices.Equal(waits, want) {
		t.Fatalf("waits after probes that moved nothing %v, want %v", waits, want)
	}
	pr.wait = 0
	pr.looked(true, true)
	if pr.wait != probeSettle {
		t.Fatalf("wait after a re-ranking %d, want %d", pr.wait, probeSettle)
	}
	pr.looked(false, false)
	if pr.wait != probeSettle {
		t.Fatalf("a look without a probe changed the wait to %d", pr.wait)
	}
}
