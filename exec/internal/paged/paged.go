package paged

import (
	"unsafe"

	"github.com/eddysql/eddy/internal/hugepage"
)

// Shift is the log2 of the elements of a page. 4096 elements make a page
// of 4 KiB of bools (one OS page), 16 KiB of int32s, 32 KiB of int64s (the
// largest of the Go allocator's small size classes) and 64 KiB of 16-byte
// decimals: big enough that the page directory of ten million elements
// (2442 entries) stays in the L1 cache and pages are allocated rarely,
// small enough that a vector wastes at most one partly used page.
const Shift = 12

// PageLen is the number of elements of a full page.
const PageLen = 1 << Shift

const (
	mask = PageLen - 1
	// firstMin is the room of a vector's first allocation. The first
	// page starts that small and doubles up to PageLen, so that a vector
	// of a few elements (a join of a handful of rows) does not take a
	// whole page; copying it costs at most PageLen elements once.
	firstMin = 64
	// groupBytes is the size of the groups of pages a large vector
	// takes its pages from once it holds that much: one allocation of
	// many pages, in huge pages where the kernel gives them
	// (exec/internal/hugepage), rather than a fresh 4 KiB page faulted in
	// every few thousand elements.
	groupBytes = 4 << 20
)

// Vec is a vector of elements of type T indexed by dense int32 ids. It
// has room (Cap) for ids 0..Cap()-1, whose elements are zero until set;
// Grow makes room for more. Every page but a lone first one is full-size.
// Once a vector holds groupBytes of pages, its next pages come from groups
// of that size.
type Vec[T any] struct {
	pages [][]T
	cap   int
	spare []T // the rest of the last group of pages: the pages to come
}

// Cap returns the number of ids there is room for.
func (v *Vec[T]) Cap() int { return v.cap }

// Grow makes room for ids 0..n-1. Elements held are not copied, except
// while the vector fits in its first, not yet full-size, page.
func (v *Vec[T]) Grow(n int) {
	if n <= v.cap {
		return
	}
	v.cap = Room(v.cap, n)
	if v.cap < PageLen {
		p := make([]T, v.cap)
		if len(v.pages) == 0 {
			v.pages = append(v.pages, p)
		} else {
			copy(p, v.pages[0])
			v.pages[0] = p
		}
		return
	}
	if len(v.pages) == 1 && len(v.pages[0]) < PageLen {
		p := make([]T, PageLen)
		copy(p, v.pages[0])
		v.pages[0] = p
	}
	for len(v.pages)*PageLen < v.cap {
		v.pages = append(v.pages, v.newPage())
	}
}

// newPage returns a full-size page: made alone while the vector is
// smaller than a group, then taken from a group.
func (v *Vec[T]) newPage() []T {
	if len(v.spare) == 0 {
		var zero T
		perGroup := groupBytes / (PageLen * int(unsafe.Sizeof(zero)))
		if perGroup <= 1 || len(v.pages) < perGroup {
			return make([]T, PageLen)
		}
		v.spare = make([]T, perGroup*PageLen)
		hugepage.Advise(unsafe.Pointer(unsafe.SliceData(v.spare)), uintptr(groupBytes))
	}
	p := v.spare[:PageLen:PageLen]
	v.spare = v.spare[PageLen:]
	return p
}

// Room returns the room a vector of room have has after Grow(n): the
// same for every vector of the same history, whatever its element type.
func Room(have, n int) int {
	switch {
	case n <= have:
		return have
	case n < PageLen:
		return min(max(firstMin, 2*have, n), PageLen)
	}
	return (n + mask) &^ mask
}

// At returns the element of id i, which must be below Cap.
func (v *Vec[T]) At(i int32) T { return v.pages[i>>Shift][i&mask] }

// Set sets the element of id i, which must be below Cap, to x.
func (v *Vec[T]) Set(i int32, x T) { v.pages[i>>Shift][i&mask] = x }

// Ref returns a pointer to the element of id i, which must be below Cap.
// It stays valid while the vector grows only once Cap reaches PageLen.
func (v *Vec[T]) Ref(i int32) *T { return &v.pages[i>>Shift][i&mask] }

// Pages returns the number of pages.
func (v *Vec[T]) Pages() int { return len(v.pages) }

// Page returns page p: the elements of ids p<<Shift and up, at most
// PageLen of them (fewer in a lone first page).
func (v *Vec[T]) Page(p int) []T { return v.pages[p] }

// Bytes returns the memory the vector holds: its pages, those of its
// group still to come, and their directory, not counting what its
// elements point to.
func (v *Vec[T]) Bytes() int64 {
	var zero T
	return int64(v.cap+len(v.spare))*int64(unsafe.Sizeof(zero)) + int64(cap(v.pages))*int64(unsafe.Sizeof([]T(nil)))
}
