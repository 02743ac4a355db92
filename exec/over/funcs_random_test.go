package over

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/brute"
	"github.com/eddysql/eddy/planner/plan"
)

// funcKinds are the window functions by name, as the tests write them.
var funcKinds = map[string]plan.WinFuncKind{
	"row_number": plan.WinRowNumber, "rank": plan.WinRank, "dense_rank": plan.WinDenseRank,
	"percent_rank": plan.WinPercentRank, "cume_dist": plan.WinCumeDist, "ntile": plan.WinNtile,
	"lag": plan.WinLag, "lead": plan.WinLead, "first_value": plan.WinFirstValue,
	"last_value": plan.WinLastValue, "nth_value": plan.WinNthValue,
}

// withFuncs adds to cfg the window functions written as "rank, lag 2 1 0,
// ntile 3": a name, then the argument ordinal, N and the default ordinal
// that the function takes (ntile takes only N).
func withFuncs(t testing.TB, cfg Config, funcs string) Config {
	t.Helper()
	for i, s := range strings.Split(funcs, ",") {
		fs := strings.Fields(s)
		k, ok := funcKinds[fs[0]]
		if !ok {
			t.Fatalf("function %q: unknown", s)
		}
		f := Func{Kind: k, Arg: -1, Default: -1, Type: types.BigIntT}
		nums := make([]int64, 0, 3)
		for _, x := range fs[1:] {
			n, err := strconv.ParseInt(x, 10, 64)
			if err != nil {
				t.Fatalf("function %q: %v", s, err)
			}
			nums = append(nums, n)
		}
		switch k {
		case plan.WinPercentRank, plan.WinCumeDist:
			f.Type = types.DoubleT
		case plan.WinNtile:
			f.N = nums[0]
		case plan.WinLag, plan.WinLead, plan.WinFirstValue, plan.WinLastValue, plan.WinNthValue:
			f.Arg, f.Type = int(nums[0]), cfg.Input[nums[0]]
			if len(nums) > 1 {
				f.N = nums[1]
			}
			if len(nums) > 2 {
				f.Default = int(nums[2])
			}
		}
		cfg.Funcs = append(cfg.Funcs, f)
		cfg.Names = append(cfg.Names, "f"+strconv.Itoa(i))
	}
	return cfg
}

