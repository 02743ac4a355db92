package hugepage

import "unsafe"

// size is the size of a transparent huge page on amd64 and arm64.
const size = 2 << 20

// minBytes is the smallest allocation Make advises: one that holds at
// least one whole aligned huge page wherever it starts.
const minBytes = 4 << 20

// Make returns make([]T, n), asking for huge pages when it takes at least
// 4 MiB: the tables of an operator's state that grow by doubling (a hash
// table's next size is written all at once, into memory the heap has
// just grown by). Memory the Go heap reuses was touched before and stays
// as it is.
func Make[T any](n int) []T {
	s := make([]T, n)
	var zero T
	if size := uintptr(n) * unsafe.Sizeof(zero); size >= minBytes {
		Advise(unsafe.Pointer(unsafe.SliceData(s)), size)
	}
	return s
}
