package engine

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// checkpointedEngine opens an engine at parallelism p on a new data
// directory, whose queries are checkpointed when a test says so (their
// interval is an hour), and a session of it; restart and crash reopen it
// with the Config it returns.
func checkpointedEngine(t *testing.T, p int) (*Engine, *Session, Config) {
	t.Helper()
	cfg := Config{DataDir: filepath.Join(t.TempDir(), "data"), Parallelism: p, CheckpointInterval: time.Hour}
	e := openEngine(t, cfg)
	return e, e.NewSession(SessionOptions{}), cfg
}

// query returns e's running query name (nil if there is none).
func query(e *Engine, name string) *runningQuery {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.queries[name]
}

// checkpointNow has query name take a checkpoint and returns its epoch.
func checkpointNow(t *testing.T, e *Engine, name string) uint64 {
	t.Helper()
	epoch, err := query(e, name).job.CheckpointNext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return epoch
}

// wantNotice fails t unless a notice of res contains every one of parts.
func wantNotice(t *testing.T, res *Result, parts ...string) {
	t.Helper()
	if !slices.ContainsFunc(res.Notices, func(n string) bool {
		return !slices.ContainsFunc(parts, func(p string) bool { return !strings.Contains(n, p) })
	}) {
		t.Errorf("no notice says %q: %q", parts, res.Notices)
	}
}

// waitCheckpoint waits until view's query has committed a checkpoint that
// began after every row flushed so far, and returns its epoch.
func waitCheckpoint(t *testing.T, e *Engine, view string) uint64 {
	t.Helper()
	q := query(e, lower(view))
	if q == nil || q.state == nil {
		t.Fatalf("%s is not checkpointed", view)
	}
	since := time.Now()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		for _, c := range q.job.Checkpoints() {
			if c.Err == nil && c.Start.After(since) {
				return c.Epoch
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("%s took no checkpoint (resumable: %v; checkpoints %v)", view, q.job.Resumable(), q.job.Checkpoints())
	return 0
}

// checkpointAll checkpoints every checkpointed query, as their interval
// would.
func checkpointAll(t *testing.T, e *Engine) {
	t.Helper()
	if err := e.checkpointQueries(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
}

// restart closes e and opens an engine with cfg, closed when t ends, and a
// session of it.
func restart(t *testing.T, e *Engine, cfg Config) (*Engine, *Session) {
	t.Helper()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return reopen(t, cfg)
}

// crash stops e as a crash would — no last checkpoint, so what the last
// checkpoints did not commit is lost — and opens an engine with cfg on
// the same data, closed when t ends, with a session of it.
func crash(t *testing.T, e *Engine, cfg Config) (*Engine, *Session) {
	t.Helper()
	if err := e.halt(); err != nil {
		t.Fatal(err)
	}
	return reopen(t, cfg)
}

// reopen opens an engine with cfg, closed when t ends, and a session of
// it.
func reopen(t *testing.T, cfg Config) (*Engine, *Session) {
	t.Helper()
	e := openEngine(t, cfg)
	t.Cleanup(func() { e.Close() })
	return e, e.NewSession(SessionOptions{})
}

// stateBytes returns the size of the committed state q's store holds.
func stateBytes(t *testing.T, q *runningQuery) int64 {
	t.Helper()
	n, err := q.state.store.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// sorted sorts the lines of a text result.
func sorted(s string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n") + "\n"
}