// TestRandomFuncs runs random changelogs through the ranking, offset and
// value functions, alone (no frame) and beside aggregates of every frame,
// and checks the integrated output against a brute-force recomputation
// after every chunk, and that the output is a minimal changelog.
func TestRandomFuncs(t *testing.T) {
	cases := []struct {
		frame plan.Frame
		aggs  string
		funcs string
	}{
		{plan.Frame{}, "", "row_number, rank, dense_rank"},
		{plan.Frame{}, "", "lag 2 1, lead 4 1, lag 2 2 1, lead 3 3 3, lag 4 0"},
		{plan.Frame{}, "", "percent_rank, cume_dist, ntile 1, ntile 3, ntile 100"},
		{plan.Frame{}, "", "row_number, lead 2 2 1, rank"},
		{plan.Frame{Kind: plan.FrameRows, Preceding: 2}, "sum 2", "first_value 2, last_value 4, nth_value 3 2, lag 4 1"},
		{plan.Frame{Kind: plan.FrameRows}, "count *", "first_value 2, nth_value 2 1, lead 2 1 1"},
		{plan.Frame{Kind: plan.FrameRowsUnbounded}, "min 3", "first_value 4, last_value 2, nth_value 2 3, row_number"},
		{plan.Frame{Kind: plan.FramePeers}, "count *", "first_value 4, last_value 2, nth_value 3 2, dense_rank"},
		{plan.Frame{Kind: plan.FramePartition}, "max 2", "first_value 2, last_value 3, nth_value 4 4, cume_dist"},
		{plan.Frame{Kind: plan.FrameRows, Preceding: 1, Following: 2}, "sum 2, min 3, count *",
			"first_value 2, last_value 4, nth_value 3 2"},
		{plan.Frame{Kind: plan.FrameRows, Preceding: -1, Following: 2}, "sum 3, max 2, count 2, avg 2",
			"first_value 2, last_value 4, lag 2 1"},
		{plan.Frame{Kind: plan.FrameRows, Preceding: 3, Following: -2}, "sum 2, min 4, count *", "last_value 3, rank"},
		{plan.Frame{Kind: plan.FrameRowsUnbounded, Following: 2}, "sum 2, max 3", "last_value 2, nth_value 4 3"},
		{plan.Frame{Kind: plan.FrameRowsUnbounded, Following: -1}, "count *, sum 3", "last_value 2, lead 2 1"},
		{plan.Frame{Kind: plan.FrameRowsToEnd, Preceding: 1}, "sum 2, min 3, avg 3", "first_value 2, last_value 4, row_number"},
		{plan.Frame{Kind: plan.FrameRowsToEnd, Preceding: -2}, "count *, max 4", "first_value 3, nth_value 2 2"},
		{plan.Frame{Kind: plan.FramePeersToEnd}, "sum 2, count *, min 3", "first_value 2, last_value 4, dense_rank"},
		{plan.Frame{Kind: plan.FrameRows, Preceding: 1, Following: 1, Groups: true}, "sum 2, count *, max 3",
			"first_value 2, last_value 4, nth_value 3 2"},
		{plan.Frame{Kind: plan.FrameRows, Preceding: 0, Following: 0, Groups: true}, "count *, min 2", "first_value 4"},
		{plan.Frame{Kind: plan.FrameRows, Preceding: 2, Following: -1, Groups: true}, "sum 2, count *", "last_value 2"},
		{plan.Frame{Kind: plan.FrameRows, Preceding: -1, Following: 2, Groups: true}, "count 2, avg 3", "first_value 4"},
		{plan.Frame{Kind: plan.FrameRowsUnbounded, Following: 1, Groups: true}, "sum 2, count *", "last_value 2"},
		{plan.Frame{Kind: plan.FrameRowsToEnd, Preceding: 1, Groups: true}, "min 2, count *", "first_value 2"},
	}
	const input = "bigint bigint bigint double varchar" // partition, order, value, double, string
	for seed := int64(1); seed <= 8; seed++ {
		for _, c := range rangeCases {
			rng := rand.New(rand.NewSource(seed))
			order := c.order
			if rng.Intn(2) == 0 {
				order += " desc"
			}
			t.Run(fmt.Sprintf("seed=%d/%s/%s/order=%q", seed, c.frame, c.funcs, order), func(t *testing.T) {
				cfg := config(t, input, []int{0}, order, c.frame, c.aggs)
				runSteps(t, withFuncs(t, cfg, c.funcs), randomSteps(rng, 40, 6, 3))
			})
		}
		for _, c := range cases {
			rng := rand.New(rand.NewSource(seed))
			order := "1"
			if rng.Intn(2) == 0 {
				order = "1 desc"
			}
			part := []int{0}
			if seed%4 == 0 {
				part = nil
			}
			t.Run(fmt.Sprintf("seed=%d/%s/%s/order=%q", seed, c.frame, c.funcs, order), func(t *testing.T) {
				var cfg Config
				if c.aggs == "" {
					in := exectest.Types(t, input)
					cfg = Config{Input: in, Partition: part, Frame: c.frame, Names: exectest.Names(len(in)),
						Order: brute.SortKeys(t, order)}
				} else {
					cfg = config(t, input, part, order, c.frame, c.aggs)
				}
				runSteps(t, withFuncs(t, cfg, c.funcs), randomSteps(rng, 40, 6, 3))
			})
		}
	}
}

