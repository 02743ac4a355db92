package accum

import (
	"fmt"

	"github.com/eddysql/eddy/exec/internal/aggstate"
	"github.com/eddysql/eddy/exec/internal/vec"
)

// distinctAgg is COUNT, SUM or AVG of DISTINCT values: each group keeps its
// values with their counts, and the inner accumulator sees a value once
// when its count rises from zero and once (retracted) when it falls back
// to zero. Values of kind KindFloat and KindDec are kept as their keys.
type distinctAgg[V ordered] struct {
	countsets[V]
	kind  Kind
	inner Accumulator
	arena *aggstate.Arena
	ew    []int64
	hs    []uint64 // the values' hashes, by row
	// peeked sums what Update's first pass read, so that its loads are
	// not dropped as unused.
	peeked int64

	merged mergeFeed[V]
}

func (a *distinctAgg[V]) Words() int { return a.inner.Words() }

func (a *distinctAgg[V]) Bind(arena *aggstate.Arena, off int) {
	a.arena = arena
	a.inner.Bind(arena, off)
}

func (a *distinctAgg[V]) Grow(n int) {
	a.countsets.Grow(n)
	a.inner.Grow(n)
}

func (a *distinctAgg[V]) Free(s int32) {
	a.countsets.Free(s)
	a.inner.Free(s)
}

func (a *distinctAgg[V]) Touch(b *Batch) int64 {
	return a.countsets.Touch(b) + a.inner.Touch(b)
}

func (a *distinctAgg[V]) Bytes() int64 {
	return a.countsets.Bytes() + a.inner.Bytes()
}

func (a *distinctAgg[V]) Update(b *Batch, w []int64, arg *Arg) error {
	vals := *typed[V](&arg.Values)
	slots := b.RowSlots()
	a.ew = vec.Resize(a.ew, len(slots))
	a.hs = vec.Resize(a.hs, len(slots))
	for i, s := range slots {
		if i%peekAhead == 0 {
			a.peek(slots[i:min(i+peekAhead, len(slots))], vals[i:], w[i:], a.hs[i:])
		}
		a.ew[i] = 0
		if w[i] == 0 {
			continue
		}
		before, err := a.addHashed(s, vals[i], a.hs[i], w[i])
		if err != nil {
			return fmt.Errorf("DISTINCT: %w", err)
		}
		after := before + w[i]
		a.ew[i] = int64(b2i(after > 0) - b2i(before > 0))
	}
	// The inner accumulator weighs the rows by the filter's weights.
	ones := arg.Ones
	arg.Ones = false
	err := a.inner.Update(b, a.ew, arg)
	arg.Ones = ones
	return err
}

// peekAhead is how many rows' slots Update touches before it adds them:
// enough to overlap many cache misses, few enough that the lines touched
// stay in the closest caches until their rows are added.
const peekAhead = 128

// peek hashes the values of the rows of slots into hs and touches the
// home slot of each in its group's set (CountSet.Peek).
func (a *distinctAgg[V]) peek(slots []int32, vals []V, w []int64, hs []uint64) {
	var sum int64
	for i, s := range slots {
		if w[i] == 0 {
			continue
		}
		h := a.hash(vals[i])
		hs[i] = h
		sum += a.sets.At(s).Peek(h)
	}
	a.peeked += sum
}

// Merge adds the values of src to dst's and feeds those dst had not seen
// to the inner accumulator, as a batch of one group: a value both saw
// counts once.
func (a *distinctAgg[V]) Merge(dst, src int32) error {
	f := &a.merged
	f.vals = f.vals[:0]
	var err error
	a.sets.At(src).Each(func(v V, n int64) {
		if err != nil {
			return
		}
		var before int64
		if before, err = a.add(dst, v, n); before == 0 {
			f.vals = append(f.vals, v)
		}
	})
	if err != nil {
		return err
	}
	return f.feed(a.inner, a.kind, a.arena, dst)
}

// mergeFeed feeds the values a merge brought into a group (vals) to a
// DISTINCT aggregate's inner accumulator, as a batch of one group.
type mergeFeed[V ordered] struct {
	vals  []V
	ew    []int64
	batch Batch
	arg   Arg
	lids  []int32
	dst   [1]int32
}

// feed feeds f.vals, values of kind k, to inner as new in group dst.
func (f *mergeFeed[V]) feed(inner Accumulator, k Kind, arena *aggstate.Arena, dst int32) error {
	n := len(f.vals)
	if n == 0 {
		return nil
	}
	f.lids = vec.Resize(f.lids, n)
	clear(f.lids)
	f.dst[0] = dst
	f.batch.Reset(f.lids, f.dst[:], arena)
	f.ew = vec.Resize(f.ew, n)
	for i := range f.ew {
		f.ew[i] = 1
	}
	// The inner accumulator reads the values, not their keys.
	arg := &f.arg
	*typed[V](&arg.Values) = f.vals
	switch k {
	case KindFloat:
		arg.F = vec.Resize(arg.F, n)
		for i, key := range arg.I {
			arg.F[i] = FloatFromKey(key)
		}
	case KindDec:
		arg.D = vec.Resize(arg.D, n)
		for i, key := range arg.S {
			arg.D[i] = DecFromKey(key)
		}
	}
	return inner.Update(&f.batch, f.ew, arg)
}

func (a *distinctAgg[V]) Result(b *Batch, counts []int64, dst *Vector) error {
	return a.inner.Result(b, counts, dst)
}
