package accum

import (
	"github.com/eddysql/eddy/exec/internal/aggstate"
	"github.com/eddysql/eddy/exec/internal/vec"
)

// Batch describes the groups of the batch being applied. Rows are numbered
// by local group (0, 1, ... in order of first occurrence), so that
// accumulators can fold a batch's rows into dense per-group accumulators
// of the batch's size, which stay in cache, and then touch each group's
// state once.
//
// The hash aggregate's local groups are a batch's distinct group keys; a
// SESSION window's are the sessions a batch ends up in; a local
// aggregate's are a batch's groups, each in the slot of its number.
type Batch struct {
	Lids    []int32    // by row: its local group
	Touched []int32    // by local group: its slot
	Rows    [][]uint64 // by local group: its arena row
	slots   []int32    // by row: its slot, once RowSlots has filled it
	slotsOK bool
}

// Reset describes a new batch: lids by row (nil when only results are
// read), the slots of its local groups, and the arena the groups' rows
// are in.
func (b *Batch) Reset(lids, touched []int32, arena *aggstate.Arena) {
	b.Lids, b.Touched, b.slotsOK = lids, touched, false
	b.Rows = vec.Resize(b.Rows, len(touched))
	for j, s := range touched {
		b.Rows[j] = arena.Row(s)
	}
}

// RowSlots returns the slot of every row, for accumulators that update
// their state row by row.
func (b *Batch) RowSlots() []int32 {
	if !b.slotsOK {
		b.slots = vec.Resize(b.slots, len(b.Lids))
		for i, l := range b.Lids {
			b.slots[i] = b.Touched[l]
		}
		b.slotsOK = true
	}
	return b.slots
}
