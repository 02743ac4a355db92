package statecore

import (
	"fmt"
	"sync"

	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/internal/guard"
)

// Jobs are the jobs whose state store a DB has open: a job's store is
// open at most once at a time. The zero value has none open.
type Jobs struct {
	mu   sync.Mutex
	open map[string]bool
}

// Open returns the store of job over the backend newBackend returns,
// guarded by g, and records it open until Release; it fails with
// storage.ErrAlreadyOpen while the job's store is open. newBackend runs
// with j locked, so that a job's backend is never made twice at once.
func (j *Jobs) Open(job string, g *guard.Guard, newBackend func() (Backend, error)) (*Store, error) {
	if err := g.Enter(); err != nil {
		return nil, err
	}
	defer g.Exit()
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.open[job] {
		return nil, fmt.Errorf("%w: job %q", storage.ErrAlreadyOpen, job)
	}
	b, err := newBackend()
	if err != nil {
		return nil, err
	}
	s, err := New(job, b, g)
	if err != nil {
		return nil, err
	}
	if j.open == nil {
		j.open = map[string]bool{}
	}
	j.open[job] = true
	return s, nil
}

// Release records that job's store is closed (its backend's Close calls
// it), so that it can be opened again.
func (j *Jobs) Release(job string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	delete(j.open, job)
}
