package accum

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// stateValue is randValue with, for BIGINT, the extremes at times, so that
// integer sums carry past 64 bits.
func stateValue(rng *rand.Rand, t types.T) types.Datum {
	if t.Physical() == types.PhysInt64 && t.Kind == types.BigInt && rng.IntN(6) == 0 {
		return types.IntDatum([]int64{math.MaxInt64, math.MinInt64 + 1}[rng.IntN(2)])
	}
	return randValue(rng, t)
}

// stateSpecs returns every aggregate call over every argument type the
// round trip covers, each with the name of its case.
func stateSpecs() (names []string, specs []Spec) {
	argTypes := []types.T{types.BigIntT, types.DoubleT, types.DecimalT(8, 2), types.VarcharT, types.BoolT,
		types.DateT, types.TimestampT(3), types.NullT}
	funcs := []plan.AggFunc{plan.AggCountStar, plan.AggCount, plan.AggSum, plan.AggAvg, plan.AggMin, plan.AggMax,
		plan.AggApproxCountDistinct}
	for _, at := range argTypes {
		for _, f := range funcs {
			for _, distinct := range []bool{false, true} {
				sp := spec(f, distinct, at)
				if sp.Check(1, All) != nil || (f == plan.AggCountStar && (distinct || at.Kind != types.BigInt)) {
					continue
				}
				names = append(names, fmt.Sprintf("%s/distinct=%t/%s", f, distinct, at))
				specs = append(specs, sp)
			}
		}
	}
	return names, specs
}

// TestStateRoundTrip checks every accumulator kind: random state in
// several slots (append-only, or with retractions of earlier rows),
// encoded slot by slot and decoded into another accumulator (into other
// slots), gives the same results, bit for bit, and goes on giving the
// same results under the same further rows; every strict prefix of an
// encoding fails to decode with ErrCorruptState, and no corruption of it
// panics. An accumulator that encodes from its arena row (RowState) gives
// the same bytes that way whenever it says it can, which both happens and
// not (a SUM's carry).
func TestStateRoundTrip(t *testing.T) {
	names, specs := stateSpecs()
	if len(specs) < 40 {
		t.Fatalf("only %d aggregate calls", len(specs))
	}
	rowStates = [2]int{}
	for i, sp := range specs {
		for _, appendOnly := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/append-only=%t", names[i], appendOnly), func(t *testing.T) {
				checkRoundTrip(t, sp, Options{AppendOnly: appendOnly})
			})
		}
	}
	if rowStates[0] == 0 || rowStates[1] == 0 {
		t.Fatalf("encodings by arena row: %d compared, %d refused; want both", rowStates[1], rowStates[0])
	}
}

// rowStates counts, in TestStateRoundTrip, the states a RowState
// accumulator would not encode from its arena row ([0]) and those it
// did, compared with AppendState ([1]).
var rowStates [2]int

func checkRoundTrip(t *testing.T, sp Spec, opts Options) {
	rng := rand.New(rand.NewPCG(uint64(sp.Func)<<8|uint64(sp.ArgType.Kind), uint64(b2i(opts.AppendOnly))))
	const slots = 6
	for round := range 8 {
		a := newState(t, sp, opts)
		held := make([][]types.Datum, slots) // by slot: values inserted and not retracted
		gen := func(n int) []row {
			var rows []row
			for range n {
				s := int32(rng.IntN(slots))
				if !opts.AppendOnly && len(held[s]) > 0 && rng.IntN(3) == 0 {
					k := rng.IntN(len(held[s]))
					rows = append(rows, row{slot: s, w: -1, v: held[s][k]})
					held[s] = append(held[s][:k], held[s][k+1:]...)
					continue
				}
				v := stateValue(rng, sp.ArgType)
				rows = append(rows, row{slot: s, w: 1, v: v})
				held[s] = append(held[s], v)
			}
			return rows
		}
		for range 1 + rng.IntN(6) {
			if err := a.apply(gen(1 + rng.IntN(40))); err != nil {
				t.Fatal(err)
			}
			a.resultVec(int32(rng.IntN(slots))) // as an operator reads results between batches
		}
		// Decode slot s of a into slot s+1 of b: LoadState must find
		// everything from the slot it is given.
		b := newState(t, sp, opts)
		b.grow(slots + 1)
		for s := range int32(slots) {
			enc, err := a.acc.AppendState(s, nil)
			if err != nil {
				t.Fatal(err)
			}
			rest, err := b.acc.LoadState(s+1, enc)
			if err != nil {
				t.Fatalf("round %d slot %d: %v", round, s, err)
			}
			if len(rest) != 0 {
				t.Fatalf("round %d slot %d: %d bytes left", round, s, len(rest))
			}
			b.arena.Row(s + 1)[0] = a.arena.Row(s)[0] // the operator restores the row count
			checkCorruptions(t, sp, opts, enc, rng)
			if rs, ok := a.acc.(RowState); ok {
				if !rs.RowStateOnly() {
					rowStates[0]++
				} else if got := rs.AppendRowState(a.arena.View().Row(s), nil); string(got) != string(enc) {
					t.Fatalf("round %d slot %d: encoded from the arena row % x, AppendState % x", round, s, got, enc)
				} else {
					rowStates[1]++
				}
			}
		}
		same := func(when string) {
			t.Helper()
			for s := range int32(slots) {
				va, vb := a.resultVec(s), b.resultVec(s+1)
				if !va.Same(0, &vb, 0) {
					t.Fatalf("round %d %s: slot %d: %s, restored %s", round, when, s, a.format(&va, 0), b.format(&vb, 0))
				}
			}
		}
		same("after restore")
		for range 3 {
			rows := gen(1 + rng.IntN(40))
			moved := make([]row, len(rows))
			for i, r := range rows {
				moved[i] = r
				moved[i].slot++
			}
			errA, errB := a.apply(rows), b.apply(moved)
			if (errA == nil) != (errB == nil) {
				t.Fatalf("round %d: update: %v, restored %v", round, errA, errB)
			}
			same("after more rows")
		}
	}
}

// checkCorruptions decodes every strict prefix of enc (each must fail
// with ErrCorruptState) and random corruptions of it (which must not
// panic) into fresh state.
func checkCorruptions(t *testing.T, sp Spec, opts Options, enc []byte, rng *rand.Rand) {
	t.Helper()
	c := newState(t, sp, opts)
	c.grow(1)
	for n := range len(enc) {
		c.free(0)
		if _, err := c.acc.LoadState(0, enc[:n]); !errors.Is(err, ErrCorruptState) {
			t.Fatalf("prefix of %d of %d bytes %x: got %v", n, len(enc), enc, err)
		}
	}
	bad := make([]byte, len(enc))
	for range 8 {
		copy(bad, enc)
		if len(bad) > 0 {
			bad[rng.IntN(len(bad))] ^= byte(1 + rng.IntN(255))
		}
		c.free(0)
		_, _ = c.acc.LoadState(0, bad)
		c.resultVec(0)
	}
}

// resultVec returns the value of the group in slot.
func (s *state) resultVec(slot int32) Vector {
	s.t.Helper()
	v, _ := s.resultOf(slot) // an error shows as the value compared
	return v
}
