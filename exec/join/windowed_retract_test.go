package join

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/planner/plan"
)

// intervalConfig is a windowed join of kind over two inputs (k BIGINT, ts
// TIMESTAMP) on k, with the condition l.ts BETWEEN r.ts + lo AND r.ts +
// hi.
func intervalConfig(kind plan.JoinKind, lo, hi int64) Config {
	ts := []types.T{types.BigIntT, types.TimestampT(3)}
	tsRef := func(ord int) plan.Expr { return &plan.InputRef{Ord: ord, Typ: types.TimestampT(3)} }
	plus := func(d int64) plan.Expr {
		return &plan.Binary{Op: plan.OpAdd, L: tsRef(3), R: &plan.Const{Val: types.IntDatum(d), Typ: types.IntervalT}, Typ: types.TimestampT(3)}
	}
	return Config{Kind: kind, Left: ts, Right: ts, LeftKeys: []int{0}, RightKeys: []int{0},
		Residual: &plan.And{Args: []plan.Expr{
			&plan.Binary{Op: plan.OpGe, L: tsRef(1), R: plus(lo), Typ: types.BoolT},
			&plan.Binary{Op: plan.OpLe, L: tsRef(1), R: plus(hi), Typ: types.BoolT},
		}}, Names: []string{"lk", "lt", "rk", "rt"}, Windowed: true, LeftTime: 1, RightTime: 1, Lo: lo, Hi: hi}
}

// intervalMatch is intervalConfig's condition.
func intervalMatch(lo, hi int64) func(l, r []types.Datum) bool {
	return func(l, r []types.Datum) bool {
		return keysMatch(l, r) && !l[1].Null && !r[1].Null && l[1].I-r[1].I >= lo && l[1].I-r[1].I <= hi
	}
}

// TestWindowedJoinRetractions runs Nexmark q7's shape: bids (price, time)
// joined with the running maximum price of each window (maxprice,
// window_end), which the window's aggregate retracts and replaces until
// the watermark closes the window, on l.ts BETWEEN r.ts - 10 AND r.ts. A
// retraction removes its row and retracts its matches; the row id it
// frees is reused by a row of a later window, which the retracted row's
// deadline must not free; the watermark frees the rest as it passes.
func TestWindowedJoinRetractions(t *testing.T) {
	env := exec.NewTestEnv(exectest.Alloc(t))
	held := func(n int64) func(t *testing.T) {
		return func(t *testing.T) {
			t.Helper()
			if got := env.Metrics.StateKeys.Load(); got != n {
				t.Fatalf("holds %d rows, want %d", got, n)
			}
		}
	}
	const hdr = "bigint timestamp(3)\n"
	r := exectest.Runner{Op: NewHashJoin(intervalConfig(plan.InnerJoin, -10, 0)), Env: env,
		Out: exectest.NewCollector(t, exectest.CollectorOptions{Format: exectest.Millis})}
	r.Run(t, []exectest.Step{
		{Input: 0, In: hdr + "+I 5 3\n+I 7 4"},
		{Input: 1, In: hdr + "+I 5 10", Want: "+I 5 3 5 10"},
		// The window's maximum changes: its old row and its match go.
		{Input: 1, In: hdr + "-U 5 10", Want: "-D 5 3 5 10", Check: held(2)},
		// A row of the next window takes the freed row id, with a later
		// deadline (20) than the retracted row's (10).
		{Input: 1, In: hdr + "+U 7 20", Check: held(3)},
		{Ctl: exectest.Watermark(11), Check: held(3)},
		{Input: 0, In: hdr + "+I 7 15", Want: "+I 7 15 7 20"},
		// The first bids' deadlines (13, 14) pass.
		{Ctl: exectest.Watermark(15), Check: held(2)},
		{Input: 1, In: hdr + "-U 7 20\n+U 9 20", Want: "-D 7 15 7 20", Check: held(2)},
		// The window of 20 closes; the bid of 15 stays until 25.
		{Ctl: exectest.Watermark(21), Check: held(1)},
		{Ctl: exectest.Watermark(26), Check: held(0)},
		// A retraction of a row freed (or never received) is an error.
		{Input: 1, In: hdr + "-U 9 20", Err: errRetractUnknown},
	})
}

