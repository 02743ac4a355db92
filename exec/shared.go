package exec

import "sync"

// Shared holds values that the instances of one stage of a job share. A
// source read in parallel splits keeps there what its splits must agree
// on or count together: the file source keeps the file size its splits
// divide (so that every split cuts the same bounds, even if the file grows
// while they open) and its budget of bad-row warnings (so that a scan
// reports the same number of them at any parallelism). The runtime gives
// every instance of a stage the same Shared; the zero value is ready to
// use and safe for concurrent use.
type Shared struct {
	mu     sync.Mutex
	values map[any]any
}

// Value returns the value stored under key, first storing the one
// newValue returns if there is none. key must be comparable; a package
// keys its values with a type of its own, so that packages cannot
// collide. newValue is called at most once per key, under a lock: it
// must not call Value.
func (s *Shared) Value(key any, newValue func() any) any {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.values[key]; ok {
		return v
	}
	if s.values == nil {
		s.values = make(map[any]any)
	}
	v := newValue()
	s.values[key] = v
	return v
}
