package exectest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"

	"github.com/eddysql/eddy/exec"
)

// State is an in-memory checkpoint store for the tests of stateful
// operators: an exec.StateWriter that applies a snapshot's puts and
// deletes to the entries of earlier ones (as the runtime's state table
// does), and an exec.StateReader over them for Restore. It counts the
// puts, deletes and bytes put since the last Reset (Snapshot resets), so a
// test can check that a snapshot writes only what changed. Entries, by key
// group and key, may be changed by a test (to damage them).
//
// A State is also an exec.StateWriterForker, as the runtime's writers
// are: the writers it forks buffer their entries and apply them on Flush,
// under a lock, so that an operator's background snapshot is tested as it
// runs in a job.
type State struct {
	Entries map[int]map[string][]byte
	Puts    int
	Deletes int
	Bytes   int // of the keys and values put
	Forks   int // the writers forked

	mu sync.Mutex // held by Put, Delete and a fork's Flush
}

var (
	_ exec.StateWriter       = (*State)(nil)
	_ exec.StateWriterForker = (*State)(nil)
	_ exec.StateReader       = (*State)(nil)
)

// NewState returns an empty State.
func NewState() *State { return &State{Entries: map[int]map[string][]byte{}} }

// Snapshot resets the counts and has op snapshot into s as checkpoint
// epoch, failing t on an error.
func (s *State) Snapshot(t testing.TB, op exec.Stateful, epoch uint64) {
	t.Helper()
	s.Reset()
	if err := op.Snapshot(context.Background(), epoch, s); err != nil {
		t.Fatalf("snapshot %d: %v", epoch, err)
	}
}

// Put implements exec.StateWriter.
func (s *State) Put(group int, key, value []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.put(group, key, value)
}

func (s *State) put(group int, key, value []byte) error {
	if group < 0 || group >= exec.NumKeyGroups {
		return fmt.Errorf("exectest: key group %d out of range", group)
	}
	g := s.Entries[group]
	if g == nil {
		g = map[string][]byte{}
		s.Entries[group] = g
	}
	g[string(key)] = slices.Clone(value)
	s.Puts++
	s.Bytes += len(key) + len(value)
	return nil
}

// Delete implements exec.StateWriter.
func (s *State) Delete(group int, key []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.delete(group, key)
}

func (s *State) delete(group int, key []byte) error {
	if group < 0 || group >= exec.NumKeyGroups {
		return fmt.Errorf("exectest: key group %d out of range", group)
	}
	delete(s.Entries[group], string(key))
	s.Deletes++
	return nil
}

// Scan implements exec.StateReader: the entries of groups, in order of
// group, then key.
func (s *State) Scan(ctx context.Context, groups exec.KeyGroupRange, fn func(group int, key, value []byte) error) error {
	for g := groups.Lo; g < groups.Hi; g++ {
		for _, k := range slices.Sorted(maps.Keys(s.Entries[g])) {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := fn(g, []byte(k), s.Entries[g][k]); err != nil {
				return err
			}
		}
	}
	return nil
}

// Len returns the number of entries held.
func (s *State) Len() int {
	n := 0
	for _, g := range s.Entries {
		n += len(g)
	}
	return n
}

// Reset zeroes the counts of puts, deletes and bytes.
func (s *State) Reset() {
	s.mu.Lock()
	s.Puts, s.Deletes, s.Bytes = 0, 0, 0
	s.mu.Unlock()
}

// Damage replaces the value of every entry with value: a test of how
// Restore reports damaged state.
func (s *State) Damage(value []byte) {
	for _, g := range s.Entries {
		for k := range g {
			g[k] = slices.Clone(value)
		}
	}
}

// Clone returns a copy of s's entries (with zero counts): the state as of
// a committed checkpoint, kept while later snapshots change s.
func (s *State) Clone() *State {
	c := NewState()
	for g, entries := range s.Entries {
		c.Entries[g] = maps.Clone(entries)
	}
	return c
}

// Fork implements exec.StateWriterForker.
func (s *State) Fork() exec.ForkedStateWriter {
	s.mu.Lock()
	s.Forks++
	s.mu.Unlock()
	return &forkedState{parent: s}
}

// forkedState is a writer a State forked: it buffers entries until Flush.
type forkedState struct {
	parent  *State
	entries []forkedEntry
	joined  bool
}

type forkedEntry struct {
	group      int
	key, value []byte
	del        bool
}

func (f *forkedState) add(group int, key, value []byte, del bool) error {
	if f.joined {
		return fmt.Errorf("exectest: a forked writer used after Join")
	}
	f.entries = append(f.entries, forkedEntry{group, slices.Clone(key), slices.Clone(value), del})
	return nil
}

// Put implements exec.StateWriter.
func (f *forkedState) Put(group int, key, value []byte) error { return f.add(group, key, value, false) }

// Delete implements exec.StateWriter.
func (f *forkedState) Delete(group int, key []byte) error { return f.add(group, key, nil, true) }

// Flush implements exec.ForkedStateWriter: it applies the buffered entries
// to the parent, in order.
func (f *forkedState) Flush() error {
	s := f.parent
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range f.entries {
		var err error
		if e.del {
			err = s.delete(e.group, e.key)
		} else {
			err = s.put(e.group, e.key, e.value)
		}
		if err != nil {
			return err
		}
	}
	f.entries = f.entries[:0]
	return nil
}

// Join implements exec.ForkedStateWriter.
func (f *forkedState) Join() error {
	err := f.Flush()
	f.joined = true
	return err
}
