package engine

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec/dataflow"
)

// TestStateLimitFailsOnlyTheGrowingQuery: a view whose state would pass the
// engine's state memory limit fails alone, with an error naming its
// operator and its state; the other views keep running; after a restart
// the failed view is listed as failed (the engine opens, it does not
// crash-loop) and can be dropped.
func TestStateLimitFailsOnlyTheGrowingQuery(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{DataDir: dir, Parallelism: 2, StateMemoryLimit: 256 << 10}
	e, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := e.NewSession(SessionOptions{})
	run(t, s, `
		CREATE STREAM ev (k BIGINT, payload VARCHAR);
		CREATE MATERIALIZED VIEW small AS SELECT k % 4 AS g, COUNT(*) AS n FROM ev GROUP BY k % 4;
		CREATE MATERIALIZED VIEW big AS SELECT a.k, a.payload, b.payload AS other FROM ev AS a JOIN ev AS b ON a.k = b.k;`)
	// 4,000 rows of 100-byte payloads: the join keeps both sides (about
	// 1 MB) and the view its output; the grouped view keeps 4 groups.
	var b strings.Builder
	for i := 0; i < 4000; i++ {
		if i%500 == 0 {
			if b.Len() > 0 {
				run(t, s, strings.TrimSuffix(b.String(), ",")+";")
			}
			b.Reset()
			b.WriteString("INSERT INTO ev VALUES ")
		}
		b.WriteString("(")
		b.WriteString(strconv.Itoa(i))
		b.WriteString(", '")
		b.WriteString(strings.Repeat("x", 100))
		b.WriteString("'),")
	}
	run(t, s, strings.TrimSuffix(b.String(), ",")+";")
	execOne(t, s, "FLUSH;") // reports big's failure; small must be complete

	e.mu.Lock()
	bigJob, smallJob := e.queries["big"].job, e.queries["small"].job
	e.mu.Unlock()
	state, jerr := bigJob.State()
	if state != dataflow.JobFailed {
		t.Fatalf("big is %v, want failed", state)
	}
	var sle *dataflow.StateLimitError
	if !errors.As(jerr, &sle) || !errors.Is(jerr, dataflow.ErrStateLimit) {
		t.Fatalf("big failed with %v, want a StateLimitError", jerr)
	}
	if !regexp.MustCompile(`state memory limit exceeded: the state of all queries reached [0-9.]+ KiB, over the limit of 256.00 KiB; this query held the most, [0-9.]+ KiB, of which (HashJoin Inner keys=\[a.k = b.k\]|Materialize big) held [0-9.]+ KiB`).MatchString(jerr.Error()) {
		t.Errorf("error does not name the operator and its state: %v", jerr)
	}
	if st, _ := smallJob.State(); st != dataflow.JobRunning {
		t.Fatalf("small is %v, want running", st)
	}
	if got := text(run(t, s, "SELECT SUM(n) FROM small;")); got != "4000\n" {
		t.Errorf("small holds %q, want 4000", got)
	}
	views := text(run(t, s, "SHOW MATERIALIZED VIEWS;"))
	if !regexp.MustCompile(`(?m)^big \| failed: .*state memory limit exceeded`).MatchString(views) {
		t.Errorf("SHOW MATERIALIZED VIEWS does not list big as failed:\n%s", views)
	}
	// The failed query's state went back to the budget: what it holds is
	// small's.
	var smallBytes int64
	for _, op := range smallJob.Stats() {
		smallBytes += op.StateBytes
	}
	if used := e.state.Used(); used != smallBytes {
		t.Errorf("the budget holds %d bytes after big failed, small's state is %d", used, smallBytes)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	// Restart: big replays, fails again at the limit, and is listed as
	// failed; the engine opens and small answers.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e, err = Open(ctx, cfg)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer e.Close()
	s = e.NewSession(SessionOptions{})
	views = text(run(t, s, "SHOW MATERIALIZED VIEWS;"))
	if !regexp.MustCompile(`(?m)^big \| failed: .*state memory limit exceeded`).MatchString(views) ||
		!regexp.MustCompile(`(?m)^small \| running`).MatchString(views) {
		t.Errorf("after restart:\n%s", views)
	}
	if got := text(run(t, s, "SELECT SUM(n) FROM small;")); got != "4000\n" {
		t.Errorf("small holds %q after restart, want 4000", got)
	}
	run(t, s, "DROP MATERIALIZED VIEW big;")
	if _, err := execOne(t, s, "FLUSH;"); err != nil {
		t.Errorf("FLUSH after dropping the failed view: %v", err)
	}
}
