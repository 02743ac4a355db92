package nexmark

import (
	"math/bits"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// recycler is the allocator of a source's batches. It keeps the buffers
// the batches' readers release, up to a bound, and hands them out again,
// so that the generator writes its events into memory that a batch just
// left — in the processor's caches — rather than into fresh memory, whose
// first writes are cache misses and, as the heap grows, page faults (a
// tenth to a seventh of the CPU of q7, q9, q16 and q18 went to copying
// short strings into fresh buffers).
//
// Buffers are kept by size class (powers of two from 64 bytes to 4 MiB);
// a buffer taken from the pool is zeroed, as a fresh one is. What the pool
// does not keep goes back to the underlying allocator, and so does what it
// holds when the source closes; a buffer released after that goes straight
// back.
//
// In a test binary a buffer is filled with a pattern when it enters the
// pool, so that a reader that used a batch after releasing it would read
// garbage, and the tests that compare results would see it.
type recycler struct {
	under memory.Allocator

	mu     sync.Mutex
	free   [maxClass + 1][][]byte
	held   int // bytes in free
	closed bool
}

const (
	minClass = 6  // 64 bytes
	maxClass = 22 // 4 MiB
	// maxHeld bounds the bytes a source's pool keeps: a few batches of
	// every column in flight between the source and its readers.
	maxHeld = 16 << 20
	// poison fills the buffers that enter the pool in a test binary.
	poison = 0xA5
)

var _ memory.Allocator = (*recycler)(nil)

// classOf returns the size class of a buffer of size bytes, or -1 when
// the pool does not keep buffers of that size.
func classOf(size int) int {
	if size <= 0 || size > 1<<maxClass {
		return -1
	}
	return max(bits.Len(uint(size-1)), minClass)
}

// Allocate implements memory.Allocator.
func (r *recycler) Allocate(size int) []byte {
	k := classOf(size)
	if k < 0 {
		return r.under.Allocate(size)
	}
	r.mu.Lock()
	var b []byte
	if n := len(r.free[k]); n > 0 {
		b = r.free[k][n-1]
		r.free[k][n-1] = nil
		r.free[k] = r.free[k][:n-1]
		r.held -= cap(b)
	}
	r.mu.Unlock()
	if b == nil {
		return r.under.Allocate(1 << k)[:size]
	}
	clear(b)
	return b[:size]
}

// Reallocate implements memory.Allocator.
func (r *recycler) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) && classOf(cap(b)) >= 0 && 1<<classOf(cap(b)) == cap(b) {
		return b[:size] // its class has room; the bytes past len are zero
	}
	nb := r.Allocate(size)
	copy(nb, b)
	r.Free(b)
	return nb
}

// Free implements memory.Allocator.
func (r *recycler) Free(b []byte) {
	b = b[:cap(b)]
	k := classOf(len(b))
	if k < 0 || len(b) != 1<<k {
		r.under.Free(b)
		return
	}
	if testing.Testing() {
		for i := range b {
			b[i] = poison
		}
	}
	r.mu.Lock()
	if r.closed || r.held+len(b) > maxHeld {
		r.mu.Unlock()
		r.under.Free(b)
		return
	}
	r.free[k] = append(r.free[k], b)
	r.held += len(b)
	r.mu.Unlock()
}

// close hands what the pool holds back to the underlying allocator; what
// is freed afterwards goes straight back.
func (r *recycler) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	for k := range r.free {
		for _, b := range r.free[k] {
			r.under.Free(b)
		}
		r.free[k] = nil
	}
	r.held = 0
}