// funcOracle computes function f for the row at index r of a sorted
// partition, each on its own from the definition.
func funcOracle(cfg Config, f Func, rows [][]types.Datum, r int) types.Datum {
	n := len(rows)
	first := r
	for first > 0 && peers(cfg, rows[first-1], rows[r]) {
		first--
	}
	last := r
	for last+1 < n && peers(cfg, rows[last+1], rows[r]) {
		last++
	}
	value := func(k int, ok bool) types.Datum {
		switch {
		case ok:
			return rows[k][f.Arg]
		case f.Default >= 0:
			return rows[r][f.Default]
		}
		return types.NullDatum
	}
	switch f.Kind {
	case plan.WinRowNumber:
		return types.IntDatum(int64(r + 1))
	case plan.WinRank:
		return types.IntDatum(int64(first + 1))
	case plan.WinDenseRank:
		groups := 1
		for k := 1; k <= r; k++ {
			if !peers(cfg, rows[k-1], rows[k]) {
				groups++
			}
		}
		return types.IntDatum(int64(groups))
	case plan.WinPercentRank:
		if n == 1 {
			return types.FloatDatum(0)
		}
		return types.FloatDatum(float64(first) / float64(n-1))
	case plan.WinCumeDist:
		return types.FloatDatum(float64(last+1) / float64(n))
	case plan.WinNtile:
		// Deal the rows out bucket by bucket, the larger buckets first.
		bucket, left := int64(1), 0
		for k, size := 0, 0; k <= r; k++ {
			if left == 0 {
				size = n / int(f.N)
				if int(bucket) <= n%int(f.N) {
					size++
				}
				if k > 0 {
					bucket++
					size = n / int(f.N)
					if int(bucket) <= n%int(f.N) {
						size++
					}
				}
				left = size
			}
			left--
		}
		return types.IntDatum(bucket)
	case plan.WinLag:
		return value(r-int(f.N), r-int(f.N) >= 0)
	case plan.WinLead:
		return value(r+int(f.N), r+int(f.N) < n)
	}
	lo, hi := frame(cfg, rows, r)
	switch {
	case lo > hi:
		return types.NullDatum
	case f.Kind == plan.WinFirstValue:
		return rows[lo][f.Arg]
	case f.Kind == plan.WinLastValue:
		return rows[hi][f.Arg]
	}
	if k := lo + int(f.N) - 1; k <= hi {
		return rows[k][f.Arg]
	}
	return types.NullDatum
}

// funcOutputs appends the oracle's function results of row r to res.
func funcOutputs(cfg Config, rows [][]types.Datum, r int, res []types.Datum) []types.Datum {
	for _, f := range cfg.Funcs {
		res = append(res, funcOracle(cfg, f, rows, r))
	}
	return res
}

// TestNtile checks the buckets against SQL's definition on small cases.
func TestNtile(t *testing.T) {
	for _, c := range []struct {
		total, n int64
		want     string
	}{
		{10, 3, "1 1 1 1 2 2 2 3 3 3"},
		{5, 5, "1 2 3 4 5"},
		{3, 5, "1 2 3"},
		{6, 4, "1 1 2 2 3 4"},
	} {
		var got []string
		for r := range c.total {
			got = append(got, strconv.FormatInt(ntile(r, c.total, c.n), 10))
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("NTILE(%d) of %d rows: %s, want %s", c.n, c.total, g, c.want)
		}
	}
}

