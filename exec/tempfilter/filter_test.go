package tempfilter

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// The filter of these tests: (k BIGINT, ts TIMESTAMP(3)) rows pass while
// ts > NOW() - 1000 ms (ts >= NOW() - 1000 when inclusive).
var testTypes = []types.T{types.BigIntT, types.TimestampT(3)}

func testConfig(inclusive bool) Config {
	return Config{Input: testTypes, Names: []string{"k", "ts"}, TimeCol: 1, Inclusive: inclusive, Offset: -1000}
}

// delayConfig is the delaying filter of these tests: rows pass once
// ts < NOW() + 200 ms (ts <= NOW() + 200 when inclusive).
func delayConfig(inclusive bool) Config {
	return Config{Input: testTypes, Names: []string{"k", "ts"}, TimeCol: 1, Inclusive: inclusive, Offset: 200, Delay: true}
}

// clock is a fake processing-time clock.
type clock struct{ ms int64 }

func (c *clock) now() time.Time { return time.UnixMilli(c.ms) }

// instance is one filter instance with its fake clock and the integral of
// its output.
type instance struct {
	f   *Filter
	env *exec.Env
	out map[[2]int64]int64
	// expiries are the expiries of the rows each emission retracted on a
	// timer, in order.
	expiries []int64
}

func newInstance(t *testing.T, alloc memory.Allocator, cfg Config, clk *clock, i, p int) *instance {
	t.Helper()
	f, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	env := exectest.InstanceEnv(alloc, i, p, clk.now)
	exectest.Open(t, f, env)
	return &instance{f: f, env: env, out: map[[2]int64]int64{}}
}

// emitter integrates what an instance emits; on a timer it records the
// expiry of each retracted row.
func (in *instance) emitter(t *testing.T, onTimer bool) exec.Emitter {
	return exec.EmitterFunc(func(_ context.Context, c exec.Chunk) error {
		ks := c.Batch.Column(0)
		ts := c.Batch.Column(1)
		for r := range c.NumRows() {
			row := [2]int64{types.DatumAt(ks, r, types.BigIntT).I, types.DatumAt(ts, r, testTypes[1]).I}
			in.out[row] += c.Op(r).Weight()
			if in.out[row] < 0 {
				t.Fatalf("row %v retracted more often than emitted", row)
			}
			if in.out[row] == 0 {
				delete(in.out, row)
			}
			if onTimer {
				if c.Op(r).IsRetraction() == in.f.cfg.Delay {
					t.Fatalf("a timer emitted %s %v (delaying: %v)", c.Op(r), row, in.f.cfg.Delay)
				}
				in.expiries = append(in.expiries, in.f.expiryOf(row[1]))
			}
		}
		return nil
	})
}

// chunkOf builds a chunk of rows with ops.
func chunkOf(alloc memory.Allocator, rows [][2]int64, ops []exec.Op) exec.Chunk {
	ds := make([][]types.Datum, len(rows))
	for i, r := range rows {
		ds[i] = []types.Datum{types.IntDatum(r[0]), types.IntDatum(r[1])}
	}
	rec := types.BuildRecord(alloc, []string{"k", "ts"}, testTypes, ds)
	return exec.Chunk{Batch: rec, Ops: ops}
}

// groupOf returns the key group the hash exchange routes a row to.
func groupOf(t *testing.T, alloc memory.Allocator, r [2]int64) int {
	c := chunkOf(alloc, [][2]int64{r}, nil)
	defer c.Batch.Release()
	h := make([]uint64, 1)
	if err := exec.HashRows([]arrow.Array{c.Batch.Column(0), c.Batch.Column(1)}, h); err != nil {
		t.Fatal(err)
	}
	return exec.KeyGroup(h[0])
}

// step is one random step: a chunk of changes, or a tick of the clock.
type step struct {
	rows [][2]int64
	ops  []exec.Op
	tick int64 // ms the clock advances (then a timer fires)
}

