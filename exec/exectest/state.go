package exectest

import (
	"context"
	"fmt"
	"slices"

	"github.com/eddysql/eddy/exec"
)

// State is an in-memory checkpoint store for the tests of stateful
// operators: an exec.StateWriter that applies a snapshot's puts and
// deletes to the entries of earlier ones (as the runtime's state table
// does), and an exec.StateReader over them for Restore. It counts the
// puts and deletes since the last Reset, so a test can check that a
// snapshot writes only what changed.
type State struct {
	entries map[int]map[string][]byte // by key group, then key
	Puts    int
	Deletes int
}

var (
	_ exec.StateWriter = (*State)(nil)
	_ exec.StateReader = (*State)(nil)
)

// NewState returns an empty State.
func NewState() *State { return &State{entries: map[int]map[string][]byte{}} }

// Put implements exec.StateWriter.
func (s *State) Put(group int, key, value []byte) error {
	if group < 0 || group >= exec.NumKeyGroups {
		return fmt.Errorf("exectest: key group %d out of range", group)
	}
	g := s.entries[group]
	if g == nil {
		g = map[string][]byte{}
		s.entries[group] = g
	}
	g[string(key)] = slices.Clone(value)
	s.Puts++
	return nil
}

// Delete implements exec.StateWriter.
func (s *State) Delete(group int, key []byte) error {
	if group < 0 || group >= exec.NumKeyGroups {
		return fmt.Errorf("exectest: key group %d out of range", group)
	}
	delete(s.entries[group], string(key))
	s.Deletes++
	return nil
}

// Scan implements exec.StateReader: the entries of groups, in order of
// group, then key.
func (s *State) Scan(ctx context.Context, groups exec.KeyGroupRange, fn func(group int, key, value []byte) error) error {
	for g := groups.Lo; g < groups.Hi; g++ {
		keys := make([]string, 0, len(s.entries[g]))
		for k := range s.entries[g] {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := fn(g, []byte(k), s.entries[g][k]); err != nil {
				return err
			}
		}
	}
	return nil
}

// Len returns the number of entries held.
func (s *State) Len() int {
	n := 0
	for _, g := range s.entries {
		n += len(g)
	}
	return n
}

// Reset zeroes the counts of puts and deletes.
func (s *State) Reset() { s.Puts, s.Deletes = 0, 0 }

// Damage replaces the value of every entry with value: a test of how
// Restore reports damaged state.
func (s *State) Damage(value []byte) {
	for _, g := range s.entries {
		for k := range g {
			g[k] = slices.Clone(value)
		}
	}
}
