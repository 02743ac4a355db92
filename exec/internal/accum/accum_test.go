package accum

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/internal/aggstate"
	"github.com/eddysql/eddy/planner/plan"
)

// spec returns the aggregate f over an argument of type t (column 0).
func spec(f plan.AggFunc, distinct bool, t types.T) Spec {
	if f == plan.AggCountStar {
		return Spec{Func: f, Arg: -1, Type: types.BigIntT}
	}
	return Spec{Func: f, Distinct: distinct, Arg: 0, ArgType: t, Type: plan.AggResultType(f, t)}
}

// randValue returns a random value of type t, NULL at times. Doubles are
// multiples of 1/4, whose sums are exact, and at times infinite or NaN.
func randValue(rng *rand.Rand, t types.T) types.Datum {
	if rng.IntN(8) == 0 {
		return types.NullDatum
	}
	switch t.Physical() {
	case types.PhysFloat64:
		switch rng.IntN(40) {
		case 0:
			return types.FloatDatum(math.Inf(1))
		case 1:
			return types.FloatDatum(math.Inf(-1))
		case 2:
			return types.FloatDatum(math.NaN())
		}
		return types.FloatDatum(float64(rng.IntN(41)-20) / 4)
	case types.PhysDecimal:
		return types.DecimalDatum(decimal128.FromI64(int64(rng.IntN(2001) - 1000)))
	case types.PhysString:
		return types.StringDatum([]string{"", "a", "b", "zz"}[rng.IntN(4)])
	case types.PhysBool:
		return types.BoolDatum(rng.IntN(2) == 0)
	}
	return types.IntDatum(int64(rng.IntN(21) - 10))
}

// TestMergeIsOneGroup checks every accumulator that merges: rows spread
// over two groups, merged, give the result of the same rows in one group,
// and further rows land in the merged group alike.
func TestMergeIsOneGroup(t *testing.T) {
	argTypes := []types.T{types.BigIntT, types.DoubleT, types.DecimalT(8, 2), types.VarcharT, types.BoolT, types.DateT}
	funcs := []plan.AggFunc{plan.AggCountStar, plan.AggCount, plan.AggSum, plan.AggAvg, plan.AggMin, plan.AggMax}
	for _, appendOnly := range []bool{true, false} {
		for _, at := range argTypes {
			for _, f := range funcs {
				for _, distinct := range []bool{false, true} {
					sp := spec(f, distinct, at)
					if sp.Check(1, All) != nil || (distinct && (f == plan.AggMin || f == plan.AggMax || f == plan.AggCountStar)) {
						continue
					}
					opts := Options{AppendOnly: appendOnly}
					if _, ok := newState(t, sp, opts).acc.(Merger); !ok {
						if appendOnly {
							t.Errorf("%s(%v) over %s does not merge over an append-only input", f, distinct, at)
						}
						continue
					}
					name := fmt.Sprintf("%s/distinct=%t/%s/append-only=%t", f, distinct, at, appendOnly)
					if f == plan.AggCountStar {
						name = fmt.Sprintf("COUNT(*)/%s/append-only=%t", at, appendOnly)
					}
					t.Run(name, func(t *testing.T) { checkMerge(t, sp, opts) })
				}
			}
		}
	}
}