// randomSteps draws steps over a clock starting at 0: rows with times
// around the clock (some already expired, some far ahead), retractions of
// rows the input holds, and ticks.
func randomSteps(r *rand.Rand, n int) []step {
	held := map[[2]int64]int64{}
	clk := int64(0)
	var steps []step
	for range n {
		if r.IntN(4) == 0 {
			d := int64(r.IntN(400))
			clk += d
			steps = append(steps, step{tick: d})
			continue
		}
		var s step
		for range 1 + r.IntN(12) {
			if len(held) > 0 && r.IntN(3) == 0 {
				for row := range held { // a random held row
					s.rows, s.ops = append(s.rows, row), append(s.ops, exec.Delete)
					if held[row]--; held[row] == 0 {
						delete(held, row)
					}
					break
				}
				continue
			}
			row := [2]int64{int64(r.IntN(4)), clk - 1200 + int64(r.IntN(2500))}
			s.rows, s.ops = append(s.rows, row), append(s.ops, exec.Insert)
			held[row]++
		}
		steps = append(steps, s)
	}
	return steps
}

// expected returns the rows of held that qualify at now: those that have
// not expired, or delaying, those whose time has come.
func expected(f *Filter, held map[[2]int64]int64, now int64) map[[2]int64]int64 {
	want := map[[2]int64]int64{}
	for row, n := range held {
		if (f.expiryOf(row[1]) > now) != f.cfg.Delay {
			want[row] = n
		}
	}
	return want
}

// run feeds steps to the instances (a row to the instance owning its key
// group) and checks after every step that the union of their outputs is
// the rows of the input that qualify at NOW().
func run(t *testing.T, alloc memory.Allocator, clk *clock, ins []*instance, steps []step, held map[[2]int64]int64) {
	t.Helper()
	ctx := context.Background()
	p := len(ins)
	for k, s := range steps {
		if s.tick > 0 {
			clk.ms += s.tick
			for _, in := range ins {
				in.expiries = in.expiries[:0]
				if err := in.f.OnTimer(ctx, clk.now(), in.emitter(t, true)); err != nil {
					t.Fatal(err)
				}
				for j := 1; j < len(in.expiries); j++ {
					if in.expiries[j] < in.expiries[j-1] {
						t.Fatalf("step %d: rows retracted out of expiry order: %v", k, in.expiries)
					}
				}
			}
		} else {
			parts := make([]step, p)
			for j, row := range s.rows {
				i := exec.InstanceForKeyGroup(groupOf(t, alloc, row), p)
				parts[i].rows, parts[i].ops = append(parts[i].rows, row), append(parts[i].ops, s.ops[j])
				held[row] += s.ops[j].Weight()
				if held[row] == 0 {
					delete(held, row)
				}
			}
			for i, part := range parts {
				if len(part.rows) == 0 {
					continue
				}
				c := chunkOf(alloc, part.rows, part.ops)
				err := ins[i].f.Process(ctx, 0, c, ins[i].emitter(t, false))
				c.Batch.Release()
				if err != nil {
					t.Fatalf("step %d: %v", k, err)
				}
			}
		}
		got := ins[0].out // shared by the instances
		if want := expected(ins[0].f, held, clk.ms); !maps.Equal(got, want) {
			t.Fatalf("step %d at NOW() = %d: the output holds\n%v\nwant\n%v", k, clk.ms, got, want)
		}
	}
}

// TestFilterRandomized checks the filter against the oracle over random
// inserts, retractions and ticks, >= and >, and checks that each tick
// retracts rows in order of expiry.
func TestFilterRandomized(t *testing.T) {
	for _, delay := range []bool{false, true} {
		for _, inclusive := range []bool{false, true} {
			for seed := range uint64(20) {
				t.Run(fmt.Sprintf("delay=%v/inclusive=%v/seed=%d", delay, inclusive, seed), func(t *testing.T) {
					alloc := exectest.Alloc(t)
					clk := &clock{}
					cfg := testConfig(inclusive)
					if delay {
						cfg = delayConfig(inclusive)
					}
					in := newInstance(t, alloc, cfg, clk, 0, 1)
					run(t, alloc, clk, []*instance{in}, randomSteps(rand.New(rand.NewPCG(seed, 7)), 120), map[[2]int64]int64{})
				})
			}
		}
	}
}

