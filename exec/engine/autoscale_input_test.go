package engine

import (
	"testing"
	"time"

	"github.com/eddysql/eddy/exec/autoscale"
)

// TestAutoscaleIntervalOfARunningQuery builds the DS2 controller's input
// from a running two-stage query (a source and its chain, then an
// aggregate behind a hash exchange): one operator per figure, chained
// operators reading their predecessor, the exchange's reader the last
// operator of the stage before, the source's target rate its input's
// arrival rate; and the policy accepts it.
func TestAutoscaleIntervalOfARunningQuery(t *testing.T) {
	s := newSession(t, Config{Parallelism: 2})
	run(t, s, `CREATE STREAM bid WITH (connector = 'nexmark', table = 'bid', rate = '20000');
		CREATE MATERIALIZED VIEW per AS SELECT auction % 7 AS k, COUNT(*) AS n FROM bid GROUP BY auction % 7;`)
	q := query(s.eng, "per")
	before, at := q.job.InstanceStats(), time.Now()
	time.Sleep(300 * time.Millisecond)
	after := q.job.InstanceStats()
	in := autoscaleInterval(q.graph, before, after, time.Since(at))
	if in == nil {
		t.Fatal("no interval")
	}
	if len(in.Ops) != len(after) {
		t.Fatalf("%d operators for %d figures", len(in.Ops), len(after))
	}
	sources := 0
	for i, op := range in.Ops {
		if len(op.Instances) != len(after[i]) || op.Stage == 0 {
			t.Errorf("op %d %s: %d instances, stage %d", i, op.Name, len(op.Instances), op.Stage)
		}
		if len(op.Inputs) == 0 {
			sources++
			if op.Rate < 5000 || op.Rate > 40000 {
				t.Errorf("source %s: target rate %.0f, want about the generator's 20,000/s", op.Name, op.Rate)
			}
		}
		for _, e := range op.Inputs {
			if e.From < 0 || e.From >= i {
				t.Errorf("op %d %s reads op %d", i, op.Name, e.From)
			}
		}
	}
	if sources != 1 {
		t.Errorf("%d sources", sources)
	}
	if _, err := autoscale.DefaultConfig().Policy(in); err != nil {
		t.Fatalf("the policy refuses the interval: %v", err)
	}
	// Snapshots of different parallelisms make no interval.
	if autoscaleInterval(q.graph, before, after[:len(after)-1], time.Second) != nil {
		t.Error("an interval from mismatched snapshots")
	}
}
