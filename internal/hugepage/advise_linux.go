package hugepage

import (
	"syscall"
	"unsafe"
)

// madvHugepage is MADV_HUGEPAGE.
const madvHugepage = 14

// Advise asks for huge pages for the 2 MiB-aligned part of the n bytes at
// p, which should not have been written yet: pages already touched stay
// as they are. It is only advice: an error (a kernel without transparent
// huge pages) changes nothing, and is ignored.
func Advise(p unsafe.Pointer, n uintptr) {
	lo := (uintptr(p) + size - 1) &^ (size - 1)
	hi := (uintptr(p) + n) &^ (size - 1)
	if lo >= hi {
		return
	}
	_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, madvHugepage)
}
