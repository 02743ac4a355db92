package paged

import (
	"testing"
	"unsafe"
)

// TestGrowKeepsElements grows a vector one id at a time across the first
// page's doublings and several page boundaries, checking after each step
// that every element set so far reads back, that the room is what Room
// says, and that full pages are never copied.
func TestGrowKeepsElements(t *testing.T) {
	var v Vec[int64]
	const n = 3*PageLen + 17
	var firstFull *int64
	for i := range int32(n) {
		want := Room(v.Cap(), int(i)+1)
		v.Grow(int(i) + 1)
		if v.Cap() != want || v.Cap() <= int(i) {
			t.Fatalf("after Grow(%d): room %d, want %d", i+1, v.Cap(), want)
		}
		v.Set(i, int64(i)*7+1)
		if i == PageLen {
			firstFull = v.Ref(0)
		}
		if firstFull != nil && v.Ref(0) != firstFull {
			t.Fatalf("at id %d: the first full page was copied", i)
		}
	}
	for i := range int32(n) {
		if got := v.At(i); got != int64(i)*7+1 {
			t.Fatalf("id %d holds %d, want %d", i, got, int64(i)*7+1)
		}
	}
	if v.Pages() != 4 || v.Cap() != 4*PageLen {
		t.Fatalf("%d pages, room %d; want 4 pages, room %d", v.Pages(), v.Cap(), 4*PageLen)
	}
	for p := range v.Pages() {
		if len(v.Page(p)) != PageLen {
			t.Fatalf("page %d has %d elements", p, len(v.Page(p)))
		}
		if got := v.Page(p)[5]; got != int64(p*PageLen+5)*7+1 {
			t.Fatalf("page %d element 5 holds %d", p, got)
		}
	}
}

// TestSmallVectorsStaySmall checks that a vector of a few elements takes
// a small first page, which doubles, and that elements above those set
// read as zero.
func TestSmallVectorsStaySmall(t *testing.T) {
	var v Vec[bool]
	v.Grow(1)
	if v.Cap() != firstMin || len(v.Page(0)) != firstMin {
		t.Fatalf("room %d, page of %d; want %d", v.Cap(), len(v.Page(0)), firstMin)
	}
	v.Set(3, true)
	v.Grow(firstMin + 1)
	if v.Cap() != 2*firstMin || !v.At(3) || v.At(4) || v.At(2*firstMin-1) {
		t.Fatalf("room %d, elements 3, 4, last: %v %v %v", v.Cap(), v.At(3), v.At(4), v.At(2*firstMin-1))
	}
	v.Grow(10) // no-op
	if v.Cap() != 2*firstMin {
		t.Fatalf("Grow below the room changed it to %d", v.Cap())
	}
}

// TestReserveAtOnce grows an empty vector to many pages in one step, as a
// restore does, and checks the pages and the element at each boundary.
func TestReserveAtOnce(t *testing.T) {
	var v Vec[int32]
	v.Grow(2*PageLen + 1)
	if v.Pages() != 3 || v.Cap() != 3*PageLen {
		t.Fatalf("%d pages, room %d", v.Pages(), v.Cap())
	}
	for _, i := range []int32{0, PageLen - 1, PageLen, 2*PageLen - 1, 2 * PageLen, 3*PageLen - 1} {
		v.Set(i, i+1)
	}
	for _, i := range []int32{0, PageLen - 1, PageLen, 2*PageLen - 1, 2 * PageLen, 3*PageLen - 1} {
		if v.At(i) != i+1 {
			t.Fatalf("id %d holds %d", i, v.At(i))
		}
	}
}

// TestBytes checks that Bytes counts the room of every page at the
// element's size, plus the page directory.
func TestBytes(t *testing.T) {
	var v Vec[[16]byte]
	if v.Bytes() != 0 {
		t.Fatalf("an empty vector holds %d bytes", v.Bytes())
	}
	v.Grow(5)
	hdr := int64(unsafe.Sizeof([]int(nil)))
	if got, want := v.Bytes(), int64(16*firstMin)+hdr; got != want {
		t.Fatalf("one small page: %d bytes, want %d", got, want)
	}
	v.Grow(PageLen + 1)
	if got, want := v.Bytes(), int64(16*2*PageLen)+int64(cap(v.pages))*hdr; got != want || cap(v.pages) < 2 {
		t.Fatalf("two pages: %d bytes, want %d", got, want)
	}
}

// TestLargeVectorsTakePagesFromGroups grows a vector of int64s past two
// groups' worth of pages: the pages past the first group's worth come
// from groups (consecutive in memory, each capped at a page), every
// element reads back, and Bytes counts the group's pages still to come.
func TestLargeVectorsTakePagesFromGroups(t *testing.T) {
	perGroup := groupBytes / (PageLen * 8)
	n := (2*perGroup + 3) * PageLen
	var v Vec[int64]
	for i := range int32(n) {
		v.Grow(int(i) + 1)
		v.Set(i, int64(i)^0x5555)
	}
	for i := range int32(n) {
		if got := v.At(i); got != int64(i)^0x5555 {
			t.Fatalf("id %d holds %d", i, got)
		}
	}
	for p := 0; p < v.Pages(); p++ {
		page := v.Page(p)
		if len(page) != PageLen || cap(page) != PageLen {
			t.Fatalf("page %d: len %d, cap %d; want %d", p, len(page), cap(page), PageLen)
		}
		if p <= perGroup || (p-perGroup)%perGroup == 0 {
			continue // alone, or its group's first
		}
		last := unsafe.Pointer(unsafe.SliceData(v.Page(p - 1)[PageLen-1:]))
		if uintptr(unsafe.Pointer(unsafe.SliceData(page))) != uintptr(last)+8 {
			t.Fatalf("page %d does not follow page %d in its group", p, p-1)
		}
	}
	spare := (perGroup - 3) * PageLen
	want := int64(n+spare)*8 + int64(cap(v.pages))*int64(unsafe.Sizeof([]int64(nil)))
	if got := v.Bytes(); got != want {
		t.Errorf("Bytes = %d, want %d (%d elements of a group to come)", got, want, spare)
	}
}
