//go:build !linux

package hugepage

import "unsafe"

// Advise does nothing where the kernel takes no such advice.
func Advise(p unsafe.Pointer, n uintptr) {}

// heapAdviceRefused says the heap cannot be advised here.
func heapAdviceRefused() string { return "not on Linux" }