// TestRestoreFuncs snapshots the ranking, offset and value functions at
// random steps and checks that instances restored at parallelism 1, 2 and
// 3 continue exactly as the uninterrupted run.
func TestRestoreFuncs(t *testing.T) {
	const input = "bigint bigint bigint double varchar"
	cases := []struct {
		frame plan.Frame
		funcs string
	}{
		{plan.Frame{}, "row_number, rank, dense_rank, lag 2 1 1, lead 4 2"},
		{plan.Frame{}, "percent_rank, cume_dist, ntile 4"},
		{plan.Frame{Kind: plan.FrameRows, Preceding: 2}, "first_value 2, last_value 3, nth_value 4 2"},
		{plan.Frame{Kind: plan.FrameRows, Preceding: 1, Following: 2}, "first_value 2, last_value 3"},
		{plan.Frame{Kind: plan.FrameRowsToEnd}, "last_value 2, nth_value 4 2, lead 3 1"},
		{plan.Frame{Kind: plan.FrameRows, Preceding: 1, Following: 1, Groups: true}, "first_value 2, last_value 3"},
		{plan.Frame{Kind: plan.FrameRows, Preceding: 2, Following: 1, Range: true}, "first_value 2, last_value 3"},
	}
	for seed := int64(1); seed <= 4; seed++ {
		for _, c := range cases {
			part := []int{0}
			if seed%3 == 0 {
				part = nil
			}
			t.Run(fmt.Sprintf("seed=%d/%s/partitioned=%t", seed, c.funcs, part != nil), func(t *testing.T) {
				rng := rand.New(rand.NewSource(seed))
				in := exectest.Types(t, input)
				cfg := withFuncs(t, Config{Input: in, Partition: part, Frame: c.frame, Names: exectest.Names(len(in)),
					Order: brute.SortKeys(t, "1 desc")}, c.funcs)
				steps := randomSteps(rng, 30, 8, 5)
				snaps := []int{3 + rng.Intn(10), 18 + rng.Intn(6)}
				exectest.CheckRestore(t, exectest.Restore{
					New:   exectest.Maker(t, func() (*Agg, error) { return New(cfg) }),
					Steps: steps, Keys: part, Snapshots: snaps,
					Options: exectest.CollectorOptions{Minimal: true, Exact: true},
				})
			})
		}
	}
}

// TestRandomFuncsLargePartition drives one partition of thousands of rows
// (trees of several levels, for the rows and for DENSE_RANK's peer groups)
// through the ranking and offset functions.
func TestRandomFuncsLargePartition(t *testing.T) {
	if testing.Short() {
		t.Skip("large partition")
	}
	rng := rand.New(rand.NewSource(11))
	in := exectest.Types(t, "bigint bigint bigint double varchar")
	cfg := withFuncs(t, Config{Input: in, Frame: plan.Frame{}, Names: exectest.Names(len(in)),
		Order: brute.SortKeys(t, "1 desc")}, "row_number, rank, dense_rank, lag 2 3 1, lead 4 2")
	var steps []exectest.Step
	steps = append(steps, randomSteps(rng, 20, 300, 0)...)
	steps = append(steps, randomSteps(rng, 30, 20, 0)...)
	runSteps(t, cfg, steps)
}

// rangeCases are RANGE frames with offsets over the integer ORDER BY
// column 1 and the DOUBLE column 3, for TestRandomFuncs.
var rangeCases = []struct {
	frame       plan.Frame
	order       string
	aggs, funcs string
}{
	{plan.Frame{Kind: plan.FrameRows, Range: true, Preceding: 1, Following: 1}, "1", "sum 2, count *, min 3", "first_value 2, last_value 4"},
	{plan.Frame{Kind: plan.FrameRows, Range: true, Preceding: 2}, "1", "count *, max 2", "nth_value 2 2"},
	{plan.Frame{Kind: plan.FrameRows, Range: true, Preceding: -1, Following: 3}, "1", "count *, sum 2", "first_value 2"},
	{plan.Frame{Kind: plan.FrameRows, Range: true, Preceding: 3, Following: -1}, "1", "count *, avg 2", "last_value 4"},
	{plan.Frame{Kind: plan.FrameRows, Range: true}, "1", "count *", "first_value 2"},
	{plan.Frame{Kind: plan.FrameRowsUnbounded, Range: true, Following: 2}, "1", "sum 2, count *", "last_value 2"},
	{plan.Frame{Kind: plan.FrameRowsToEnd, Range: true, Preceding: 1}, "1", "min 2, count *", "first_value 2"},
	{plan.Frame{Kind: plan.FrameRows, Range: true, PrecedingF: 30.5, FollowingF: 10}, "3", "sum 2, count *", "first_value 4, last_value 2"},
	{plan.Frame{Kind: plan.FrameRowsUnbounded, Range: true, FollowingF: 12.25}, "3", "count *, max 2", "last_value 2"},
	{plan.Frame{Kind: plan.FrameRowsToEnd, Range: true, PrecedingF: 5}, "3", "count *", "first_value 2"},
}
