package aggstate

import "unsafe"

// Columns and arenas grow in chunks of chunkSlots slots: adding a group never
// copies the state of the others (a batch that creates a group costs the
// same whether a thousand or a million groups exist), while the chunk
// directory stays small enough to sit in the L1 cache (a million groups
// need 977 chunk headers).
const (
	chunkBits  = 10
	chunkSlots = 1 << chunkBits
	chunkMask  = chunkSlots - 1
)

// Column is per-slot state of type T: element s belongs to the group in
// slot s. Elements of slots never grown into are zero.
type Column[T any] struct {
	chunks [][]T
}

// Grow makes room for slots 0..n-1.
func (c *Column[T]) Grow(n int) {
	for len(c.chunks)*chunkSlots < n {
		c.chunks = append(c.chunks, make([]T, chunkSlots))
	}
}

// Len returns the number of slots there is room for.
func (c *Column[T]) Len() int { return len(c.chunks) * chunkSlots }

// At returns the element of slot s.
func (c *Column[T]) At(s int32) *T {
	return &c.chunks[s>>chunkBits][s&chunkMask]
}

// Bytes returns the memory the column holds, not counting what its elements
// point to.
func (c *Column[T]) Bytes() int64 {
	var zero T
	return int64(c.Len()) * int64(unsafe.Sizeof(zero))
}

// Arena is the fixed-width state of every group: a row of Stride() 8-byte
// words per slot, holding the group's header and every aggregate's
// accumulators side by side. A batch that touches a group then reads one
// cache line (and one page) for all of them, where a column per aggregate
// would cost one per aggregate; with a million groups those misses are most
// of a batch's cost. Words are uint64; aggregates keep int64 and float64
// values in them by conversion.
type Arena struct {
	stride int
	chunks [][]uint64
}

// NewArena returns an arena whose rows have at least words words. A row of
// up to 8 words is padded to a power of two, so that no row straddles two
// cache lines.
func NewArena(words int) *Arena {
	stride := 1
	for stride < words {
		stride *= 2
	}
	if words > 8 {
		stride = (words + 7) / 8 * 8
	}
	return &Arena{stride: stride}
}

// Stride returns the number of words in a row.
func (a *Arena) Stride() int { return a.stride }

// Grow makes room for slots 0..n-1.
func (a *Arena) Grow(n int) {
	for len(a.chunks)*chunkSlots < n {
		a.chunks = append(a.chunks, make([]uint64, chunkSlots*a.stride))
	}
}

// Len returns the number of slots there is room for.
func (a *Arena) Len() int { return len(a.chunks) * chunkSlots }

// Row returns the row of slot s.
func (a *Arena) Row(s int32) []uint64 {
	i := int(s&chunkMask) * a.stride
	return a.chunks[s>>chunkBits][i : i+a.stride : i+a.stride]
}

// Clear zeroes the row of slot s.
func (a *Arena) Clear(s int32) { clear(a.Row(s)) }

// Bytes returns the memory the arena holds.
func (a *Arena) Bytes() int64 { return int64(a.Len()) * int64(a.stride) * 8 }
