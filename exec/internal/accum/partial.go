package accum

import (
	"fmt"

	"github.com/eddysql/eddy/exec/internal/vec"
)

// Partial is implemented by the accumulators that compute the first phase
// of two-phase aggregation (COUNT, SUM, MIN and MAX over an append-only
// input): the value of each group over one batch's rows alone, which the
// final phase then merges, folded with the kernels Update folds a batch
// with, as a local aggregate needs it: no state, no arena, nothing kept
// after the batch.
type Partial interface {
	// Partial writes to dst the value over the batch's rows of each of
	// its groups: row i, of weight w[i], is in local group lids[i] of
	// 0..groups-1. It touches no group's state.
	Partial(lids []int32, groups int, w []int64, arg *Arg, dst *Vector) error
}

// Partial counts rows: w holds the rows' weights.
func (a *countStarAgg) Partial(lids []int32, groups int, w []int64, _ *Arg, dst *Vector) error {
	a.delta = foldCounts(a.delta, lids, groups, w)
	putCounts(a.delta, dst)
	return nil
}

func (a *countNullAgg) Partial(_ []int32, groups int, _ []int64, _ *Arg, dst *Vector) error {
	for j := range groups {
		dst.I[j], dst.Valid[j] = 0, true
	}
	return nil
}

func (a *countAgg) Partial(lids []int32, groups int, w []int64, _ *Arg, dst *Vector) error {
	a.delta = foldCounts(a.delta, lids, groups, w)
	putCounts(a.delta, dst)
	return nil
}

func (a *intSumAgg) Partial(lids []int32, groups int, w []int64, arg *Arg, dst *Vector) error {
	a.fold(lids, groups, w, arg)
	for j, sum := range a.sums {
		if err := a.put(dst, j, sum, a.n[j]); err != nil {
			return err
		}
	}
	return nil
}

// Partial sums each group's doubles in the batch's order, as Update does.
func (a *floatSumAgg) Partial(lids []int32, groups int, w []int64, arg *Arg, dst *Vector) error {
	sums := vec.Resize(a.partial, groups)
	a.partial = sums
	clear(sums)
	for i, l := range lids {
		if w[i] == 0 {
			continue
		}
		x := arg.F[i]
		if w[i] < 0 {
			x = -x
		}
		s := &sums[l]
		s.Add(x)
		s.n += w[i]
	}
	for j := range sums {
		a.put(dst, j, sums[j].Value(), sums[j].n)
	}
	return nil
}

// Partial sums each group's decimals, failing beyond 38 digits (SUM's
// DECIMAL(38,s)).
func (a *decSumAgg) Partial(lids []int32, groups int, w []int64, arg *Arg, dst *Vector) error {
	a.sums, a.n = vec.Resize(a.sums, groups), vec.Resize(a.n, groups)
	clear(a.sums)
	clear(a.n)
	for i, l := range lids {
		if w[i] == 0 {
			continue
		}
		x := arg.D[i]
		if w[i] < 0 {
			x = x.Negate()
		}
		var err error
		if a.sums[l], err = AddDecimal(a.sums[l], x); err != nil {
			return err
		}
		a.n[l] += w[i]
	}
	for j, sum := range a.sums {
		if err := a.put(dst, j, sum, a.n[j]); err != nil {
			return err
		}
	}
	return nil
}

func (a *intExtremeAgg) Partial(lids []int32, groups int, w []int64, arg *Arg, dst *Vector) error {
	if err := a.fold(lids, groups, w, arg); err != nil {
		return err
	}
	for j := range groups {
		dst.I[j], dst.Valid[j] = a.ext[j], a.has[j]
	}
	return nil
}

// Partial finds each group's extreme string; the results point into the
// batch.
func (a *strExtremeAgg) Partial(lids []int32, groups int, w []int64, arg *Arg, dst *Vector) error {
	clear(dst.Valid[:groups])
	for i, l := range lids {
		switch {
		case w[i] == 0:
			continue
		case w[i] < 0:
			return ErrAppendOnly
		}
		e := strExtreme{v: dst.S[l], has: dst.Valid[l]}
		if v := arg.S[i]; a.better(&e, v) {
			dst.S[l], dst.Valid[l] = v, true
		}
	}
	return nil
}

// Partial finds each group's extreme key, then decodes it.
func (a *keyedMinMax) Partial(lids []int32, groups int, w []int64, arg *Arg, dst *Vector) error {
	p, ok := a.Accumulator.(Partial)
	if !ok {
		return fmt.Errorf("partial MIN/MAX: %w", ErrNotSupported)
	}
	a.keys.Resize(groups)
	if err := p.Partial(lids, groups, w, arg, &a.keys); err != nil {
		return err
	}
	a.decode(groups, dst)
	return nil
}

// partialSum is one group's sum of doubles in a batch, with its count.
type partialSum struct {
	FloatSum
	n int64
}
