package join

import (
	"context"
	"testing"
	"time"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/planner/plan"
)

// ttlRig is a LEFT JOIN on k of (k, v) rows with a state TTL of 1600ms
// (granularity 100ms) on a fake clock.
type ttlRig struct {
	t   *testing.T
	j   *HashJoin
	env *exec.Env
	now time.Time
	out *exectest.Collector
}

func newTTLRig(t *testing.T, kind plan.JoinKind) *ttlRig {
	ts := []types.T{types.BigIntT, types.VarcharT}
	r := &ttlRig{t: t, now: time.UnixMilli(1_700_000_000_000), out: exectest.NewCollector(t, exectest.CollectorOptions{})}
	r.j = NewHashJoin(Config{Kind: kind, Left: ts, Right: ts, LeftKeys: []int{0}, RightKeys: []int{0},
		Names: []string{"lk", "lv", "rk", "rv"}, StateTTL: 1600 * time.Millisecond})
	r.env = exec.NewTestEnv(exectest.Alloc(t))
	r.env.Clock = func() time.Time { return r.now }
	if err := r.j.Open(context.Background(), r.env); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.j.Close() })
	return r
}

// send feeds rows ("+I 1 a", ...) to input in and returns the output.
func (r *ttlRig) send(in int, rows string) string {
	r.t.Helper()
	ch := exectest.Chunk(r.t, r.env.Alloc, "bigint varchar\n"+rows)
	defer ch.Batch.Release()
	if err := r.j.Process(context.Background(), in, ch, r.out); err != nil {
		r.t.Fatal(err)
	}
	return r.out.Take()
}

// wait moves the clock and fires the timer if it is due.
func (r *ttlRig) wait(d time.Duration) {
	r.t.Helper()
	r.now = r.now.Add(d)
	if due := r.j.NextTimer(); !due.IsZero() && !r.now.Before(due) {
		if err := r.j.OnTimer(context.Background(), r.now, r.out); err != nil {
			r.t.Fatal(err)
		}
	}
	if s := r.out.Take(); s != "" {
		r.t.Fatalf("the timer emitted %s", s)
	}
}

func (r *ttlRig) count(name string) int64 { return r.env.Metrics.Counter(name).Load() }

// TestJoinTTLEvictsIdleKeys checks that the rows of a key idle for the TTL
// leave both sides between TTL and TTL + granularity after the key's last
// row, without output; that a row of either side keeps its key alive;
// that later rows of an evicted key match only what came after; and that
// the retraction of an evicted row is ignored and counted.
func TestJoinTTLEvictsIdleKeys(t *testing.T) {
	r := newTTLRig(t, plan.LeftJoin)
	r.send(0, "+I 1 a\n+I 2 b")
	if got := r.send(1, "+I 1 x"); got != "-D 1 a NULL NULL\n+I 1 a 1 x" {
		t.Fatalf("match: %s", got)
	}
	r.wait(1000 * time.Millisecond)
	r.send(1, "+I 2 y") // key 2 is accessed through the right side
	r.wait(500 * time.Millisecond)
	if got := r.count(evictedCounter); got != 0 {
		t.Fatalf("evicted %d rows 1500ms after key 1's last row, before the TTL", got)
	}
	r.wait(200 * time.Millisecond) // 1700ms
	if got := r.count(evictedCounter); got != 2 {
		t.Fatalf("evicted %d rows, want key 1's two", got)
	}
	if got := r.env.Metrics.StateKeys.Load(); got != 2 {
		t.Fatalf("%d rows held, want key 2's two", got)
	}
	// Key 1 again: the evicted left row no longer matches.
	if got := r.send(1, "+I 1 z"); got != "" {
		t.Fatalf("a right row of an evicted key matched: %s", got)
	}
	if got := r.send(0, "-D 1 a"); got != "" {
		t.Fatalf("the retraction of an evicted row emitted %s", got)
	}
	if got := r.count(ignoredCounter); got != 1 {
		t.Fatalf("%d retractions ignored, want 1", got)
	}
	if got := r.send(0, "+I 1 c"); got != "+I 1 c 1 z" {
		t.Fatalf("a new row of an evicted key: %s", got)
	}
	// Key 2, accessed at 1000ms, goes at 2600-2700ms.
	r.wait(800 * time.Millisecond) // 2500ms
	if got := r.count(evictedCounter); got != 2 {
		t.Fatalf("key 2 evicted early: %d rows evicted", got)
	}
	r.wait(200 * time.Millisecond) // 2700ms
	if got := r.count(evictedCounter); got != 4 {
		t.Fatalf("%d rows evicted, want key 2's too", got)
	}
}

