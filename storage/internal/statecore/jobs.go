package statecore

import (
	"fmt"
	"sync"

	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/internal/guard"
)

// use is what a job's state is busy with.
type use uint8

const (
	useOpen     use = iota + 1 // its store is open
	useDropping                // DropState is deleting it
)

// Jobs are the jobs whose state store a DB has open or is dropping: a
// job's store is open at most once at a time, and never while it is being
// dropped. The zero value has none busy.
type Jobs struct {
	mu   sync.Mutex
	busy map[string]use
}

// busyErr returns the error for using job, which is busy with u.
func busyErr(job string, u use) error {
	if u == useDropping {
		return fmt.Errorf("%w: job %q (its state is being dropped)", storage.ErrAlreadyOpen, job)
	}
	return fmt.Errorf("%w: job %q", storage.ErrAlreadyOpen, job)
}

// Open returns the store of job over the backend newBackend returns,
// guarded by g, and records it open until Release; it fails with
// storage.ErrAlreadyOpen while the job's store is open or being dropped.
// newBackend runs with j locked, so that a job's backend is never made
// twice at once.
func (j *Jobs) Open(job string, g *guard.Guard, newBackend func() (Backend, error)) (*Store, error) {
	if err := g.Enter(); err != nil {
		return nil, err
	}
	defer g.Exit()
	j.mu.Lock()
	defer j.mu.Unlock()
	if u := j.busy[job]; u != 0 {
		return nil, busyErr(job, u)
	}
	b, err := newBackend()
	if err != nil {
		return nil, err
	}
	s, err := New(job, b, g)
	if err != nil {
		return nil, err
	}
	if j.busy == nil {
		j.busy = map[string]use{}
	}
	j.busy[job] = useOpen
	return s, nil
}

// Drop runs drop, which deletes job's state, guarded by g. It fails with
// storage.ErrAlreadyOpen while the job's store is open or being dropped,
// and keeps the job from being opened until drop returns. j is not locked
// while drop runs, so a long drop does not hold up other jobs.
func (j *Jobs) Drop(job string, g *guard.Guard, drop func() error) error {
	if err := g.Enter(); err != nil {
		return err
	}
	defer g.Exit()
	j.mu.Lock()
	switch j.busy[job] {
	case useOpen:
		j.mu.Unlock()
		return fmt.Errorf("storage: cannot drop the state of job %q while its store is open (close it first): %w",
			job, storage.ErrAlreadyOpen)
	case useDropping:
		j.mu.Unlock()
		return busyErr(job, useDropping)
	}
	if j.busy == nil {
		j.busy = map[string]use{}
	}
	j.busy[job] = useDropping
	j.mu.Unlock()
	defer j.Release(job)
	if err := drop(); err != nil {
		return fmt.Errorf("storage: dropping state of job %q: %w", job, err)
	}
	return nil
}

// Release records that job's store is closed (its backend's Close calls
// it), or its drop is over, so that it can be opened again.
func (j *Jobs) Release(job string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	delete(j.busy, job)
}
