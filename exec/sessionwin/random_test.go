package sessionwin

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/brute"
)

// randInput is the input of the randomized test: a key, the time, and
// one column of each kind of argument.
const randInput = "varchar timestamp(3) bigint double varchar decimal(8,2)"

// randCalls covers every aggregate, DISTINCT among them.
var randCalls = []string{"count(*)", "count(2)", "sum(2)", "avg(2)", "sum(3)", "avg(3)", "min(4)",
	"max(5)", "sum(5)", "max(1)", "count(distinct 4)", "sum(distinct 2)", "avg(distinct 3)", "min(3)"}

// TestSessionRandom feeds random append-only rows (out of order within the
// watermark's delay, never late) and random watermarks to a running and an
// EmitOnClose operator, and compares them with a brute-force sessionization
// of every row seen so far: the running output's integral must be exactly
// the current sessions after every step, and the EmitOnClose output exactly
// the sessions the watermark has closed.
func TestSessionRandom(t *testing.T) {
	seeds := uint64(8)
	if testing.Short() {
		seeds = 2
	}
	for _, keyed := range []bool{true, false} {
		for seed := uint64(1); seed <= seeds; seed++ {
			t.Run(fmt.Sprintf("keyed=%t/seed=%d", keyed, seed), func(t *testing.T) {
				runRandom(t, keyed, seed)
			})
		}
	}
}