func checkMerge(t *testing.T, sp Spec, opts Options) {
	rng := rand.New(rand.NewPCG(uint64(sp.Func), uint64(sp.ArgType.Kind)))
	for round := range 20 {
		s := newState(t, sp, opts)
		// Slots 0 and 1 merge into 0; slot 2 holds every row; slot 3 is
		// another group that merges nothing.
		var split, whole []row
		for range 1 + rng.IntN(12) {
			v := randValue(rng, sp.ArgType)
			split = append(split, row{slot: int32(rng.IntN(2)), w: 1, v: v})
			whole = append(whole, row{slot: 2, w: 1, v: v}, row{slot: 3, w: 1, v: v})
		}
		for _, rows := range [][]row{split, whole} {
			if err := s.apply(rows); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.merge(0, 1); err != nil {
			t.Fatal(err)
		}
		if got, want := s.result(0), s.result(2); got != want {
			t.Fatalf("round %d: merged %s, one group %s (rows %v)", round, got, want, whole)
		}
		v := randValue(rng, sp.ArgType)
		if err := s.apply([]row{{slot: 0, w: 1, v: v}, {slot: 2, w: 1, v: v}}); err != nil {
			t.Fatal(err)
		}
		if got, want := s.result(0), s.result(2); got != want {
			t.Fatalf("round %d: after a row, merged %s, one group %s", round, got, want)
		}
		// A freed slot starts empty.
		s.free(0)
		if err := s.apply([]row{{slot: 0, w: 1, v: v}, {slot: 1, w: 1, v: v}}); err != nil {
			t.Fatal(err)
		}
		if got, want := s.result(0), s.result(1); got != want {
			t.Fatalf("round %d: reused slot %s, new slot %s", round, got, want)
		}
	}
}

// TestIntMinMaxFreeReleasesSpilled checks that freeing groups whose MIN or
// MAX multisets spilled out of the arena returns their pool entries.
func TestIntMinMaxFreeReleasesSpilled(t *testing.T) {
	s := newState(t, spec(plan.AggMax, false, types.BigIntT), Options{})
	var rows []row
	for slot := range int32(3) {
		for v := range 2 * aggstate.InlineValues {
			rows = append(rows, row{slot: slot, w: 1, v: types.IntDatum(int64(v))})
		}
	}
	if err := s.apply(rows); err != nil {
		t.Fatal(err)
	}
	sets := &s.acc.(*intMinMaxAgg).sets
	if got := sets.Spilled(); got != 3 {
		t.Fatalf("%d multisets spilled, want 3", got)
	}
	for slot := range int32(3) {
		if got, want := s.result(slot), fmt.Sprint(2*aggstate.InlineValues-1); got != want {
			t.Fatalf("MAX of slot %d = %s, want %s", slot, got, want)
		}
		s.free(slot)
	}
	if got := sets.Spilled(); got != 0 {
		t.Fatalf("after freeing every group: %d spilled", got)
	}
}

// TestAppendOnlyRefusesRetractions checks that an accumulator planned for
// an append-only input fails on a retraction instead of computing a wrong
// result.
func TestAppendOnlyRefusesRetractions(t *testing.T) {
	for _, tc := range []struct {
		sp   Spec
		want error
	}{
		{spec(plan.AggMax, false, types.BigIntT), ErrAppendOnly},
		{spec(plan.AggMin, false, types.VarcharT), ErrAppendOnly},
		{spec(plan.AggApproxCountDistinct, false, types.BigIntT), ErrApproxRetraction},
		{spec(plan.AggCount, true, types.BigIntT), ErrAppendOnly},
		{spec(plan.AggCount, true, types.VarcharT), ErrAppendOnly},
		{spec(plan.AggSum, true, types.DoubleT), ErrAppendOnly},
	} {
		s := newState(t, tc.sp, Options{AppendOnly: true})
		err := s.apply([]row{{slot: 0, w: 1, v: randValue(rand.New(rand.NewPCG(1, 2)), tc.sp.ArgType)}, {slot: 0, w: -1, v: types.IntDatum(1)}})
		if !errors.Is(err, tc.want) {
			t.Errorf("%s over %s: got %v, want %v", tc.sp.Func, tc.sp.ArgType, err, tc.want)
		}
	}
}

func TestCheck(t *testing.T) {
	countStar := spec(plan.AggCountStar, false, types.T{})
	for _, tc := range []struct {
		name        string
		sp          Spec
		f           Features
		ok, notSupp bool
	}{
		{"COUNT(*)", countStar, Features{}, true, false},
		{"COUNT(*) as DOUBLE", Spec{Func: plan.AggCountStar, Arg: -1, Type: types.DoubleT}, All, false, false},
		{"COUNT of NULL", spec(plan.AggCount, false, types.NullT), Features{}, true, false},
		{"SUM of DECIMAL", spec(plan.AggSum, false, types.DecimalT(10, 2)), Features{}, true, false},
		{"SUM of DECIMAL at another scale", Spec{Func: plan.AggSum, ArgType: types.DecimalT(10, 2), Type: types.DecimalT(38, 3)}, All, false, false},
		{"SUM of VARCHAR", spec(plan.AggSum, false, types.VarcharT), All, false, true},
		{"AVG of BOOLEAN", spec(plan.AggAvg, false, types.BoolT), All, false, true},
		{"MIN of a DATE as a TIMESTAMP", Spec{Func: plan.AggMin, ArgType: types.DateT, Type: types.TimestampT(3)}, All, false, false},
		{"MIN of NULL", spec(plan.AggMin, false, types.NullT), All, false, true},
		{"MIN(DISTINCT) without DISTINCT", spec(plan.AggMin, true, types.BigIntT), Features{}, true, false},
		{"COUNT(DISTINCT) without DISTINCT", spec(plan.AggCount, true, types.BigIntT), Features{}, false, true},
		{"COUNT(DISTINCT)", spec(plan.AggCount, true, types.BigIntT), Features{Distinct: true}, true, false},
		{"APPROX_COUNT_DISTINCT without it", spec(plan.AggApproxCountDistinct, false, types.BigIntT), Features{Distinct: true}, false, true},
		{"APPROX_COUNT_DISTINCT", spec(plan.AggApproxCountDistinct, false, types.VarcharT), All, true, false},
		{"APPROX_COUNT_DISTINCT(DISTINCT)", spec(plan.AggApproxCountDistinct, true, types.VarcharT), All, false, false},
		{"argument out of range", Spec{Func: plan.AggSum, Arg: 1, ArgType: types.BigIntT, Type: types.BigIntT}, All, false, false},
		{"unknown function", Spec{Func: 0, Arg: -1, Type: types.BigIntT}, All, false, true},
	} {
		err := tc.sp.Check(1, tc.f)
		if (err == nil) != tc.ok || errors.Is(err, ErrNotSupported) != tc.notSupp {
			t.Errorf("%s: got %v, want ok %t, not supported %t", tc.name, err, tc.ok, tc.notSupp)
		}
	}
}

// TestInt128 checks the 128-bit arithmetic against math/big, and that
// Float64 rounds as the hash aggregate's AVG always has.
func TestInt128(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	toBig := func(x Int128) *big.Int {
		b := new(big.Int).Lsh(big.NewInt(x.Hi), 64)
		return b.Add(b, new(big.Int).SetUint64(x.Lo))
	}
	edge := []int64{0, 1, -1, math.MaxInt64, math.MinInt64}
	pick := func() int64 {
		if rng.IntN(3) == 0 {
			return edge[rng.IntN(len(edge))]
		}
		return int64(rng.Uint64())
	}
	for range 2000 {
		var x, y Int128
		want, wantY := new(big.Int), new(big.Int)
		for range 1 + rng.IntN(4) {
			v := pick()
			x, y = x.Add64(v), y.Sub64(v)
			want.Add(want, big.NewInt(v))
			wantY.Sub(wantY, big.NewInt(v))
		}
		if toBig(x).Cmp(want) != 0 || toBig(y).Cmp(wantY) != 0 {
			t.Fatalf("Add64/Sub64: %v, %v; want %v, %v", toBig(x), toBig(y), want, wantY)
		}
		if got := toBig(x.Add(y)); got.Sign() != 0 {
			t.Fatalf("x + (−x) = %v", got)
		}
		if got, want := toBig(x.Sub(y)), new(big.Int).Sub(want, wantY); got.Cmp(want) != 0 {
			t.Fatalf("Sub: %v, want %v", got, want)
		}
		v, err := x.Int64()
		if fits := want.IsInt64(); fits != (err == nil) || (fits && v != want.Int64()) {
			t.Fatalf("Int64 of %v: %d, %v", want, v, err)
		}
		carry := x.Hi + int64(x.Lo>>63)
		if got, want := x.Float64(), float64(carry)*(1<<64)+float64(int64(x.Lo)); got != want {
			t.Fatalf("Float64 of %v: %v, want %v", toBig(x), got, want)
		}
	}
}

func TestAddDecimal(t *testing.T) {
	top := decimal128.New(math.MaxInt64, math.MaxUint64)
	if _, err := AddDecimal(top, decimal128.FromI64(1)); !errors.Is(err, ErrOverflow) {
		t.Errorf("the largest decimal + 1: %v", err)
	}
	if got, err := AddDecimal(top, decimal128.FromI64(-1)); err != nil || got != top.Sub(decimal128.FromI64(1)) {
		t.Errorf("the largest decimal - 1: %v, %v", got, err)
	}
	if _, err := DecimalSum(top); !errors.Is(err, ErrOverflow) {
		t.Errorf("a sum of 39 digits: %v", err)
	}
}

// TestFloatSum checks the compensated sum and its infinities and NaNs.
func TestFloatSum(t *testing.T) {
	var s FloatSum
	for _, v := range []float64{1e100, 1, -1e100} {
		s.Add(v)
	}
	if got := s.Value(); got != 1 {
		t.Errorf("1e100 + 1 - 1e100 = %v, want 1", got)
	}
	s.Add(math.Inf(1))
	if got := s.Value(); !math.IsInf(got, 1) {
		t.Errorf("with +Inf: %v", got)
	}
	s.Add(math.Inf(-1))
	if got := s.Value(); !math.IsNaN(got) {
		t.Errorf("with +Inf and -Inf: %v", got)
	}
}

// TestPartialIsOneBatch checks every accumulator that computes partials:
// a batch's partial for each group is what the group's state holds after
// that batch alone.
func TestPartialIsOneBatch(t *testing.T) {
	argTypes := []types.T{types.BigIntT, types.DoubleT, types.DecimalT(8, 2), types.VarcharT, types.BoolT, types.DateT}
	funcs := []plan.AggFunc{plan.AggCountStar, plan.AggCount, plan.AggSum, plan.AggAvg, plan.AggMin, plan.AggMax}
	for _, at := range argTypes {
		for _, f := range funcs {
			sp := spec(f, false, at)
			if sp.Check(1, Features{}) != nil {
				continue
			}
			if _, ok := newState(t, sp, Options{AppendOnly: true}).acc.(Partial); !ok {
				t.Errorf("%s over %s computes no partial over an append-only input", f, at)
				continue
			}
			t.Run(fmt.Sprintf("%s/%s", f, at), func(t *testing.T) { checkPartial(t, sp) })
		}
	}
}

func checkPartial(t *testing.T, sp Spec) {
	rng := rand.New(rand.NewPCG(uint64(sp.Func), uint64(sp.ArgType.Kind)+7))
	for round := range 20 {
		s := newState(t, sp, Options{AppendOnly: true})
		var rows []row
		for range 1 + rng.IntN(20) {
			rows = append(rows, row{slot: int32(rng.IntN(4)), w: 1, v: randValue(rng, sp.ArgType)})
		}
		if err := s.apply(rows); err != nil {
			t.Fatal(err)
		}
		// The batch s.apply made: its local groups in s.b.Touched.
		groups := len(s.b.Touched)
		arg, w := s.args.Of(0, s.weights)
		k, _ := KindOf(sp.Type)
		got := Vector{Kind: k}
		got.Resize(groups)
		if err := s.acc.(Partial).Partial(s.b.Lids, groups, w, arg, &got); err != nil {
			t.Fatal(err)
		}
		for j, slot := range slices.Clone(s.b.Touched) {
			if g, want := s.format(&got, j), s.result(slot); g != want {
				t.Fatalf("round %d, group %d: partial %s, state %s (rows %v)", round, slot, g, want, rows)
			}
		}
	}
}

// TestLoadChecksTheArrowType checks that an argument column of the wrong
// Arrow type is an error naming the column, for every kind.
func TestLoadChecksTheArrowType(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	sb := array.NewStringBuilder(alloc)
	sb.AppendValues([]string{"a", "b"}, nil)
	strs := sb.NewArray()
	sb.Release()
	defer strs.Release()
	fb := array.NewFloat64Builder(alloc)
	fb.AppendValues([]float64{1, 2}, nil)
	floats := fb.NewArray()
	fb.Release()
	defer floats.Release()
	for _, tc := range []struct {
		k    Kind
		arr  arrow.Array
		want string
	}{
		{KindInt, strs, "argument column 3: expected an integer-like column, got utf8"},
		{KindFloat, strs, "argument column 3: expected float64, got utf8"},
		{KindDec, strs, "argument column 3: expected decimal128, got utf8"},
		{KindStr, floats, "argument column 3: expected utf8, got float64"},
	} {
		a := &Arg{Ord: 3, Kind: tc.k}
		if err := a.Load(tc.arr, []int64{1, 1}, true); err == nil || err.Error() != tc.want {
			t.Errorf("kind %d: %v, want %q", tc.k, err, tc.want)
		}
	}
}
