package hugepage

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// TestAdviseMarksTheAlignedPart advises an unaligned part of a fresh
// mapping and checks in /proc/self/smaps that the kernel marked the
// 2 MiB-aligned pages within it for huge pages ("hg"), and nothing
// before them.
func TestAdviseMarksTheAlignedPart(t *testing.T) {
	if b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil || strings.Contains(string(b), "[never]") {
		t.Skip("this kernel gives no transparent huge pages")
	}
	m, err := syscall.Mmap(-1, 0, 8<<20, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(m)
	base := uintptr(unsafe.Pointer(unsafe.SliceData(m)))
	Advise(unsafe.Pointer(&m[4096]), 8<<20-4096)
	lo := (base + 4096 + size - 1) &^ (size - 1)
	if got := flagsAt(t, lo); !strings.Contains(got, " hg") {
		t.Errorf("the aligned part at %#x is not marked: VmFlags:%s", lo, got)
	}
	if got := flagsAt(t, base); strings.Contains(got, " hg") {
		t.Errorf("the part before the first aligned page is marked: VmFlags:%s", got)
	}
}

// flagsAt returns the VmFlags of the mapping that holds address p.
func flagsAt(t *testing.T, p uintptr) string {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		var from, to uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x", &from, &to); n == 2 && strings.Contains(line, " ") {
			in = from <= p && p < to
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimPrefix(line, "VmFlags:")
		}
	}
	t.Fatalf("no mapping holds %#x", p)
	return ""
}

// TestMakeAdvisesLargeSlices checks that Make returns a zeroed slice of
// the length asked and that one of 8 MiB is marked for huge pages.
func TestMakeAdvisesLargeSlices(t *testing.T) {
	if b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil || strings.Contains(string(b), "[never]") {
		t.Skip("this kernel gives no transparent huge pages")
	}
	s := Make[uint64](1 << 20)
	if len(s) != 1<<20 {
		t.Fatalf("len %d", len(s))
	}
	for i, v := range s {
		if v != 0 {
			t.Fatalf("element %d is %d", i, v)
		}
	}
	lo := (uintptr(unsafe.Pointer(unsafe.SliceData(s))) + size - 1) &^ (size - 1)
	if got := flagsAt(t, lo); !strings.Contains(got, " hg") {
		t.Errorf("an 8 MiB slice is not marked for huge pages: VmFlags:%s", got)
	}
}
