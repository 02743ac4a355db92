package accum

import (
	"fmt"

	"github.com/eddysql/eddy/exec/internal/aggstate"
	"github.com/eddysql/eddy/exec/internal/vec"
)

// Accumulator is the state of one aggregate call for every group of an
// operator, indexed by the group's slot. Fixed-width state (counts, sums,
// extremes, small multisets) lives in the operator's arena, Words() words
// of each group's row from the offset Bind gives; variable-size state
// (larger multisets, strings, sketches) lives in the accumulator's own
// slot-indexed columns. Implementations are typed; the interface is called
// once per batch, never per row.
//
// The operator owns the arena and each group's row count (what COUNT(*)
// reads): it creates groups, grows the arena, passes the counts to Result,
// and clears a freed group's arena row after Free.
type Accumulator interface {
	// Words is how many arena words per group the accumulator keeps.
	Words() int
	// Bind gives the accumulator words off..off+Words()-1 of every row of
	// arena.
	Bind(arena *aggstate.Arena, off int)
	// Grow makes room for n slots in the accumulator's own columns.
	Grow(n int)
	// Update applies a batch: row i adds w[i] (−1, 0 or +1) occurrences of
	// its argument value (in arg; nil for COUNT(*)) to its group (see
	// Batch). A batch is a Z-set: counts may be checked once its changes to
	// a group are summed, so that it may retract a row it also inserts, in
	// any order. An operator calls Update on all its accumulators, in
	// their order, before it reads the batch's new results of any: the
	// aggregates that share a DISTINCT set (Spec.Share) update it when
	// the last of them is given its argument.
	Update(b *Batch, w []int64, arg *Arg) error
	// Result writes the current value of each group of the batch (local
	// group j: slot b.Touched[j], arena row b.Rows[j]) to dst, which must
	// hold len(b.Touched) values; counts[j] is the group's row count.
	Result(b *Batch, counts []int64, dst *Vector) error
	// Free empties the state of slot kept outside the arena, when its
	// group lost its last row or closed. An operator frees a slot in all
	// its accumulators at once.
	Free(slot int32)
	// Bytes estimates the memory held outside the arena.
	Bytes() int64
	// Touch reads the state each group of the batch keeps outside the
	// arena and returns a value depending on it: a prefetch (see
	// aggstate.Arena).
	Touch(b *Batch) int64
	// AppendState appends the state of slot's group, in the arena and
	// out of it, to buf (see state.go for the encoding), for a
	// checkpoint.
	AppendState(slot int32, buf []byte) ([]byte, error)
	// LoadState reads a state AppendState wrote from the start of b into
	// slot, whose arena row is zero and whose own columns are empty and
	// grown (a fresh or freed slot), and returns the rest of b. Decoded
	// state owns its memory: b may be reused afterwards. Bytes that are
	// not such a state give an error wrapping ErrCorruptState.
	LoadState(slot int32, b []byte) ([]byte, error)
}

// Merger is implemented by the accumulators that can merge one group's
// state into another's (a commutative monoid: the result is the same
// whatever the order values were added in and groups were merged), which a
// SESSION window needs when a row bridges two sessions. The operator
// merges its row counts itself.
type Merger interface {
	// Merge folds the state of slot src into that of slot dst. The
	// operator frees src afterwards.
	Merge(dst, src int32) error
}

// Options are what an operator tells New about its input and its state.
type Options struct {
	// AppendOnly is set when the input never retracts: MIN and MAX then
	// keep only the extreme value per group, and APPROX_COUNT_DISTINCT a
	// sketch.
	AppendOnly bool
}

// arenaAgg is embedded by accumulators whose state is all in the arena.
type arenaAgg struct {
	arena *aggstate.Arena
	off   int
}

func (p *arenaAgg) Bind(a *aggstate.Arena, off int) { p.arena, p.off = a, off }
func (p *arenaAgg) Grow(int)                        {}
func (p *arenaAgg) Touch(*Batch) int64              { return 0 }
func (p *arenaAgg) Bytes() int64                    { return 0 }

// row returns the accumulator's words of the arena row of the batch's
// local group j. The batch found the rows once; going through the slot
// again would read the arena's chunk directory, out of cache with many
// groups.
func (p *arenaAgg) row(b *Batch, j int32) []uint64 { return b.Rows[j][p.off:] }

// slot returns the accumulator's words of slot s's arena row.
func (p *arenaAgg) slot(s int32) []uint64 { return p.arena.Row(s)[p.off:] }

// columnAgg is embedded by accumulators that keep nothing in the arena.
type columnAgg struct{}

func (columnAgg) Words() int                { return 0 }
func (columnAgg) Bind(*aggstate.Arena, int) {}

// countStarAgg is COUNT(*): the group's row count, which the operator keeps
// and passes to Result (and merges).
type countStarAgg struct {
	columnAgg
	delta []int64 // Partial's: by local group, the batch's rows
}

func (a *countStarAgg) Grow(int)                           {}
func (a *countStarAgg) Update(*Batch, []int64, *Arg) error { return nil }
func (a *countStarAgg) Free(int32)                         {}
func (a *countStarAgg) Bytes() int64                       { return 0 }
func (a *countStarAgg) Touch(*Batch) int64                 { return 0 }
func (a *countStarAgg) Merge(int32, int32) error           { return nil }
func (a *countStarAgg) Result(b *Batch, counts []int64, dst *Vector) error {
	putCounts(counts[:len(b.Touched)], dst)
	return nil
}

// putCounts writes counts to dst.
func putCounts(counts []int64, dst *Vector) {
	for j, n := range counts {
		dst.I[j], dst.Valid[j] = n, true
	}
}

// countNullAgg is COUNT of an argument typed NULL: always 0.
type countNullAgg struct{ countStarAgg }

func (a *countNullAgg) Result(b *Batch, _ []int64, dst *Vector) error {
	for j := range b.Touched {
		dst.I[j], dst.Valid[j] = 0, true
	}
	return nil
}

// countAgg is COUNT(x): the number of non-NULL values, in one arena word.
type countAgg struct {
	arenaAgg
	delta []int64 // by local group: the batch's change
}

func (a *countAgg) Words() int { return 1 }
func (a *countAgg) Free(int32) {}

// foldCounts sums the weights w of rows numbered by lids per local group
// into d, which it returns resized to m groups.
func foldCounts(d []int64, lids []int32, m int, w []int64) []int64 {
	d = vec.Resize(d, m)
	clear(d)
	for i, l := range lids {
		d[l] += w[i]
	}
	return d
}

func (a *countAgg) Update(b *Batch, w []int64, _ *Arg) error {
	a.delta = foldCounts(a.delta, b.Lids, len(b.Touched), w)
	d := a.delta
	for j := range b.Touched {
		r := a.row(b, int32(j))
		n := int64(r[0]) + d[j]
		if n < 0 {
			return fmt.Errorf("COUNT: %w", aggstate.ErrNegativeCount)
		}
		r[0] = uint64(n)
	}
	return nil
}

func (a *countAgg) Merge(dst, src int32) error {
	a.slot(dst)[0] += a.slot(src)[0]
	return nil
}

func (a *countAgg) Result(b *Batch, _ []int64, dst *Vector) error {
	for j := range b.Touched {
		dst.I[j], dst.Valid[j] = int64(a.row(b, int32(j))[0]), true
	}
	return nil
}