// TestOuterWindowedJoinRejectsRetractions checks that an outer interval
// join, whose padding assumes inputs that only append, fails on a
// retraction rather than pad wrongly.
func TestOuterWindowedJoinRejectsRetractions(t *testing.T) {
	for _, kind := range []plan.JoinKind{plan.LeftJoin, plan.RightJoin, plan.FullJoin} {
		t.Run(kind.String(), func(t *testing.T) {
			r := exectest.Runner{Op: NewHashJoin(intervalConfig(kind, -10, 0)), Env: exec.NewTestEnv(exectest.Alloc(t)),
				Out: exectest.NewCollector(t, exectest.CollectorOptions{Format: exectest.Millis})}
			r.Run(t, []exectest.Step{
				{Input: 1, In: "bigint timestamp(3)\n+I 5 10", AnyOut: true},
				{Input: 1, In: "bigint timestamp(3)\n-D 5 10", Err: errWindowedRetraction},
			})
		})
	}
}

// retractingSteps returns a random run of an interval join [lo, hi] whose
// sides retract as a windowed aggregate's output does: batches 1 ms apart
// of rows of four keys (some NULL keys and times) whose times are up to 4
// ms after their batch's, a watermark every seven batches, and on the
// sides that may retract (the right when hi >= 0, the left when lo <= 0)
// retractions of held rows the watermark has not passed. It ends with the
// end of input.
func retractingSteps(rng *rand.Rand, n int, lo, hi int64) []step {
	retracts := [2]bool{lo <= 0, hi >= 0}
	held := [2][][]types.Datum{}
	now, wm := int64(100), int64(0)
	var steps []step
	for i := range n {
		s := step{in: rng.IntN(2)}
		for k := 1 + rng.IntN(4); k > 0; k-- {
			if h := held[s.in]; retracts[s.in] && len(h) > 0 && rng.IntN(3) == 0 {
				j := rng.IntN(len(h))
				if r := h[j]; r[1].Null || r[1].I >= wm {
					s.rows, s.ops = append(s.rows, r), append(s.ops, exec.Delete)
					held[s.in] = append(h[:j], h[j+1:]...)
					continue
				}
			}
			r := []types.Datum{types.IntDatum(int64(rng.IntN(4))), types.IntDatum(now + int64(rng.IntN(5)))}
			if rng.IntN(12) == 0 {
				r[0] = types.NullDatum
			}
			if rng.IntN(20) == 0 {
				r[1] = types.NullDatum
			}
			held[s.in] = append(held[s.in], r)
			s.rows, s.ops = append(s.rows, r), append(s.ops, exec.Insert)
		}
		steps = append(steps, s)
		now++
		if i%7 == 6 {
			wm = now - 2 // every later row has a time of at least now
			steps = append(steps, step{ctl: &exec.Control{Kind: exec.Watermark, Watermark: wm}})
		}
	}
	return append(steps, step{ctl: &exec.Control{Kind: exec.Watermark, Watermark: exec.MaxWatermark}})
}

// retractingBounds are the bounds the retraction tests run: both sides
// retract under the first two, one side under the others.
var retractingBounds = [][2]int64{{-3, 3}, {0, 0}, {-5, -1}, {2, 6}}

// TestWindowedJoinRetractionsMatchReference runs inner interval joins
// whose inputs retract as windowed aggregates' outputs do, and checks
// after every watermark and every few steps that the integrated output is the join of what both
// inputs hold (a row the watermark freed can match no later change), that
// the state is freed as the watermark passes, and that it holds nothing
// once the input ends.
func TestWindowedJoinRetractionsMatchReference(t *testing.T) {
	for _, b := range retractingBounds {
		for seed := uint64(1); seed <= 4; seed++ {
			t.Run(fmt.Sprintf("[%d,%d]/seed=%d", b[0], b[1], seed), func(t *testing.T) {
				lo, hi := b[0], b[1]
				rig := newRig(t, intervalConfig(plan.InnerJoin, lo, hi), []string{"k", "ts"}, exectest.Millis, false)
				match := intervalMatch(lo, hi)
				maxHeld := int64(0)
				for i, s := range retractingSteps(rand.New(rand.NewPCG(seed, 17)), 250, lo, hi) {
					var err error
					if s.ctl != nil {
						err = rig.control(*s.ctl)
						if s.ctl.Watermark != exec.MaxWatermark {
							maxHeld = max(maxHeld, rig.held())
						}
					} else {
						err = rig.send(s.in, s.rows, s.ops)
					}
					if err != nil {
						t.Fatalf("step %d: %v", i, err)
					}
					if i%8 == 0 || s.ctl != nil {
						// Every few steps: the brute force costs the
						// product of the inputs' sizes.
						rig.check(fmt.Sprintf("step %d", i), match)
					}
				}
				if held := rig.held(); held != 0 {
					t.Fatalf("%d rows held after the watermark passed them all", held)
				}
				// The rows of about 10+|lo|+|hi| ms, not all 600-odd rows.
				if maxHeld > 200 {
					t.Fatalf("held up to %d rows: state is not freed as the watermark passes", maxHeld)
				}
				for in, s := range rig.j.sides {
					if live, entries := s.store.Live(), s.deadline.len(); entries != 0 || live != 0 {
						t.Fatalf("side %d: %d rows and %d deadline entries left", in, live, entries)
					}
				}
			})
		}
	}
}

