package rowstore

// arena holds a column's string bytes in blocks of up to arenaBlock bytes,
// so that it grows without copying what it holds: one growing slice would
// copy all its bytes at each doubling (half the CPU of a join keeping
// every bid's strings), and hold the old copy until the GC frees it. A
// value's offset is global: block k holds offsets from k<<arenaShift, and
// a value never spans two blocks (one larger than a block gets a block of
// its own, whose offsets past the first block's are left empty).
type arena struct {
	blocks [][]byte
	next   uint64 // the offset the next value takes
	bytes  int64  // capacity of the blocks
}

const (
	arenaShift = 20
	arenaBlock = 1 << arenaShift
	arenaMask  = arenaBlock - 1
)

// add appends v and returns its offset.
func (a *arena) add(v []byte) uint64 {
	n := uint64(len(v))
	if n == 0 {
		return 0
	}
	k := a.next >> arenaShift
	if a.next&arenaMask+n > arenaBlock || k >= uint64(len(a.blocks)) {
		if a.next&arenaMask != 0 {
			k++ // the rest of this block stays unused
		}
		for uint64(len(a.blocks)) < k {
			a.blocks = append(a.blocks, nil) // the tail of a large value's offsets
		}
		size := uint64(arenaBlock)
		switch {
		case n > arenaBlock:
			size = n
		case k == 0:
			size = 4096 // the first block grows: small stores stay small
		}
		a.blocks = append(a.blocks, make([]byte, 0, size))
		a.bytes += int64(size)
		a.next = k << arenaShift
	}
	b := &a.blocks[k]
	if k == 0 && cap(*b)-len(*b) < len(v) {
		a.bytes -= int64(cap(*b))
		*b = append(*b, v...)
		a.bytes += int64(cap(*b))
	} else {
		*b = append(*b, v...)
	}
	off := a.next
	a.next += n
	if n > arenaBlock {
		a.next = (k + (n+arenaMask)>>arenaShift) << arenaShift
	}
	return off
}

// addString is add for a string.
func (a *arena) addString(v string) uint64 {
	n := uint64(len(v))
	if n == 0 {
		return 0
	}
	// The same as add, without converting v to a []byte (a copy).
	k := a.next >> arenaShift
	if a.next&arenaMask+n <= arenaBlock && k < uint64(len(a.blocks)) && (k > 0 || cap(a.blocks[0])-len(a.blocks[0]) >= len(v)) {
		a.blocks[k] = append(a.blocks[k], v...)
		off := a.next
		a.next += n
		return off
	}
	return a.add([]byte(v))
}

// at returns the n bytes at offset off, sharing the arena's memory.
func (a *arena) at(off uint64, n uint32) []byte {
	if n == 0 {
		return nil
	}
	w := off & arenaMask
	return a.blocks[off>>arenaShift][w : w+uint64(n)]
}
