package recycle

import (
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestPool checks the allocator: a freed buffer is handed out again,
// zeroed; in a test binary it is poisoned while pooled; growing within a
// size class keeps the buffer; the pool keeps at most maxHeld bytes; and
// closing it returns every buffer to the underlying allocator.
func TestPool(t *testing.T) {
	const maxHeld = 16 << 20
	under := memory.NewCheckedAllocator(memory.NewGoAllocator())
	r := New(under, maxHeld)

	b := r.Allocate(100)
	if len(b) != 100 || cap(b) != 128 {
		t.Fatalf("Allocate(100): len %d, cap %d; want 100, 128", len(b), cap(b))
	}
	for i := range b {
		b[i] = byte(i)
	}
	r.Free(b)
	if b[0] != Poison || b[99] != Poison {
		t.Errorf("a pooled buffer is not poisoned in a test binary: % x", b[:4])
	}
	c := r.Allocate(120)
	if unsafe.SliceData(c) != unsafe.SliceData(b) {
		t.Errorf("Allocate(120) after freeing a 128-byte buffer did not reuse it")
	}
	for i, v := range c {
		if v != 0 {
			t.Fatalf("a reused buffer is not zeroed: byte %d is %#x", i, v)
		}
	}
	copy(c, "hello")
	if d := r.Reallocate(128, c); unsafe.SliceData(d) != unsafe.SliceData(c) || len(d) != 128 {
		t.Errorf("Reallocate within the class moved the buffer")
	} else {
		c = d
	}
	for i, v := range c[5:] {
		if v != 0 {
			t.Fatalf("Reallocate within the class left byte %d at %#x", 5+i, v)
		}
	}
	e := r.Reallocate(1000, c)
	if len(e) != 1000 || string(e[:5]) != "hello" {
		t.Errorf("Reallocate(1000) lost the bytes: %q", e[:5])
	}
	r.Free(e)

	// Sizes outside the classes pass through.
	big := r.Allocate(5 << 20)
	r.Free(big)

	// The pool keeps at most maxHeld bytes.
	var bufs [][]byte
	for range 2 * maxHeld / (1 << maxClass) {
		bufs = append(bufs, r.Allocate(1<<maxClass))
	}
	for _, b := range bufs {
		r.Free(b)
	}
	if r.Held() > maxHeld {
		t.Errorf("the pool holds %d bytes, more than %d", r.held, maxHeld)
	}
	r.Close()
	r.Free(r.Allocate(64)) // after close, straight back
	under.AssertSize(t, 0)
}

// TestClassOf checks the size classes.
func TestClassOf(t *testing.T) {
	for _, tc := range []struct{ size, want int }{
		{0, -1}, {1, minClass}, {64, minClass}, {65, 7}, {4096, 12}, {4097, 13}, {1 << maxClass, maxClass}, {1<<maxClass + 1, -1},
	} {
		if got := classOf(tc.size); got != tc.want {
			t.Errorf("classOf(%d) = %d, want %d", tc.size, got, tc.want)
		}
	}
}