// TestWindowedJoinDropsStaleDeadlines retracts and re-inserts many rows of
// one window, so that the deadlines collect more stale entries than
// staleCompactMin, and checks that it drops them (it stays within twice
// the live rows plus the threshold), that no live row lost its deadline,
// and that the output is the reference join throughout.
func TestWindowedJoinDropsStaleDeadlines(t *testing.T) {
	lo, hi := int64(-10), int64(0)
	rig := newRig(t, intervalConfig(plan.InnerJoin, lo, hi), []string{"k", "ts"}, exectest.Millis, false)
	match := intervalMatch(lo, hi)
	if err := rig.send(0, [][]types.Datum{{types.IntDatum(1), types.IntDatum(995)}}, nil); err != nil {
		t.Fatal(err)
	}
	const rows = 500
	batch := func(v int64, op exec.Op) ([][]types.Datum, []exec.Op) {
		var rs [][]types.Datum
		var ops []exec.Op
		for i := range rows {
			rs, ops = append(rs, []types.Datum{types.IntDatum(int64(i % 3)), types.IntDatum(1000 + v)}), append(ops, op)
		}
		return rs, ops
	}
	right := rig.j.sides[1]
	for round := range int64(8) {
		if round > 0 {
			rs, ops := batch(round-1, exec.Delete)
			if err := rig.send(1, rs, ops); err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		rs, ops := batch(round, exec.Insert)
		if err := rig.send(1, rs, ops); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		rig.check(fmt.Sprintf("round %d", round), match)
		if n := right.deadline.len(); n > 2*rows+staleCompactMin {
			t.Fatalf("round %d: %d deadline entries for %d rows", round, n, rows)
		}
	}
	if right.stale == 0 && right.deadline.len() == rows {
		t.Fatalf("no stale entries: the test no longer exercises them")
	}
	// The live rows, at 1007, stay until the watermark passes it.
	if err := rig.control(exec.Control{Kind: exec.Watermark, Watermark: 1007}); err != nil {
		t.Fatal(err)
	}
	if got := right.store.Live(); got != rows {
		t.Fatalf("%d right rows held at the watermark 1007, want %d", got, rows)
	}
	if err := rig.control(exec.Control{Kind: exec.Watermark, Watermark: 1008}); err != nil {
		t.Fatal(err)
	}
	if got, n := right.store.Live(), right.deadline.len(); got != 0 || n != 0 {
		t.Fatalf("%d right rows and %d deadline entries held after the watermark passed them", got, n)
	}
}

// TestWindowedJoinRetractionsRestore snapshots inner interval joins over
// retracting inputs at a random step, restores them at parallelism 1 to
// 3, sends them the last watermark again, and checks that their output
// after every later step is the uninterrupted run's: retractions after the
// restore find their rows and matches, and the restored rows are freed
// when the uninterrupted run frees them.
func TestWindowedJoinRetractionsRestore(t *testing.T) {
	for _, b := range retractingBounds {
		t.Run(fmt.Sprintf("[%d,%d]", b[0], b[1]), func(t *testing.T) {
			cfg := intervalConfig(plan.InnerJoin, b[0], b[1])
			for seed := range uint64(3) {
				rng := rand.New(rand.NewPCG(seed, 19))
				steps := retractingSteps(rng, 150, b[0], b[1])
				for _, p := range []int{1, 2, 3} {
					second := interruptedRun{cfg: cfg, opts: exectest.CollectorOptions{Format: exectest.Millis}, steps: steps,
						cut: 5 + rng.IntN(len(steps)-10), from: 1 + rng.IntN(3), to: p, every: 9, resent: resentWatermarks}.check(t)
					if n := second.held(); n != 0 {
						t.Fatalf("%d rows held after the last watermark", n)
					}
				}
			}
		})
	}
}

// TestWindowJoinEvictsIndexedBuckets runs Nexmark q5's shape: per-auction
// counts of a window (k = ts = the window's start, a the auction), which
// their aggregate retracts and replaces, joined on the window with its
// maximum. Each window's counts make one bucket, large enough to get a
// row index, and a watermark evicts it whole: the index is dropped at once
// rather than unlinked row by row. The integrated output stays the join
// of what both inputs hold, and nothing is held at the end.
func TestWindowJoinEvictsIndexedBuckets(t *testing.T) {
	ts := []types.T{types.BigIntT, types.TimestampT(3), types.BigIntT}
	ref := func(ord int) plan.Expr { return &plan.InputRef{Ord: ord, Typ: types.TimestampT(3)} }
	cfg := Config{Kind: plan.InnerJoin, Left: ts, Right: ts, LeftKeys: []int{0}, RightKeys: []int{0},
		Residual: &plan.And{Args: []plan.Expr{
			&plan.Binary{Op: plan.OpGe, L: ref(1), R: ref(4), Typ: types.BoolT},
			&plan.Binary{Op: plan.OpLe, L: ref(1), R: ref(4), Typ: types.BoolT},
		}}, Names: []string{"lk", "lt", "la", "rk", "rt", "rm"}, Windowed: true, LeftTime: 1, RightTime: 1}
	match := func(l, r []types.Datum) bool {
		return !l[0].Null && !r[0].Null && l[0].I == r[0].I && l[1].I == r[1].I
	}
	// Keyed by the window, a bucket goes whole; keyed by one constant, the
	// watermark takes the closed windows' rows out of a bucket that keeps
	// the open ones', and their hashes unlink them from its row index.
	for _, whole := range []bool{true, false} {
		for seed := uint64(1); seed <= 3; seed++ {
			rig := newRig(t, cfg, []string{"k", "ts", "a"}, exectest.Millis, false)
			rng := rand.New(rand.NewPCG(seed, 5))
			held := [2][][]types.Datum{}
			wm := int64(0)
			for step := range 300 {
				in := 0
				if rng.IntN(8) == 0 {
					in = 1
				}
				var rows [][]types.Datum
				var ops []exec.Op
				for k := 1 + rng.IntN(12); k > 0; k-- {
					if h := held[in]; len(h) > 0 && rng.IntN(5) == 0 {
						j := rng.IntN(len(h))
						if r := h[j]; r[1].I >= wm {
							rows, ops = append(rows, r), append(ops, exec.Delete)
							held[in] = append(h[:j], h[j+1:]...)
							continue
						}
					}
					w := wm + 10*int64(rng.IntN(3))
					k := w
					if !whole {
						k = 0
					}
					r := []types.Datum{types.IntDatum(k), types.IntDatum(w), types.IntDatum(int64(rng.IntN(60)))}
					held[in] = append(held[in], r)
					rows, ops = append(rows, r), append(ops, exec.Insert)
				}
				if err := rig.send(in, rows, ops); err != nil {
					t.Fatalf("seed %d step %d: %v", seed, step, err)
				}
				if step%20 == 19 {
					wm += 10
					if err := rig.control(exec.Control{Kind: exec.Watermark, Watermark: wm}); err != nil {
						t.Fatal(err)
					}
					for i := range held {
						held[i] = slices.DeleteFunc(held[i], func(r []types.Datum) bool { return r[1].I < wm })
					}
					checkRowIndexes(t, fmt.Sprintf("seed %d step %d", seed, step), rig.j.sides[0], rig.env.Alloc)
				}
				if step%5 == 4 { // every few steps, watermarks included: the brute force costs the product of the inputs
					rig.check(fmt.Sprintf("seed %d step %d", seed, step), match)
				}
			}
			if err := rig.control(exec.Control{Kind: exec.Watermark, Watermark: exec.MaxWatermark}); err != nil {
				t.Fatal(err)
			}
			if n := rig.held(); n != 0 {
				t.Fatalf("seed %d: %d rows held at the end", seed, n)
			}
			if whole && rig.j.sides[0].idx.evicted == 0 {
				t.Fatalf("seed %d: no bucket was evicted with its row index", seed)
			}
		}
	}
}

// checkRowIndexes fails t unless every row index of side s holds exactly
// its bucket's rows, each in the chain of its row's hash.
func checkRowIndexes(t *testing.T, what string, s *side, alloc memory.Allocator) {
	t.Helper()
	for b := range s.nbuckets {
		bk := s.buckets.Ref(b)
		if bk.rix == 0 {
			continue
		}
		ids := s.appendRows(b, nil)
		hs, err := s.storedHashes(alloc, ids)
		if err != nil {
			t.Fatal(err)
		}
		inBucket := map[int32]uint64{}
		for k, id := range ids {
			inBucket[id] = hs[k]
		}
		seen := 0
		for h, first := range s.idx.heads[bk.rix-1] {
			for id := first; id != noRow; id = s.next[id] {
				if want, ok := inBucket[id]; !ok || want != h {
					t.Fatalf("%s: bucket %d's row index has row %d under hash %x (in the bucket: %v)", what, b, id, h, ok)
				}
				seen++
			}
		}
		if seen != len(ids) {
			t.Fatalf("%s: bucket %d's row index chains %d rows of its %d", what, b, seen, len(ids))
		}
	}
}
