package recycle

import (
	"math/bits"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Pool is a memory.Allocator that keeps the buffers freed to it, up to a
// bound, and hands them out again.
//
// Buffers are kept by size class (powers of two from 64 bytes to 4 MiB);
// the bytes of a buffer taken from the pool are zeroed, as a fresh one's
// are (only those asked for: a request of 2.1 MB clears 2.1 MB of its
// 4 MiB buffer, and the rest if Reallocate grows into it). What the pool
// does not keep goes back to the underlying allocator, and so does what it
// holds when it is closed; a buffer freed after that goes straight back,
// and one allocated after that comes straight from it.
//
// In a test binary a buffer is filled with a pattern when it enters the
// pool, so that a reader that used a batch after releasing it would read
// garbage, and the tests that compare results would see it.
type Pool struct {
	under   memory.Allocator
	maxHeld int

	mu     sync.Mutex
	free   [maxClass + 1][][]byte
	held   int // bytes in free
	closed bool
}

const (
	minClass = 6  // 64 bytes
	maxClass = 22 // 4 MiB
	// Poison fills the buffers that enter a pool in a test binary.
	Poison = 0xA5
)

var _ memory.Allocator = (*Pool)(nil)

// New returns a pool over under that keeps at most maxHeld bytes.
func New(under memory.Allocator, maxHeld int) *Pool {
	if under == nil {
		under = memory.DefaultAllocator
	}
	return &Pool{under: under, maxHeld: maxHeld}
}

// classOf returns the size class of a buffer of size bytes, or -1 when
// the pool does not keep buffers of that size.
func classOf(size int) int {
	if size <= 0 || size > 1<<maxClass {
		return -1
	}
	return max(bits.Len(uint(size-1)), minClass)
}

// Allocate implements memory.Allocator.
func (p *Pool) Allocate(size int) []byte {
	k := classOf(size)
	if k < 0 {
		return p.under.Allocate(size)
	}
	p.mu.Lock()
	var b []byte
	if n := len(p.free[k]); n > 0 {
		b = p.free[k][n-1]
		p.free[k][n-1] = nil
		p.free[k] = p.free[k][:n-1]
		p.held -= cap(b)
	}
	p.mu.Unlock()
	if b == nil {
		return p.under.Allocate(1 << k)[:size]
	}
	b = b[:size]
	clear(b) // the rest is cleared if Reallocate grows into it
	return b
}

// Reallocate implements memory.Allocator.
func (p *Pool) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) && classOf(cap(b)) >= 0 && 1<<classOf(cap(b)) == cap(b) {
		// Its class has room. The bytes past len may hold an earlier
		// batch's: Allocate cleared only what it handed out.
		if size > len(b) {
			clear(b[len(b):size])
		}
		return b[:size]
	}
	nb := p.Allocate(size)
	copy(nb, b)
	p.Free(b)
	return nb
}

// Free implements memory.Allocator.
func (p *Pool) Free(b []byte) {
	b = b[:cap(b)]
	k := classOf(len(b))
	if k < 0 || len(b) != 1<<k {
		p.under.Free(b)
		return
	}
	if testing.Testing() {
		for i := range b {
			b[i] = Poison
		}
	}
	p.mu.Lock()
	if p.closed || p.held+len(b) > p.maxHeld {
		p.mu.Unlock()
		p.under.Free(b)
		return
	}
	p.free[k] = append(p.free[k], b)
	p.held += len(b)
	p.mu.Unlock()
}

// Close hands what the pool holds back to the underlying allocator; what
// is freed afterwards goes straight back.
func (p *Pool) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for k := range p.free {
		for _, b := range p.free[k] {
			p.under.Free(b)
		}
		p.free[k] = nil
	}
	p.held = 0
}

// Held returns the bytes the pool keeps.
func (p *Pool) Held() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.held
}
