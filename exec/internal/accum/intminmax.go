package accum

import (
	"fmt"
	"math"

	"github.com/eddysql/eddy/exec/internal/aggstate"
	"github.com/eddysql/eddy/exec/internal/vec"
)

// intMinMaxAgg is a retractable MIN or MAX of integers (or of the
// order-preserving keys of doubles): each group keeps its values with
// their counts in an aggstate.IntSets multiset, inline in its arena row
// while it has few distinct values, so that retracting the extreme finds
// the next one and touching a group reads no memory beyond its row.
type intMinMaxAgg struct {
	max  bool
	off  int
	sets aggstate.IntSets
}

func (a *intMinMaxAgg) Words() int { return aggstate.IntSetWords }

func (a *intMinMaxAgg) Bind(arena *aggstate.Arena, off int) {
	a.off = off
	a.sets.Bind(arena, off)
}

func (a *intMinMaxAgg) Grow(int)             {}
func (a *intMinMaxAgg) Free(s int32)         { a.sets.Free(s) }
func (a *intMinMaxAgg) Bytes() int64         { return a.sets.Bytes() }
func (a *intMinMaxAgg) Touch(b *Batch) int64 { return a.sets.Touch(b.Rows, a.off) }

func (a *intMinMaxAgg) name() string {
	if a.max {
		return "MAX"
	}
	return "MIN"
}

// Update adds each row's value to its group's multiset, row by row: a
// retraction must find the value inserted before it, also within a batch.
func (a *intMinMaxAgg) Update(b *Batch, w []int64, arg *Arg) error {
	if err := a.sets.AddRows(b.Rows, a.off, b.Lids, arg.I, w); err != nil {
		return fmt.Errorf("%s: %w", a.name(), err)
	}
	return nil
}

func (a *intMinMaxAgg) Result(b *Batch, _ []int64, dst *Vector) error {
	lo, hi := a.off, a.off+aggstate.IntSetWords
	for j, row := range b.Rows {
		r := row[lo:hi:hi]
		if a.max {
			dst.I[j], dst.Valid[j] = a.sets.Last(r)
		} else {
			dst.I[j], dst.Valid[j] = a.sets.First(r)
		}
	}
	return nil
}

// intExtremeAgg is MIN or MAX of integers (or double keys) over an
// append-only input, in two arena words: the extreme value and whether
// there is one. A batch's extreme is first found per local group, then
// compared with each group's once.
type intExtremeAgg struct {
	arenaAgg
	max bool
	ext []int64 // by local group: the batch's extreme
	has []bool  // whether the batch has a value for it
}

func (a *intExtremeAgg) Words() int { return 2 }
func (a *intExtremeAgg) Free(int32) {}

// fold finds the extreme of the batch's values (rows numbered by lids
// into m local groups) per local group, into a.ext and a.has.
func (a *intExtremeAgg) fold(lids []int32, m int, w []int64, arg *Arg) error {
	a.ext, a.has = vec.Resize(a.ext, m), vec.Resize(a.has, m)
	ext, has := a.ext, a.has
	clear(has)
	// Start from the identity of the extreme, so that the loop below is a
	// max or min per row with no data-dependent branch.
	init := int64(math.MaxInt64)
	if a.max {
		init = math.MinInt64
	}
	for j := range ext {
		ext[j] = init
	}
	vals, w := arg.I[:len(lids)], w[:len(lids)]
	for i, l := range lids {
		switch {
		case arg.Ones:
		case w[i] == 0:
			continue
		case w[i] < 0:
			return ErrAppendOnly
		}
		has[l] = true
		if a.max {
			ext[l] = max(ext[l], vals[i])
		} else {
			ext[l] = min(ext[l], vals[i])
		}
	}
	return nil
}

func (a *intExtremeAgg) Update(b *Batch, w []int64, arg *Arg) error {
	if err := a.fold(b.Lids, len(b.Touched), w, arg); err != nil {
		return err
	}
	ext, has := a.ext, a.has
	for j := range b.Touched {
		if has[j] {
			a.extend(a.row(b, int32(j)), ext[j])
		}
	}
	return nil
}

// extend makes v the extreme of the state r if it is better.
func (a *intExtremeAgg) extend(r []uint64, v int64) {
	if r[1] == 0 || (a.max && v > int64(r[0])) || (!a.max && v < int64(r[0])) {
		r[0], r[1] = uint64(v), 1
	}
}

func (a *intExtremeAgg) Merge(dst, src int32) error {
	if r := a.slot(src); r[1] != 0 {
		a.extend(a.slot(dst), int64(r[0]))
	}
	return nil
}

func (a *intExtremeAgg) Result(b *Batch, _ []int64, dst *Vector) error {
	for j := range b.Touched {
		r := a.row(b, int32(j))
		dst.I[j], dst.Valid[j] = int64(r[0]), r[1] != 0
	}
	return nil
}
