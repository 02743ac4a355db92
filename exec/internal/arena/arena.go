// Package arena keeps many variable-length values (the strings of a
// join's rows, the sort keys of a Top-N) in blocks of up to 8 MiB, so that
// it grows without copying what it holds: one growing slice copies all its
// bytes at each growth (half the CPU of a join keeping every bid's
// strings) and holds the old copy until the GC frees it. Values never
// move, so views of them (At, String) stay valid. A full-size block asks
// for huge pages (exec/internal/hugepage).
package arena

import (
	"unsafe"

	"github.com/eddysql/eddy/internal/hugepage"
)

// Arena holds values addressed by offset. Offsets are global: block k
// holds offsets from k<<arenaShift, and a value never spans two blocks
// (one larger than a block gets a block of its own, whose offsets past
// the first block's are left empty). The zero Arena is empty.
type Arena struct {
	blocks [][]byte
	free   [][]byte // full-size blocks a compaction emptied, for the next ones
	next   uint64   // the offset the next value takes
	bytes  int64    // capacity of the blocks, free ones included
	used   int64    // bytes of the values added
}

const (
	arenaShift = 23
	arenaBlock = 1 << arenaShift
	// BlockSize is the size of a full block: a value of up to BlockSize
	// bytes never spans two, and one that does not fit in what is left
	// of a block starts the next.
	BlockSize = arenaBlock
	arenaMask = arenaBlock - 1
)

// Add appends v and returns its offset.
func (a *Arena) Add(v []byte) uint64 { return add(a, v) }

// Reserve makes an empty arena's first block room for n bytes (up to a
// block), so that filling it does not grow it by copies: a compaction
// knows how many bytes it copies.
func (a *Arena) Reserve(n int64) {
	if len(a.blocks) > 0 || n <= 0 {
		return
	}
	size := min(n, arenaBlock)
	a.blocks = append(a.blocks, make([]byte, 0, size))
	a.bytes += size
}

// AddString is Add for a string.
func (a *Arena) AddString(v string) uint64 { return add(a, v) }

func add[S string | []byte](a *Arena, v S) uint64 {
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
		var blk []byte
		switch {
		case n > arenaBlock:
			size = n
		case len(a.free) > 0:
			// A block a compaction emptied: memory already touched.
			blk = a.free[len(a.free)-1]
			a.free[len(a.free)-1] = nil
			a.free = a.free[:len(a.free)-1]
		case k == 0:
			// The first block grows as it fills: small arenas stay small.
			size = max(n, 64)
		}
		if blk == nil {
			blk = make([]byte, 0, size)
			if size >= arenaBlock {
				hugepage.Advise(unsafe.Pointer(unsafe.SliceData(blk[:1])), uintptr(size))
			}
			a.bytes += int64(size)
		}
		a.blocks = append(a.blocks, blk)
		a.next = k << arenaShift
	}
	b := &a.blocks[k]
	if k == 0 && uint64(cap(*b)-len(*b)) < n {
		a.bytes -= int64(cap(*b))
		*b = append(*b, v...)
		a.bytes += int64(cap(*b))
	} else {
		*b = append(*b, v...)
	}
	off := a.next
	a.next += n
	a.used += int64(n)
	if n > arenaBlock {
		a.next = (k + (n+arenaMask)>>arenaShift) << arenaShift
	}
	return off
}

// At returns the n bytes at offset off, sharing the arena's memory.
func (a *Arena) At(off uint64, n uint32) []byte {
	if n == 0 {
		return nil
	}
	w := off & arenaMask
	return a.blocks[off>>arenaShift][w : w+uint64(n)]
}

// String returns the n bytes at offset off as a string sharing the
// arena's memory (values never change once added).
func (a *Arena) String(off uint64, n uint32) string {
	if n == 0 {
		return ""
	}
	w := off & arenaMask
	return unsafe.String(&a.blocks[off>>arenaShift][w], int(n))
}

// Room returns how many bytes the next value may take without a new
// allocation: what is left of the block the next value goes to, 0 when
// there is none yet. A value larger than Room makes the first block grow
// by a copy, or starts a new block.
func (a *Arena) Room() int {
	k := a.next >> arenaShift
	if k >= uint64(len(a.blocks)) {
		return 0
	}
	b := a.blocks[k]
	return min(cap(b)-len(b), arenaBlock-int(a.next&arenaMask))
}

// Next returns the offset the next value takes: offsets stay below it.
func (a *Arena) Next() uint64 { return a.next }

// Bytes returns the memory the arena holds.
func (a *Arena) Bytes() int64 { return a.bytes }

// Used returns the bytes of the values added.
func (a *Arena) Used() int64 { return a.used }
