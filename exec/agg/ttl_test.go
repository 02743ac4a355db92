package agg

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// fakeClock is a processing-time clock a test moves.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time          { return c.now }
func (c *fakeClock) advance(d time.Duration) { c.now = c.now.Add(d) }
func newFakeClock() *fakeClock               { return &fakeClock{now: time.UnixMilli(1_700_000_000_000)} }
func (c *fakeClock) env(t *testing.T) *exec.Env {
	env := exec.NewTestEnv(exectest.Alloc(t))
	env.Clock = c.Now
	return env
}

// ttlAgg opens a COUNT/SUM per key aggregate with a state TTL of 1600ms
// (granularity 100ms) on clk.
var ttlAgg = openOn(func(t *testing.T) HashConfig {
	cfg := testConfig(t, "bigint bigint", []int{0}, "count(*)", "sum(1)")
	cfg.StateTTL = 1600 * time.Millisecond
	return cfg
})

func feed(t *testing.T, h *HashAgg, env *exec.Env, out *exectest.Collector, text string) string {
	t.Helper()
	ch := exectest.Chunk(t, env.Alloc, text)
	defer ch.Batch.Release()
	if err := h.Process(context.Background(), 0, ch, out); err != nil {
		t.Fatal(err)
	}
	return out.Take()
}

// tick fires the aggregate's timer if it is due, as the runtime does.
func tick(t *testing.T, h *HashAgg, clk *fakeClock, out exec.Emitter) {
	t.Helper()
	if due := h.NextTimer(); !due.IsZero() && !clk.now.Before(due) {
		if err := h.OnTimer(context.Background(), clk.now, out); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTTLEvictsIdleGroups checks that a group idle for the TTL is evicted
// by the timer between TTL and TTL + granularity after its last row, not
// before, without output; that a group kept busy stays; and that a row of
// an evicted key starts a new group, emitted as an insert.
func TestTTLEvictsIdleGroups(t *testing.T) {
	clk := newFakeClock()
	h, env, out := ttlAgg(t, clk)
	feed(t, h, env, out, "bigint bigint\n+I 1 10\n+I 2 20")
	evicted := env.Metrics.Counter(evictedCounter)
	for step := 0; step < 40; step++ { // 2s in steps of 50ms
		clk.advance(50 * time.Millisecond)
		if step%4 == 0 {
			feed(t, h, env, out, "bigint bigint\n+I 2 1") // key 2 stays busy
		}
		tick(t, h, clk, out)
		idle := time.Duration(step+1) * 50 * time.Millisecond
		switch {
		case idle < 1600*time.Millisecond && evicted.Load() != 0:
			t.Fatalf("group 1 evicted after %v idle, before the TTL", idle)
		case idle > 1700*time.Millisecond && evicted.Load() != 1:
			t.Fatalf("after %v idle: %d groups evicted, want group 1", idle, evicted.Load())
		}
	}
	if got := env.Metrics.StateKeys.Load(); got != 1 {
		t.Fatalf("%d groups held, want 1", got)
	}
	if s := out.Take(); s != "" {
		t.Fatalf("eviction emitted %s", s)
	}
	// Key 1 comes back: a fresh group, inserted; key 2 continues.
	if got := feed(t, h, env, out, "bigint bigint\n+I 1 5\n+I 2 1"); got != "+I 1 1 5\n-U 2 11 30\n+U 2 12 31" {
		t.Fatalf("after eviction: %s", got)
	}
}

// TestTTLEvictsWithoutInput checks that the processing-time timer evicts
// groups with no input arriving, and that a snapshot after eviction
// deletes the evicted groups' entries only.
func TestTTLEvictsWithoutInput(t *testing.T) {
	clk := newFakeClock()
	h, env, out := ttlAgg(t, clk)
	var in string
	for k := range 100 {
		in += "\n+I " + strconv.Itoa(k) + " 1"
	}
	feed(t, h, env, out, "bigint bigint"+in)
	st := exectest.NewState()
	st.Snapshot(t, h, 1)
	clk.advance(time.Second)
	feed(t, h, env, out, "bigint bigint\n+I 7 1\n+I 8 1")
	st.Reset()
	st.Snapshot(t, h, 2)
	clk.advance(700 * time.Millisecond) // 1700ms after the first rows
	tick(t, h, clk, out)
	if got := env.Metrics.Counter(evictedCounter).Load(); got != 98 {
		t.Fatalf("evicted %d groups, want 98", got)
	}
	st.Reset()
	st.Snapshot(t, h, 3)
	if st.Deletes != 98 || st.Puts != 0 || st.Len() != 2 {
		t.Fatalf("snapshot after eviction: %d deletes, %d puts, %d entries; want 98, 0, 2", st.Deletes, st.Puts, st.Len())
	}
	// Restored, the two groups count as accessed at the restore: they live
	// one more TTL from then.
	clk.advance(time.Second)
	r, renv, _ := ttlAgg(t, clk)
	if err := r.Restore(context.Background(), st, renv.KeyGroups); err != nil {
		t.Fatal(err)
	}
	clk.advance(1500 * time.Millisecond)
	tick(t, r, clk, out)
	if got := renv.Metrics.StateKeys.Load(); got != 2 {
		t.Fatalf("restored groups evicted before the TTL since the restore: %d held", got)
	}
	if got := feed(t, r, renv, out, "bigint bigint\n+I 7 1"); got != "-U 7 2 2\n+U 7 3 3" {
		t.Fatalf("restored group: %s", got)
	}
	clk.advance(200 * time.Millisecond)
	tick(t, r, clk, out)
	if got := renv.Metrics.Counter(evictedCounter).Load(); got != 1 {
		t.Fatalf("evicted %d restored groups, want the idle one", got)
	}
	st.Reset()
	st.Snapshot(t, r, 4)
	if st.Len() != 1 {
		t.Fatalf("%d entries after the restored group's eviction, want 1", st.Len())
	}
}

// TestTTLOff checks that without a TTL, or for a global aggregate, nothing
// is evicted and no timer is set.
func TestTTLOff(t *testing.T) {
	clk := newFakeClock()
	for _, keys := range [][]int{{0}, nil} {
		cfg := testConfig(t, "bigint bigint", keys, "count(*)")
		if keys == nil {
			cfg.StateTTL = time.Millisecond // a global aggregate's one row is never evicted
		}
		h := NewHashAgg(cfg)
		env := clk.env(t)
		if err := h.Open(context.Background(), env); err != nil {
			t.Fatal(err)
		}
		out := exectest.NewCollector(t, exectest.CollectorOptions{})
		feed(t, h, env, out, "bigint bigint\n+I 1 10")
		if !h.NextTimer().IsZero() {
			t.Fatalf("keys %v: a timer without a TTL", keys)
		}
		h.Close()
	}
}
