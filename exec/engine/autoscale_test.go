package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec/autoscale"
)

// autoscalerOf returns the running controller of the query name.
func autoscalerOf(t *testing.T, e *Engine, name string) *autoscaler {
	t.Helper()
	e.scale.mu.Lock()
	defer e.scale.mu.Unlock()
	a := e.scale.byName[name]
	if a == nil {
		t.Fatalf("%s has no controller", name)
	}
	return a
}

// TestAutoscaleAppliesDecisions hands a query's controller a decision to
// go from one instance to two, then one that holds: the first rescales the
// running query, the second does nothing, and SHOW AUTOSCALE lists both
// with what they did; the view's rows are those of every insert.
func TestAutoscaleAppliesDecisions(t *testing.T) {
	cfg := Config{DataDir: filepath.Join(t.TempDir(), "data"), Parallelism: 1, CheckpointInterval: time.Hour}
	e, s := reopen(t, cfg)
	run(t, s, `SET autoscale = 'ds2';
		CREATE STREAM s (k BIGINT, v BIGINT);
		CREATE MATERIALIZED VIEW per AS SELECT k, SUM(v) AS total FROM s GROUP BY k;
		INSERT INTO s VALUES (1, 10), (2, 20), (1, 5);
		FLUSH;`)
	a, q := autoscalerOf(t, e, "per"), query(e, "per")
	grow := autoscale.Decision{Interval: 3, Action: autoscale.Apply, Reason: "a test",
		Ops: []autoscale.OpDecision{{Estimate: autoscale.Estimate{Name: "HashAggregate", Parallelism: 1}, Want: 2, New: 2}}}
	e.applyDecision(context.Background(), a, q, grow)
	if got := query(e, "per").job.Parallelism(); got != 2 {
		t.Fatalf("parallelism %d after the decision, want 2", got)
	}
	hold := autoscale.Decision{Interval: 4, Action: autoscale.Hold,
		Ops: []autoscale.OpDecision{{Estimate: autoscale.Estimate{Name: "HashAggregate", Parallelism: 2}, Want: 2, New: 2}}}
	e.applyDecision(context.Background(), a, query(e, "per"), hold)
	run(t, s, "INSERT INTO s VALUES (2, 1); FLUSH;")
	if got := sorted(text(run(t, s, "SELECT k, total FROM per"))); got != sorted("1 | 15\n2 | 21") {
		t.Fatalf("view after the rescale: %q", got)
	}
	show := text(run(t, s, "SHOW AUTOSCALE"))
	lines := strings.Split(strings.TrimSpace(show), "\n")
	var mine []string
	for _, l := range lines {
		if strings.HasPrefix(l, "per | ") && (strings.Contains(l, " | 3 | apply | ") || strings.Contains(l, " | 4 | hold | ")) {
			mine = append(mine, l)
		}
	}
	if len(mine) != 2 || !strings.Contains(mine[0], " | 1 | 2 | rescaled 1 → 2, paused ") || !strings.Contains(mine[1], " | 2 | 2 |  | ") {
		t.Fatalf("SHOW AUTOSCALE:\n%s", show)
	}
}

// TestAutoscaleRuns runs a query with SET autoscale = 'ds2' and a short
// policy interval while rows arrive: its controller observes the running
// job every interval and logs its decisions (SHOW AUTOSCALE), again after
// a restart, and stops when the query is dropped.
func TestAutoscaleRuns(t *testing.T) {
	cfg := Config{DataDir: filepath.Join(t.TempDir(), "data"), Parallelism: 1, CheckpointInterval: time.Hour, AutoscaleMax: 2}
	e, s := reopen(t, cfg)
	run(t, s, `SET autoscale = 'ds2';
		SET policy_interval = '100ms';
		CREATE STREAM s (k BIGINT, v BIGINT);
		CREATE MATERIALIZED VIEW per AS SELECT k, COUNT(*) AS n FROM s GROUP BY k;`)
	insertWhile := func(s *Session, stop <-chan struct{}) *sync.WaitGroup {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				case <-time.After(5 * time.Millisecond):
				}
				if _, err := execOne(t, s, fmt.Sprintf("INSERT INTO s VALUES (%d, %d), (%d, 1)", i%5, i, i%3)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
		return &wg
	}
	decisions := func(s *Session) []string {
		var out []string
		for _, l := range strings.Split(strings.TrimSpace(text(run(t, s, "SHOW AUTOSCALE"))), "\n") {
			if strings.HasPrefix(l, "per | ") {
				out = append(out, l)
			}
		}
		return out
	}
	for round := range 2 {
		stop := make(chan struct{})
		wg := insertWhile(s, stop)
		deadline := time.Now().Add(20 * time.Second)
		for len(decisions(s)) < 3 && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		close(stop)
		wg.Wait()
		got := decisions(s)
		if len(got) < 3 {
			t.Fatalf("round %d: %d decisions in 20s: %q", round, len(got), got)
		}
		for _, l := range got {
			if !strings.Contains(l, "| interval ") {
				t.Fatalf("round %d: decision %q", round, l)
			}
		}
		if round == 0 {
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			e, s = reopen(t, cfg)
		}
	}
	run(t, s, "DROP MATERIALIZED VIEW per")
	deadline := time.Now().Add(10 * time.Second)
	for {
		e.scale.mu.Lock()
		n := len(e.scale.byName)
		e.scale.mu.Unlock()
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the dropped query's controller still runs")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := execOne(t, s, "SET autoscale = 'lots'"); err == nil || !strings.Contains(err.Error(), "autoscale must be 'ds2' or 'off'") {
		t.Fatalf("a bad setting: %v", err)
	}
}

// TestAutoscaleGlobal: with the engine's Autoscale (eddy --autoscale ds2),
// a query whose session did not SET autoscale gets a controller, and one
// whose session SET autoscale = 'off' does not.
func TestAutoscaleGlobal(t *testing.T) {
	e, s := reopen(t, Config{DataDir: filepath.Join(t.TempDir(), "data"), Parallelism: 1, Autoscale: "ds2"})
	run(t, s, `CREATE STREAM s (k BIGINT);
		CREATE MATERIALIZED VIEW on_by_default AS SELECT k, COUNT(*) AS n FROM s GROUP BY k;
		SET autoscale = 'off';
		CREATE MATERIALIZED VIEW off AS SELECT k, COUNT(*) AS n FROM s GROUP BY k;`)
	autoscalerOf(t, e, "on_by_default")
	e.scale.mu.Lock()
	_, has := e.scale.byName["off"]
	e.scale.mu.Unlock()
	if has {
		t.Fatal("a query whose session SET autoscale = 'off' has a controller")
	}
}
