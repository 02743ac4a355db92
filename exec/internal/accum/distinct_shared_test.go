package accum

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/internal/aggstate"
	"github.com/eddysql/eddy/planner/plan"
)

// opState drives several accumulators as the hash aggregate does: every
// Update of a batch before any new Result, each group in a slot of an
// arena whose first word is its row count.
type opState struct {
	t     *testing.T
	specs []Spec
	types []types.T
	accs  []Accumulator
	arena *aggstate.Arena
	args  Args
	b     Batch
	high  int
}

func newOpState(t *testing.T, specs []Spec, cols []types.T, opts Options) *opState {
	t.Helper()
	accs, arena, err := NewAll(specs, len(cols), All, opts, 1)
	if err != nil {
		t.Fatal(err)
	}
	return &opState{t: t, specs: specs, types: cols, accs: accs, arena: arena, args: NewArgs(specs)}
}

// apply inserts rows (their first value is the slot of their group).
func (s *opState) apply(rows [][]types.Datum) error {
	s.t.Helper()
	var touched, lids []int32
	local := map[int32]int32{}
	for _, r := range rows {
		slot := int32(r[0].I)
		l, ok := local[slot]
		if !ok {
			l = int32(len(touched))
			local[slot] = l
			touched = append(touched, slot)
		}
		lids = append(lids, l)
		s.grow(int(slot) + 1)
	}
	names := make([]string, len(s.types))
	for i := range names {
		names[i] = fmt.Sprint("c", i)
	}
	rec := types.BuildRecord(memory.NewGoAllocator(), names, s.types, rows)
	defer rec.Release()
	weights := make([]int64, len(rows))
	for i := range weights {
		weights[i] = 1
	}
	if err := s.args.Load(rec, weights, true); err != nil {
		return err
	}
	defer s.args.Release()
	s.b.Reset(lids, touched, s.arena)
	for _, l := range lids {
		s.b.Rows[l][0]++
	}
	for i, a := range s.accs {
		arg, w := s.args.Of(i, weights)
		if err := a.Update(&s.b, w, arg); err != nil {
			return err
		}
	}
	return nil
}

func (s *opState) grow(n int) {
	if n > s.high {
		s.high = n
		s.arena.Grow(n)
		for _, a := range s.accs {
			a.Grow(n)
		}
	}
}

// results formats every aggregate's value of the group in slot.
func (s *opState) results(slot int32) string {
	s.t.Helper()
	s.b.Reset(nil, []int32{slot}, s.arena)
	out := ""
	for i, a := range s.accs {
		k, _ := KindOf(s.specs[i].Type)
		v := Vector{Kind: k}
		v.Resize(1)
		if err := a.Result(&s.b, []int64{int64(s.b.Rows[0][0])}, &v); err != nil {
			s.t.Fatal(err)
		}
		one := state{spec: s.specs[i]}
		out += one.format(&v, 0) + " "
	}
	return out
}