// TestJoinTTLCheckpoint checks that evictions delete the evicted rows'
// entries in the next snapshot, and that a restored join counts its keys
// as accessed at the restore.
func TestJoinTTLCheckpoint(t *testing.T) {
	r := newTTLRig(t, plan.InnerJoin)
	r.send(0, "+I 1 a\n+I 2 b\n+I 3 c")
	r.send(1, "+I 1 x\n+I 2 y")
	st := exectest.NewState()
	st.Snapshot(t, r.j, 1)
	if st.Len() != 5 {
		t.Fatalf("%d entries, want 5", st.Len())
	}
	r.wait(time.Second)
	r.send(0, "+I 3 d")
	r.wait(700 * time.Millisecond)
	st.Reset()
	st.Snapshot(t, r.j, 2)
	if st.Deletes != 4 || st.Puts != 1 || st.Len() != 2 {
		t.Fatalf("snapshot after eviction: %d deletes, %d puts, %d entries; want 4, 1, 2", st.Deletes, st.Puts, st.Len())
	}
	// Restore a second later: both rows of key 3 live until the restore
	// time plus the TTL.
	r.now = r.now.Add(time.Second)
	q := newTTLRig(t, plan.InnerJoin)
	q.now = r.now
	if err := q.j.Restore(context.Background(), st, q.env.KeyGroups); err != nil {
		t.Fatal(err)
	}
	q.wait(1500 * time.Millisecond)
	if got := q.env.Metrics.StateKeys.Load(); got != 2 {
		t.Fatalf("%d rows held 1500ms after the restore, want 2", got)
	}
	if got := q.send(1, "+I 3 w"); got != "+I 3 c 3 w\n+I 3 d 3 w" {
		t.Fatalf("restored rows: %s", got)
	}
	q.wait(1700 * time.Millisecond)
	if got := q.count(evictedCounter); got != 3 {
		t.Fatalf("%d rows evicted after the restore, want 3", got)
	}
	st.Reset()
	st.Snapshot(t, q.j, 3)
	if st.Len() != 0 {
		t.Fatalf("%d entries left after every key was evicted", st.Len())
	}
}

// TestJoinTTLOffRetraction checks that without a TTL a retraction of a row
// the join never held stays an error.
func TestJoinTTLOffRetraction(t *testing.T) {
	ts := []types.T{types.BigIntT, types.VarcharT}
	j := NewHashJoin(Config{Kind: plan.InnerJoin, Left: ts, Right: ts, LeftKeys: []int{0}, RightKeys: []int{0},
		Names: []string{"lk", "lv", "rk", "rv"}})
	env := exec.NewTestEnv(exectest.Alloc(t))
	if err := j.Open(context.Background(), env); err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	ch := exectest.Chunk(t, env.Alloc, "bigint varchar\n-D 1 a")
	defer ch.Batch.Release()
	if err := j.Process(context.Background(), 0, ch, exectest.NewCollector(t, exectest.CollectorOptions{})); err != errRetractUnknown {
		t.Fatalf("got %v, want %v", err, errRetractUnknown)
	}
	if !j.NextTimer().IsZero() {
		t.Fatal("a timer without a TTL")
	}
}
