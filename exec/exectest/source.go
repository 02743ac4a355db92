package exectest

import (
	"context"
	"io"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/exec"
)

// Source is a scripted source for runtime tests: the test appends chunks
// in text form (Add) while the job runs, and ends the input (End). Until
// then it is unbounded: Next returns exec.ErrCaughtUp when it has
// returned every chunk added, and Wait blocks until the next Add or End.
// Chunks are parsed when added, on the test's goroutine; Close releases
// those never read. One Source serves one source instance.
type Source struct {
	t      testing.TB
	alloc  memory.Allocator
	mu     sync.Mutex
	chunks []exec.Chunk
	ended  bool
	signal chan struct{}
}

var _ exec.Source = (*Source)(nil)

// NewSource returns a source whose chunks are allocated from alloc, with
// the given chunks already added.
func NewSource(t testing.TB, alloc memory.Allocator, chunks ...string) *Source {
	s := &Source{t: t, alloc: alloc, signal: make(chan struct{}, 1)}
	s.Add(chunks...)
	return s
}

// Add appends chunks (in the text form of Chunk).
func (s *Source) Add(chunks ...string) {
	s.t.Helper()
	parsed := make([]exec.Chunk, len(chunks))
	for i, text := range chunks {
		parsed[i] = Chunk(s.t, s.alloc, text)
	}
	s.Push(parsed...)
}

// Push appends chunks already built (a test's large or generated input);
// the source takes over their batches' references.
func (s *Source) Push(chunks ...exec.Chunk) {
	s.mu.Lock()
	s.chunks = append(s.chunks, chunks...)
	s.mu.Unlock()
	s.wake()
}

// End ends the input: once every chunk was read, Next returns io.EOF.
func (s *Source) End() {
	s.mu.Lock()
	s.ended = true
	s.mu.Unlock()
	s.wake()
}

func (s *Source) wake() {
	select {
	case s.signal <- struct{}{}:
	default:
	}
}

// Open implements exec.Source.
func (s *Source) Open(context.Context, *exec.Env) error { return nil }

// Next implements exec.Source.
func (s *Source) Next(context.Context) (exec.Chunk, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case len(s.chunks) > 0:
		c := s.chunks[0]
		s.chunks = s.chunks[1:]
		return c, nil
	case s.ended:
		return exec.Chunk{}, io.EOF
	}
	return exec.Chunk{}, exec.ErrCaughtUp
}

// Wait implements exec.Source.
func (s *Source) Wait(ctx context.Context) error {
	select {
	case <-s.signal:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close implements exec.Source: it releases the chunks never read.
func (s *Source) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.chunks {
		c.Batch.Release()
	}
	s.chunks = nil
	return nil
}
