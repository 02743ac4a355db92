package exectest

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
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
//
// A Source is exec.Positioned: its position is the number of chunks Next
// has returned, and Seek skips that many of the chunks added, as a
// replayable input (a file, a log) resumes after a checkpoint.
type Source struct {
	t      testing.TB
	alloc  memory.Allocator
	mu     sync.Mutex
	chunks []exec.Chunk
	ended  bool
	signal chan struct{}
	read   uint64 // chunks returned or skipped
	skip   uint64 // chunks still to skip after Seek
}

var _ exec.Positioned = (*Source)(nil)

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
	for s.skip > 0 && len(s.chunks) > 0 {
		s.chunks[0].Batch.Release()
		s.chunks = s.chunks[1:]
		s.skip--
	}
	switch {
	case s.skip > 0 && s.ended:
		return exec.Chunk{}, fmt.Errorf("exectest: the input ended %d chunks before the position it was sought to", s.skip)
	case s.skip > 0:
		return exec.Chunk{}, exec.ErrCaughtUp
	case len(s.chunks) > 0:
		c := s.chunks[0]
		s.chunks = s.chunks[1:]
		s.read++
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

// Position implements exec.Positioned: the chunks read so far, 8 bytes.
func (s *Source) Position() ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return binary.BigEndian.AppendUint64(nil, s.read), nil
}

// Seek implements exec.Positioned: the chunks up to pos are skipped (as
// they are added, if they are not yet).
func (s *Source) Seek(_ context.Context, pos []byte) error {
	if len(pos) != 8 {
		return fmt.Errorf("exectest: a position of %d bytes, want 8", len(pos))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.read != 0 || s.skip != 0 {
		return errors.New("exectest: Seek after Next")
	}
	s.skip = binary.BigEndian.Uint64(pos)
	s.read = s.skip
	return nil
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
