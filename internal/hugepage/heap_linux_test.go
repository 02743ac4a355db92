package hugepage

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/eddysql/eddy/internal/procfs"
)

// TestReserveHeapAdvisesWhatTheHeapGrowsInto reserves 256 MiB of heap and
// checks that a large allocation made after it lands in memory marked
// for huge pages (the reserved range, or one an earlier run of the test
// reserved and freed: the heap takes the lowest free addresses), or,
// where the kernel takes no such advice, that nothing was reserved and
// the reason says why.
func TestReserveHeapAdvisesWhatTheHeapGrowsInto(t *testing.T) {
	r := ReserveHeap(256 << 20)
	if why := heapAdviceRefused(); why != "" {
		if r.Bytes != 0 || r.Reason != why {
			t.Fatalf("refused (%s), got %+v", why, r)
		}
		t.Skipf("the heap cannot be advised here: %s", why)
	}
	if r.Bytes < 250<<20 || r.Reason != "" || r.hi-r.lo != uintptr(r.Bytes) {
		t.Fatalf("reserved %+v, want about 256 MiB", r)
	}
	if !strings.Contains(r.String(), "MiB it grows into") {
		t.Errorf("String() = %q", r)
	}
	b := make([]byte, 64<<20)
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	for _, at := range []uintptr{p + 16<<20, p + uintptr(len(b)) - size} {
		if got := flagsAt(t, at); !strings.Contains(got, " hg") {
			t.Errorf("a 64 MiB allocation at %#x: its page at %#x is not marked for huge pages (reserved %#x-%#x): VmFlags:%s",
				p, at, r.lo, r.hi, got)
		}
	}
	b[0], b[len(b)-1] = 1, 1
}

// TestReserveHeapTooSmall reserves nothing when asked for less than two
// huge pages.
func TestReserveHeapTooSmall(t *testing.T) {
	if r := ReserveHeap(1 << 20); r.Bytes != 0 || r.Reason == "" {
		t.Fatalf("got %+v", r)
	}
}

// TestReserveHeapAtMostHalfTheMachine asks for far more than the machine
// has and gets at most half of it, not a runtime that cannot map it.
func TestReserveHeapAtMostHalfTheMachine(t *testing.T) {
	m := procfs.MemTotal()
	if m == 0 {
		t.Skip("no MemTotal in /proc/meminfo")
	}
	r := ReserveHeap(1 << 50)
	if r.Bytes > m/2 {
		t.Fatalf("reserved %d bytes of a machine of %d", r.Bytes, m)
	}
	if heapAdviceRefused() == "" && r.Bytes < m/2-2*size {
		t.Fatalf("reserved %d bytes, want about half of %d", r.Bytes, m)
	}
}