// TestFilterRestoreContinuesTheRun snapshots a run incrementally at random
// steps, restores the last snapshot at parallelism 1, 2 and 3 (each
// instance its key groups) and continues with the rest of the input: the
// union of the restored instances' outputs, from the rows emitted up to the
// snapshot on, is what the uninterrupted run computes at every step.
func TestFilterRestoreContinuesTheRun(t *testing.T) {
	for seed := range uint64(12) {
		r := rand.New(rand.NewPCG(seed, 11))
		steps := randomSteps(r, 150)
		cut := 20 + r.IntN(100)
		for p := 1; p <= 3; p++ {
			t.Run(fmt.Sprintf("seed=%d/p=%d", seed, p), func(t *testing.T) {
				alloc := exectest.Alloc(t)
				clk := &clock{}
				cfg := testConfig(seed%2 == 0)
				if seed%3 == 0 {
					cfg = delayConfig(seed%2 == 0) // every third seed delays
				}
				first := newInstance(t, alloc, cfg, clk, 0, 1)
				held := map[[2]int64]int64{}
				st := exectest.NewState()
				// Snapshots every few steps up to the cut: the last is the
				// incremental sum of them all.
				for k := 0; k < cut; k += 7 {
					run(t, alloc, clk, []*instance{first}, steps[k:min(k+7, cut)], held)
					st.Snapshot(t, first.f, uint64(k+1))
				}
				ins := make([]*instance, p)
				for i := range ins {
					ins[i] = newInstance(t, alloc, cfg, clk, i, p)
					if err := ins[i].f.Restore(context.Background(), st, ins[i].env.KeyGroups); err != nil {
						t.Fatal(err)
					}
				}
				// What was emitted before the snapshot stays emitted: the
				// restored instances go on integrating into it.
				for _, in := range ins {
					in.out = first.out
				}
				run(t, alloc, clk, ins, steps[cut:], held)
			})
		}
	}
}

// TestFilterSnapshotIsIncremental touches 1% of 10,000 kept rows: the
// next snapshot writes those rows and NOW(), not the others.
func TestFilterSnapshotIsIncremental(t *testing.T) {
	alloc := exectest.Alloc(t)
	clk := &clock{ms: 1_000_000}
	in := newInstance(t, alloc, testConfig(false), clk, 0, 1)
	ctx := context.Background()
	var rows [][2]int64
	for k := range 10_000 {
		rows = append(rows, [2]int64{int64(k), clk.ms + 500})
	}
	c := chunkOf(alloc, rows, nil)
	if err := in.f.Process(ctx, 0, c, in.emitter(t, false)); err != nil {
		t.Fatal(err)
	}
	c.Batch.Release()
	st := exectest.NewState()
	st.Snapshot(t, in.f, 1)
	full := st.Bytes
	var touched [][2]int64
	var ops []exec.Op
	for k := range 100 {
		touched = append(touched, rows[k*100])
		ops = append(ops, exec.Delete)
	}
	clk.ms++
	c = chunkOf(alloc, touched, ops)
	if err := in.f.Process(ctx, 0, c, in.emitter(t, false)); err != nil {
		t.Fatal(err)
	}
	c.Batch.Release()
	st.Snapshot(t, in.f, 2)
	groups := exec.NumKeyGroups
	if st.Deletes != 100 || st.Puts != groups || st.Bytes > full/20 {
		t.Errorf("after touching 1%%: %d deletes, %d puts (NOW() in %d key groups), %d bytes of %d", st.Deletes, st.Puts, groups, st.Bytes, full)
	}
}

// TestFilterRestoreRefusesDamagedState: damaged entries fail Restore with
// ErrCorruptState, and a retraction of a row never kept is an error.
func TestFilterRestoreRefusesDamagedState(t *testing.T) {
	alloc := exectest.Alloc(t)
	clk := &clock{ms: 5000}
	in := newInstance(t, alloc, testConfig(false), clk, 0, 1)
	ctx := context.Background()
	c := chunkOf(alloc, [][2]int64{{1, 5500}, {2, 5600}}, nil)
	if err := in.f.Process(ctx, 0, c, in.emitter(t, false)); err != nil {
		t.Fatal(err)
	}
	c.Batch.Release()
	st := exectest.NewState()
	st.Snapshot(t, in.f, 1)
	var damages []exectest.Damage
	for _, damage := range [][]byte{{}, {0xff}, {1, 1}, []byte("garbage value")} {
		damages = append(damages, exectest.Damage{Name: fmt.Sprintf("%q", damage), Edit: func(s *exectest.State) { s.Damage(damage) }})
	}
	exectest.CheckDamaged(t, exectest.Damaged{
		New:   exectest.Maker(t, func() (*Filter, error) { return New(testConfig(false)) }),
		State: st, Damages: damages, Wrap: ErrCorruptState,
	})
	c = chunkOf(alloc, [][2]int64{{9, 5900}}, []exec.Op{exec.Delete})
	defer c.Batch.Release()
	if err := in.f.Process(ctx, 0, c, in.emitter(t, false)); err == nil {
		t.Errorf("a retraction of a row never kept passed")
	}
}
