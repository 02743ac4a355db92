package aggstate

// Views for a reader on another goroutine. The operator's goroutine grows
// an arena or a column by appending chunks to its directory, which a
// reader elsewhere must not read meanwhile; a view is a copy of the
// directory as of when it was taken, whose chunks the operator never
// moves. A reader may read through a view the rows (or elements) of slots
// that existed when it was taken, provided nothing writes the same row at
// the same time: the caller's protocol (the hash aggregate's claims of
// pending slots) sees to that.

// ArenaView is a read-only view of an Arena's rows as of when it was
// taken.
type ArenaView struct {
	stride int
	chunks [][]uint64
}

// View returns a view of the rows of the slots the arena has room for.
func (a *Arena) View() ArenaView { return ArenaView{stride: a.stride, chunks: a.chunks} }

// Stride returns the number of words in a row.
func (v ArenaView) Stride() int { return v.stride }

// Len returns the number of slots the view covers.
func (v ArenaView) Len() int { return len(v.chunks) * chunkSlots }

// Row returns the row of slot s, which must be below Len.
func (v ArenaView) Row(s int32) []uint64 {
	i := int(s&chunkMask) * v.stride
	return v.chunks[s>>chunkBits][i : i+v.stride : i+v.stride]
}

// IntKeysView is a read-only view of the keys of an IntGroups' slots as
// of when it was taken.
type IntKeysView struct {
	chunks   [][]int64
	nullSlot int32
}

// View returns a view of the keys of the table's slots.
func (g *IntGroups) View() IntKeysView {
	return IntKeysView{chunks: g.keys.chunks, nullSlot: g.nullSlot}
}

// Key returns the key of slot, which held a group when the view was taken
// and holds it still; null reports the NULL group.
func (v IntKeysView) Key(slot int32) (k int64, null bool) {
	if slot == v.nullSlot {
		return 0, true
	}
	return v.chunks[slot>>chunkBits][slot&chunkMask], false
}

// BytesKeysView is a read-only view of the encoded keys of a BytesGroups'
// slots as of when it was taken.
type BytesKeysView struct {
	chunks [][]string
}

// View returns a view of the encoded keys of the table's slots.
func (g *BytesGroups) View() BytesKeysView { return BytesKeysView{chunks: g.keys.chunks} }

// Key returns the encoded key of slot, which held a group when the view
// was taken and holds it still.
func (v BytesKeysView) Key(slot int32) string { return v.chunks[slot>>chunkBits][slot&chunkMask] }
