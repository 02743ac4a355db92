package hugepage

import (
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"unsafe"

	"github.com/eddysql/eddy/internal/procfs"
)

// HeapReservation says what ReserveHeap did.
type HeapReservation struct {
	// Bytes is the size of the address range advised (0: none).
	Bytes int64
	// Reason says why nothing was advised, when Bytes is 0.
	Reason string
	// lo and hi bound the advised range.
	lo, hi uintptr
}

func (r HeapReservation) String() string {
	if r.Bytes == 0 {
		return "huge pages for the heap: not asked for (" + r.Reason + ")"
	}
	return fmt.Sprintf("huge pages for the heap: the first %d MiB it grows into", r.Bytes>>20)
}

// ReserveHeap asks for huge pages for the first n bytes of address space
// the Go heap will grow into. The runtime maps the heap in 4 MiB pieces
// just before it uses them, with no advice, so a heap can only be asked
// for huge pages ahead of its use: ReserveHeap allocates one object of n
// bytes (fresh address space, which the runtime neither zeroes nor
// touches), advises its range, drops it and has the runtime collect it
// and return its pages. The range stays mapped and advised, and the
// allocations that follow reuse it, lowest addresses first, faulting in
// 2 MiB at a time. It is meant for a process's start, once: it collects
// garbage and returns all free memory to the system.
//
// It reserves at most half the machine's memory (4 GiB where that cannot
// be read): the kernel's default overcommit heuristic refuses a mapping
// larger than the machine, and the runtime cannot survive a refused one.
// It does nothing, and says why, where it would not help or could harm:
// the kernel gives huge pages to every process ("always") or none
// ("never"), or the process runs under strict overcommit accounting or
// an address-space limit, which would count the whole range.
func ReserveHeap(n int64) HeapReservation {
	if why := heapAdviceRefused(); why != "" {
		return HeapReservation{Reason: why}
	}
	if m := procfs.MemTotal(); m > 0 {
		n = min(n, m/2)
	} else {
		n = min(n, 4<<30)
	}
	if n < 2*size {
		return HeapReservation{Reason: "no room to reserve"}
	}
	b := make([]byte, n)
	p := unsafe.Pointer(unsafe.SliceData(b))
	Advise(p, uintptr(n))
	lo := (uintptr(p) + size - 1) &^ (size - 1)
	hi := (uintptr(p) + uintptr(n)) &^ (size - 1)
	b = nil
	debug.FreeOSMemory()
	return HeapReservation{Bytes: int64(hi - lo), lo: lo, hi: hi}
}

// thpMode returns the kernel's transparent huge page mode (always,
// madvise or never), or "" if it cannot be read.
func thpMode() string {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil {
		return ""
	}
	s := string(b)
	if i := strings.IndexByte(s, '['); i >= 0 {
		if j := strings.IndexByte(s[i:], ']'); j > 0 {
			return s[i+1 : i+j]
		}
	}
	return ""
}
