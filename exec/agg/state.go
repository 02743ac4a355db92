package agg

import (
	"fmt"

	"github.com/eddysql/eddy/exec/internal/aggstate"
	"github.com/eddysql/eddy/exec/internal/vec"
)

// batch describes the groups of the batch being applied. Rows are
// numbered by local group (0, 1, ... in order of first occurrence), so that
// aggregates can fold a batch's rows into dense per-group accumulators of
// the batch's size, which stay in cache, and then touch each group's state
// once.
type batch struct {
	lids    []int32    // by row: its local group
	touched []int32    // by local group: its slot
	rows    [][]uint64 // by local group: its arena row
	slots   []int32    // by row: its slot, once rowSlots has filled it
	slotsOK bool
}

// rowSlots returns the slot of every row, for aggregates that update their
// state row by row.
func (b *batch) rowSlots() []int32 {
	if !b.slotsOK {
		b.slots = vec.Resize(b.slots, len(b.lids))
		for i, l := range b.lids {
			b.slots[i] = b.touched[l]
		}
		b.slotsOK = true
	}
	return b.slots
}

// state is the state of one aggregate for every group, indexed by group
// slot. Fixed-width accumulators live in the operator's arena (words() words
// of each group's row, from the offset bind gives); variable-size state
// (ordered multisets, strings) lives in the aggregate's own slot-indexed
// columns. Implementations are typed; the interface is called once per
// batch, never per row.
type state interface {
	// words is how many arena words per group the aggregate keeps.
	words() int
	// bind gives the aggregate words off..off+words()-1 of every arena row.
	bind(a *aggstate.Arena, off int)
	// grow makes room for n slots in the aggregate's own columns.
	grow(n int)
	// update applies a batch: row i adds w[i] (−1, 0 or +1) occurrences of
	// its argument value a to its group (see batch). A batch is a Z-set:
	// counts may be checked once its changes to a group are summed, so
	// that it may retract a row it also inserts, in any order.
	update(b *batch, w []int64, a *argCol) error
	// result writes the current value of each group of the batch (local
	// group j: slot b.touched[j], arena row b.rows[j]) to dst; counts[j]
	// is the group's row count at that point.
	result(b *batch, counts []int64, dst *vector) error
	// free empties the state of slot kept outside the arena (the operator
	// clears the arena row) when its group lost its last row.
	free(slot int32)
	// stateBytes estimates the memory held outside the arena.
	stateBytes() int64
	// touch reads the state each group of the batch keeps outside the
	// arena and returns a value depending on it: a prefetch (see
	// touchRows).
	touch(b *batch) int64
}

// arenaAgg is embedded by aggregates whose state is all in the arena.
type arenaAgg struct {
	off int
}

func (p *arenaAgg) bind(_ *aggstate.Arena, off int) { p.off = off }
func (p *arenaAgg) grow(int)                        {}
func (p *arenaAgg) touch(*batch) int64              { return 0 }
func (p *arenaAgg) stateBytes() int64               { return 0 }

// row returns the aggregate's words of the arena row of the batch's local
// group j. The batch found the rows once; going through the slot again
// would read the arena's chunk directory, out of cache with many groups.
func (p *arenaAgg) row(b *batch, j int32) []uint64 { return b.rows[j][p.off:] }

// columnAgg is embedded by aggregates that keep nothing in the arena.
type columnAgg struct{}

func (columnAgg) words() int                { return 0 }
func (columnAgg) bind(*aggstate.Arena, int) {}

// countStarAgg is COUNT(*): the group's row count, which the operator keeps
// and passes to result.
type countStarAgg struct{ columnAgg }

func (a *countStarAgg) grow(int)                              {}
func (a *countStarAgg) update(*batch, []int64, *argCol) error { return nil }
func (a *countStarAgg) free(int32)                            {}
func (a *countStarAgg) stateBytes() int64                     { return 0 }
func (a *countStarAgg) touch(*batch) int64                    { return 0 }
func (a *countStarAgg) result(b *batch, counts []int64, dst *vector) error {
	for j := range b.touched {
		dst.i[j], dst.valid[j] = counts[j], true
	}
	return nil
}

// countNullAgg is COUNT of an argument typed NULL: always 0.
type countNullAgg struct{ countStarAgg }

func (a *countNullAgg) result(b *batch, _ []int64, dst *vector) error {
	for j := range b.touched {
		dst.i[j], dst.valid[j] = 0, true
	}
	return nil
}

// countAgg is COUNT(x): the number of non-NULL values, in one arena word.
type countAgg struct {
	arenaAgg
	delta []int64 // by local group: the batch's change
}

func (a *countAgg) words() int { return 1 }
func (a *countAgg) free(int32) {}

func (a *countAgg) update(b *batch, w []int64, _ *argCol) error {
	a.delta = vec.Resize(a.delta, len(b.touched))
	d := a.delta
	clear(d)
	for i, l := range b.lids {
		d[l] += w[i]
	}
	for j := range b.touched {
		r := a.row(b, int32(j))
		n := int64(r[0]) + d[j]
		if n < 0 {
			return fmt.Errorf("COUNT: %w", aggstate.ErrNegativeCount)
		}
		r[0] = uint64(n)
	}
	return nil
}

func (a *countAgg) result(b *batch, _ []int64, dst *vector) error {
	for j := range b.touched {
		dst.i[j], dst.valid[j] = int64(a.row(b, int32(j))[0]), true
	}
	return nil
}
