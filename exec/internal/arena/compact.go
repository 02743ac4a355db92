package arena

// Compaction. An arena whose values are replaced collects dead bytes;
// copying the live ones into a fresh arena needs as much memory again as
// they take, fresh memory whose first touch costs a page fault per page
// (on this project's VM 0.8–1.7 s per GiB in huge pages), and leaves the
// old blocks to the garbage collector. Compact instead moves the values
// a block at a time, the values of the first block first, and hands
// each block, once its values have moved, to the arena for the values
// that follow: a compaction needs about one block beyond the values it
// keeps, and reuses the memory it frees.

// Values is what a compaction needs of the values it keeps, each named
// by a tag of the caller's.
type Values interface {
	// Each calls visit with the tag of every value kept, the same tags
	// each time it is called.
	Each(visit func(tag uint32))
	// Value returns the offset and length of the value of tag.
	Value(tag uint32) (off uint64, n uint32)
	// Moved sets the offset of the value of tag, which has moved there.
	Moved(tag uint32, off uint64)
}

// Compact keeps the values v lists, at new offsets it reports to v, and
// drops every other. order is scratch (a tag per value kept), returned
// to be passed again. No view of the arena may be held.
func (a *Arena) Compact(v Values, order []uint32) []uint32 {
	nb := len(a.blocks)
	// Sort the values by block, counting: starts[k] is where block k's
	// values begin in order.
	starts := make([]int, nb+1)
	kept := 0
	v.Each(func(tag uint32) {
		if off, n := v.Value(tag); n > 0 {
			starts[off>>arenaShift+1]++
			kept++
		}
	})
	for k := 1; k <= nb; k++ {
		starts[k] += starts[k-1]
	}
	if cap(order) < kept {
		order = make([]uint32, kept)
	}
	order = order[:kept]
	pos := make([]int, nb)
	copy(pos, starts)
	v.Each(func(tag uint32) {
		off, n := v.Value(tag)
		if n == 0 {
			v.Moved(tag, 0)
			return
		}
		k := off >> arenaShift
		order[pos[k]] = tag
		pos[k]++
	})

	// Move them, block after block, into an arena that takes the blocks
	// emptied so far before it allocates any.
	b := Arena{free: a.free, bytes: int64(len(a.free)) * arenaBlock}
	for k := range nb {
		for _, tag := range order[starts[k]:starts[k+1]] {
			off, n := v.Value(tag)
			v.Moved(tag, add(&b, a.At(off, n)))
		}
		if blk := a.blocks[k]; cap(blk) == arenaBlock {
			b.free = append(b.free, blk[:0])
			b.bytes += arenaBlock
		}
		a.blocks[k] = nil
	}
	// Keep a few emptied blocks for the values to come, not all: the
	// values kept may be far fewer than there were.
	keep := max(2, len(b.blocks)/4)
	for len(b.free) > keep {
		b.free[len(b.free)-1] = nil
		b.free = b.free[:len(b.free)-1]
		b.bytes -= arenaBlock
	}
	*a = b
	return order
}