func runRandom(t *testing.T, keyed bool, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	var keys []int
	if keyed {
		keys = []int{0}
	}
	gap := int64(3 + rng.IntN(15))
	cfg := testConfig(t, randInput, keys, 1, gap, randCalls...)
	alloc := exectest.Alloc(t)
	ctx := context.Background()
	open := func(emitOnClose bool) (*Agg, *exec.Env, *exectest.Collector) {
		c := cfg
		c.EmitOnClose = emitOnClose
		w, err := NewAgg(c)
		if err != nil {
			t.Fatal(err)
		}
		env := exec.NewTestEnv(alloc)
		if err := w.Open(ctx, env); err != nil {
			t.Fatal(err)
		}
		return w, env, exectest.NewCollector(t, exectest.CollectorOptions{Format: exectest.Millis})
	}
	run, runEnv, runOut := open(false)
	defer run.Close()
	eoc, eocEnv, eocOut := open(true)
	defer eoc.Close()

	ts := exectest.Types(t, randInput)
	var seen [][]types.Datum
	wm, maxT := int64(-50), int64(-50)
	check := func(step int, final bool) {
		t.Helper()
		all := bruteSessions(cfg, seen, wm, final)
		if got, want := runOut.Rows(), all.rows; !slices.Equal(got, want) {
			t.Fatalf("step %d: running output\n%s\nwant\n%s", step, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if got, want := eocOut.Rows(), all.closed; !slices.Equal(got, want) {
			t.Fatalf("step %d: EmitOnClose output\n%s\nwant\n%s", step, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		checkState(t, run)
		checkState(t, eoc)
		for _, env := range []*exec.Env{runEnv, eocEnv} {
			if got := env.Metrics.StateKeys.Load(); got != int64(all.open) {
				t.Fatalf("step %d: StateKeys = %d, want %d", step, got, all.open)
			}
		}
	}
	for step := range 150 {
		if rng.IntN(4) == 0 {
			next := maxT - int64(rng.IntN(30))
			if next <= wm {
				continue
			}
			wm = next
			for _, w := range []struct {
				op  *Agg
				out *exectest.Collector
			}{{run, runOut}, {eoc, eocOut}} {
				if err := w.op.OnControl(ctx, exec.Control{Kind: exec.Watermark, Watermark: wm}, w.out); err != nil {
					t.Fatal(err)
				}
			}
			check(step, false)
			continue
		}
		rows := make([][]types.Datum, 1+rng.IntN(8))
		for i := range rows {
			rows[i] = randRow(rng, wm)
			if !rows[i][1].Null {
				maxT = max(maxT, rows[i][1].I)
			}
		}
		seen = append(seen, rows...)
		rec := types.BuildRecord(alloc, []string{"k", "t", "i", "f", "s", "d"}, ts, rows)
		for _, w := range []struct {
			op  *Agg
			out *exectest.Collector
		}{{run, runOut}, {eoc, eocOut}} {
			if err := w.op.Process(ctx, 0, exec.Chunk{Batch: rec}, w.out); err != nil {
				t.Fatal(err)
			}
		}
		rec.Release()
		check(step, false)
	}
	for _, w := range []struct {
		op  *Agg
		out *exectest.Collector
	}{{run, runOut}, {eoc, eocOut}} {
		if err := w.op.OnControl(ctx, exec.Control{Kind: exec.EndOfInput}, w.out); err != nil {
			t.Fatal(err)
		}
	}
	check(-1, true)
}

// checkState checks the invariants of w's state: each group's sessions
// are ordered and at least the gap apart, and the close heap holds exactly
// the open sessions, keyed by their current ends, in heap order.
func checkState(t *testing.T, w *Agg) {
	t.Helper()
	n := 0
	for _, g := range w.groups {
		if len(g.open) == 0 {
			t.Fatalf("group %v has no open session", g.key)
		}
		for i, s := range g.open {
			n++
			if s.group != g || s.start > s.last {
				t.Fatalf("session %d of group %v is [%d, %d]", i, g.key, s.start, s.last)
			}
			if i > 0 && s.start < g.open[i-1].last+w.cfg.Gap {
				t.Fatalf("sessions %d and %d of group %v overlap", i-1, i, g.key)
			}
			if s.heapIdx < 0 || s.heapIdx >= len(w.heap) || w.heap[s.heapIdx] != s || s.closeAt != s.last+w.cfg.Gap {
				t.Fatalf("session %d of group %v is not in the heap at its end", i, g.key)
			}
		}
	}
	if n != len(w.heap) || n != w.slots.Live() {
		t.Fatalf("%d sessions, %d in the heap, %d slots", n, len(w.heap), w.slots.Live())
	}
	for i := 1; i < len(w.heap); i++ {
		if w.heap.less(i, (i-1)/2) {
			t.Fatalf("heap entry %d precedes its parent", i)
		}
	}
}

// randRow returns a random row whose time (NULL at times) is not late
// for watermark wm.
func randRow(rng *rand.Rand, wm int64) []types.Datum {
	maybe := func(d types.Datum) types.Datum {
		if rng.IntN(6) == 0 {
			return types.NullDatum
		}
		return d
	}
	row := make([]types.Datum, 6)
	row[0] = maybe(types.StringDatum([]string{"a", "b", "c"}[rng.IntN(3)]))
	row[1] = types.IntDatum(wm + int64(rng.IntN(60)))
	if rng.IntN(20) == 0 {
		row[1] = types.NullDatum
	}
	row[2] = maybe(types.IntDatum(int64(rng.IntN(21) - 10)))
	row[3] = maybe(types.FloatDatum(float64(rng.IntN(41)-20) / 4))
	row[4] = maybe(types.StringDatum([]string{"", "x", "y", "zz"}[rng.IntN(4)]))
	row[5] = maybe(types.DecimalDatum(decimal128.FromI64(int64(rng.IntN(2001) - 1000))))
	return row
}

// bruteResult is the brute-force result: every session's row, those
// that end at or before the watermark, and the number of the others.
type bruteResult struct {
	rows, closed []string
	open         int
}

// bruteSessions sessionizes rows per key and aggregates each session; final
// closes every session.
func bruteSessions(cfg Config, rows [][]types.Datum, wm int64, final bool) bruteResult {
	var outTypes []types.T
	for _, k := range cfg.GroupKeys {
		outTypes = append(outTypes, cfg.Input[k])
	}
	byKey := map[string][][]types.Datum{}
	for _, r := range rows {
		if r[cfg.TimeCol].Null {
			continue
		}
		var key []types.Datum
		for _, k := range cfg.GroupKeys {
			key = append(key, r[k])
		}
		k := exectest.Key(key)
		byKey[k] = append(byKey[k], r)
	}
	tt := cfg.Input[cfg.TimeCol]
	outTypes = append(outTypes, tt, tt)
	for _, a := range cfg.Aggs {
		outTypes = append(outTypes, a.Type)
	}
	var res bruteResult
	for _, rs := range byKey {
		slices.SortStableFunc(rs, func(a, b []types.Datum) int { return int(a[cfg.TimeCol].I - b[cfg.TimeCol].I) })
		for lo := 0; lo < len(rs); {
			hi := lo + 1
			for hi < len(rs) && rs[hi][cfg.TimeCol].I-rs[hi-1][cfg.TimeCol].I < cfg.Gap {
				hi++
			}
			sess := rs[lo:hi]
			var out []types.Datum
			for _, k := range cfg.GroupKeys {
				out = append(out, sess[0][k])
			}
			end := sess[len(sess)-1][cfg.TimeCol].I + cfg.Gap
			out = append(out, sess[0][cfg.TimeCol], types.IntDatum(end))
			for _, a := range cfg.Aggs {
				out = append(out, brute.Aggregate(a, sess))
			}
			text := exectest.RoundRow(out, outTypes, exectest.Millis)
			res.rows = append(res.rows, text)
			if final || end <= wm {
				res.closed = append(res.closed, text)
			} else {
				res.open++
			}
			lo = hi
		}
	}
	slices.Sort(res.rows)
	slices.Sort(res.closed)
	return res
}
