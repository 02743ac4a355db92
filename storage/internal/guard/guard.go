package guard

import (
	"sync"

	"github.com/eddysql/eddy/storage"
)

// Guard counts operations in flight. The zero value is not usable; call New.
type Guard struct {
	mu       sync.Mutex
	closed   bool
	inflight sync.WaitGroup
	done     chan struct{}
}

// New returns an open Guard.
func New() *Guard { return &Guard{done: make(chan struct{})} }

// Enter starts an operation; it returns storage.ErrClosed after Close has
// begun. Every successful Enter must be paired with Exit. Enter may nest.
func (g *Guard) Enter() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return storage.ErrClosed
	}
	g.inflight.Add(1)
	return nil
}

// Exit ends an operation started by Enter.
func (g *Guard) Exit() { g.inflight.Done() }

// Done returns a channel closed when Close begins, for operations that
// block (such as Log.Wait) to give up.
func (g *Guard) Done() <-chan struct{} { return g.done }

// Close refuses new operations, wakes blocked ones and waits for those in
// flight. It reports whether this call closed the guard (false if it was
// already closed).
func (g *Guard) Close() bool {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return false
	}
	g.closed = true
	close(g.done)
	g.mu.Unlock()
	g.inflight.Wait()
	return true
}