// save returns the state of slot, aggregate by aggregate.
func (s *opState) save(slot int32) [][]byte {
	s.t.Helper()
	var out [][]byte
	for _, a := range s.accs {
		b, err := a.AppendState(slot, nil)
		if err != nil {
			s.t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// load loads a state save returned into slot, which is empty.
func (s *opState) load(slot int32, st [][]byte) {
	s.t.Helper()
	s.grow(int(slot) + 1)
	for i, a := range s.accs {
		rest, err := a.LoadState(slot, st[i])
		if err != nil || len(rest) != 0 {
			s.t.Fatalf("aggregate %d: %v, %d bytes left", i, err, len(rest))
		}
	}
}

func (s *opState) merge(dst, src int32) {
	s.t.Helper()
	s.arena.Row(dst)[0] += s.arena.Row(src)[0]
	for _, a := range s.accs {
		if err := a.(Merger).Merge(dst, src); err != nil {
			s.t.Fatal(err)
		}
	}
	s.free(src)
}

func (s *opState) free(slot int32) {
	for _, a := range s.accs {
		a.Free(slot)
	}
	s.arena.Clear(slot)
}

// TestSharedDistinctMatchesCounts runs DISTINCT aggregates that share
// presence sets (over an append-only input: a column, filters of it, and
// an unrelated column in the same share, so that rows add different
// values too) beside the same aggregates keeping counts in sets of their
// own, and checks that every result agrees after every batch, after
// merges and frees, and after a round trip of each one's checkpointed
// state into the other.
func TestSharedDistinctMatchesCounts(t *testing.T) {
	// Columns: the group's slot, a, a where a is even (else NULL), c, and
	// strings s and s where a is even.
	cols := []types.T{types.BigIntT, types.BigIntT, types.BigIntT, types.BigIntT, types.VarcharT, types.VarcharT}
	agg := func(f plan.AggFunc, arg, share int) Spec {
		sp := spec(f, true, cols[arg])
		sp.Arg, sp.Share = arg, share
		return sp
	}
	specs := []Spec{
		agg(plan.AggCount, 1, 1), agg(plan.AggCount, 2, 1), agg(plan.AggSum, 2, 1), agg(plan.AggCount, 3, 1),
		agg(plan.AggAvg, 1, 0), agg(plan.AggCount, 4, 2), agg(plan.AggCount, 5, 2),
		spec(plan.AggCountStar, false, types.BigIntT),
	}
	shared := newOpState(t, specs, cols, Options{AppendOnly: true})
	if _, ok := shared.accs[0].(*sharedMember[int64]); !ok {
		t.Fatalf("append-only DISTINCT is %T, not a shared member", shared.accs[0])
	}
	counted := newOpState(t, specs, cols, Options{})
	rng := rand.New(rand.NewPCG(3, 4))
	const groups = 6
	for batch := range 60 {
		var rows [][]types.Datum
		for range 1 + rng.IntN(200) {
			a := int64(rng.IntN(80))
			even, evenS := types.NullDatum, types.NullDatum
			if a%2 == 0 {
				even, evenS = types.IntDatum(a), types.StringDatum(fmt.Sprint("s", a))
			}
			rows = append(rows, []types.Datum{types.IntDatum(int64(rng.IntN(groups))), types.IntDatum(a), even,
				types.IntDatum(int64(rng.IntN(40))), types.StringDatum(fmt.Sprint("s", a)), evenS})
		}
		for _, s := range []*opState{shared, counted} {
			if err := s.apply(rows); err != nil {
				t.Fatalf("batch %d: %v", batch, err)
			}
		}
		switch batch % 20 {
		case 9: // sessions merge
			shared.merge(0, 1)
			counted.merge(0, 1)
		case 14: // a group closes
			shared.free(2)
			counted.free(2)
		}
		for slot := range int32(groups) {
			if got, want := shared.results(slot), counted.results(slot); got != want {
				t.Fatalf("batch %d, group %d: shared %s, counted %s", batch, slot, got, want)
			}
		}
	}
	// Each one's state loads into the other, into new slots.
	for slot := range int32(groups) {
		fromShared, fromCounted := shared.save(slot), counted.save(slot)
		shared.load(slot+groups, fromCounted)
		counted.load(slot+groups, fromShared)
		shared.arena.Row(slot + groups)[0] = shared.arena.Row(slot)[0]
		counted.arena.Row(slot + groups)[0] = counted.arena.Row(slot)[0]
		want := counted.results(slot)
		if got := shared.results(slot + groups); got != want {
			t.Errorf("group %d, counted state loaded shared: %s, want %s", slot, got, want)
		}
		if got := counted.results(slot + groups); got != want {
			t.Errorf("group %d, shared state loaded counted: %s, want %s", slot, got, want)
		}
	}
	if shared.accs[0].Bytes() >= counted.accs[0].Bytes()+counted.accs[1].Bytes() {
		t.Errorf("shared sets take %d bytes, two counted sets %d", shared.accs[0].Bytes(), counted.accs[0].Bytes()+counted.accs[1].Bytes())
	}
}
