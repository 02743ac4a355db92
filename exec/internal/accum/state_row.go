package accum

import "encoding/binary"

// RowState is implemented by the accumulators whose state can be encoded
// from the group's arena row alone: COUNT(*) (which keeps nothing), COUNT,
// MIN and MAX of integers over append-only input, and the sums (SUM and
// AVG of integers, decimals and doubles), whose rare overflow carries and
// counts of infinities live in maps beside the arena. A snapshot writer
// on another goroutine encodes with it the groups the operator has not
// changed since the barrier, reading their arena rows through a view,
// while the operator changes others (the hash aggregate's background
// snapshot).
type RowState interface {
	// RowStateOnly reports whether AppendState of every slot reads only
	// the slot's arena words at present: false when some group has state
	// out of the arena (a SUM's overflow carry).
	RowStateOnly() bool
	// AppendRowState appends what AppendState would for the group whose
	// arena row is row, provided RowStateOnly held when the group last
	// changed. It reads nothing of the accumulator that changes, so it may
	// run on another goroutine while the operator changes other groups.
	AppendRowState(row []uint64, buf []byte) []byte
}

var (
	_ RowState = (*countStarAgg)(nil)
	_ RowState = (*countAgg)(nil)
	_ RowState = (*intExtremeAgg)(nil)
	_ RowState = (*decSumAgg)(nil)
	_ RowState = (*intSumAgg)(nil)
	_ RowState = (*floatSumAgg)(nil)
)

func (a *countStarAgg) RowStateOnly() bool                           { return true }
func (a *countStarAgg) AppendRowState(_ []uint64, buf []byte) []byte { return buf }
func (a *countAgg) RowStateOnly() bool                               { return true }
func (a *countAgg) AppendRowState(row []uint64, buf []byte) []byte {
	return appendWords(buf, row[a.off:a.off+1])
}
func (a *intExtremeAgg) RowStateOnly() bool { return true }
func (a *intExtremeAgg) AppendRowState(row []uint64, buf []byte) []byte {
	return appendWords(buf, row[a.off:a.off+2])
}
func (a *decSumAgg) RowStateOnly() bool { return true }
func (a *decSumAgg) AppendRowState(row []uint64, buf []byte) []byte {
	return appendWords(buf, row[a.off:a.off+3])
}

// RowStateOnly reports whether no group has an overflow carry.
func (a *intSumAgg) RowStateOnly() bool { return len(a.carry) == 0 }

// AppendRowState appends the two words and a carry of zero.
func (a *intSumAgg) AppendRowState(row []uint64, buf []byte) []byte {
	return binary.AppendVarint(appendWords(buf, row[a.off:a.off+2]), 0)
}

// RowStateOnly reports whether no group has summed an infinity or a NaN.
func (a *floatSumAgg) RowStateOnly() bool { return len(a.special) == 0 }

// AppendRowState appends the three words and counts of zero infinities
// and NaNs.
func (a *floatSumAgg) AppendRowState(row []uint64, buf []byte) []byte {
	buf = appendWords(buf, row[a.off:a.off+3])
	for range len(Specials{}) {
		buf = binary.AppendVarint(buf, 0)
	}
	return buf
}
