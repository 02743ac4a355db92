package accum

import (
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/internal/aggstate"
)

// state drives one accumulator as an operator does: each group in a slot
// of an arena whose first word is the group's row count, which the
// operator keeps (and merges) itself.
type state struct {
	t     testing.TB
	spec  Spec
	acc   Accumulator
	arena *aggstate.Arena
	args  Args
	b     Batch
	high  int

	// The last batch applied: its record (which args read) and weights.
	rec     arrow.RecordBatch
	weights []int64
}

// newState returns the state of spec, whose argument is input column 0.
func newState(t testing.TB, spec Spec, opts Options) *state {
	t.Helper()
	accs, arena, err := NewAll([]Spec{spec}, 1, All, opts, 1)
	if err != nil {
		t.Fatal(err)
	}
	return &state{t: t, spec: spec, acc: accs[0], arena: arena, args: NewArgs([]Spec{spec})}
}

// row is a row of a batch: w occurrences of v added to the group in slot.
type row struct {
	slot int32
	w    int64
	v    types.Datum
}

// apply applies a batch of rows.
func (s *state) apply(rows []row) error {
	s.t.Helper()
	var touched, lids []int32
	local := map[int32]int32{}
	weights := make([]int64, len(rows))
	vals := make([]types.Datum, len(rows))
	for i, r := range rows {
		l, ok := local[r.slot]
		if !ok {
			l = int32(len(touched))
			local[r.slot] = l
			touched = append(touched, r.slot)
		}
		lids = append(lids, l)
		weights[i], vals[i] = r.w, r.v
		s.grow(int(r.slot) + 1)
	}
	argType := s.spec.ArgType
	if argType.Kind == types.Unknown { // COUNT(*)
		argType = types.BigIntT
	}
	if s.rec != nil {
		s.args.Release()
		s.rec.Release()
	}
	s.rec = types.BuildRecord(memory.NewGoAllocator(), []string{"a"}, []types.T{argType}, rowsOf(vals))
	s.weights = weights
	ones := !slices.ContainsFunc(weights, func(w int64) bool { return w != 1 })
	if err := s.args.Load(s.rec, weights, ones); err != nil {
		return err
	}
	s.b.Reset(lids, touched, s.arena)
	for i, l := range lids {
		s.b.Rows[l][0] += uint64(weights[i])
	}
	arg, w := s.args.Of(0, weights)
	return s.acc.Update(&s.b, w, arg)
}

// rowsOf makes one-column rows of vals.
func rowsOf(vals []types.Datum) [][]types.Datum {
	rows := make([][]types.Datum, len(vals))
	for i, v := range vals {
		rows[i] = []types.Datum{v}
	}
	return rows
}

// grow makes room for slots 0..n-1.
func (s *state) grow(n int) {
	if n > s.high {
		s.high = n
		s.arena.Grow(n)
		s.acc.Grow(n)
	}
}

// result returns the value of the group in slot, formatted.
func (s *state) result(slot int32) string {
	s.t.Helper()
	v, err := s.resultOf(slot)
	if err != nil {
		return "error: " + err.Error()
	}
	return s.format(&v, 0)
}

// resultOf returns the value of the group in slot, as Result writes it.
func (s *state) resultOf(slot int32) (Vector, error) {
	s.b.Reset(nil, []int32{slot}, s.arena)
	k, _ := KindOf(s.spec.Type)
	v := Vector{Kind: k}
	v.Resize(1)
	err := s.acc.Result(&s.b, []int64{int64(s.b.Rows[0][0])}, &v)
	return v, err
}

// format returns value j of v, a result of the aggregate, formatted.
func (s *state) format(v *Vector, j int) string {
	if !v.Valid[j] {
		return "NULL"
	}
	d := types.Datum{}
	switch v.Kind {
	case KindInt:
		d.I = v.I[j]
	case KindFloat:
		d.F = v.F[j]
	case KindDec:
		d.D = v.D[j]
	default:
		d.S = v.S[j]
	}
	return types.Format(d, s.spec.Type)
}

// merge merges the group in src into the one in dst, as a SESSION window
// does, and frees src.
func (s *state) merge(dst, src int32) error {
	m, ok := s.acc.(Merger)
	if !ok {
		s.t.Fatalf("%v does not merge", s.spec)
	}
	s.arena.Row(dst)[0] += s.arena.Row(src)[0]
	if err := m.Merge(dst, src); err != nil {
		return err
	}
	s.free(src)
	return nil
}

// free frees the group in slot.
func (s *state) free(slot int32) {
	s.acc.Free(slot)
	s.arena.Clear(slot)
}
