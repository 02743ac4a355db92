package dataflow

import (
	"context"
	"errors"
	"fmt"

	"github.com/eddysql/eddy/storage"
)

// RestoreError is the failure of a job started with Restore to restore
// its checkpoint: an operator's state that does not read back, or a source
// that cannot resume from its recorded position. The job fails with it
// before any input.
type RestoreError struct {
	// Epoch is the checkpoint the job restored.
	Epoch uint64
	// Damaged says the checkpoint itself is unreadable: a state entry
	// that fails the store's checksum or does not decode, or a damaged
	// source position. Otherwise the checkpoint reads back but cannot be
	// resumed (a source that cannot seek there).
	Damaged bool
	Err     error
}

func (e *RestoreError) Error() string {
	return fmt.Sprintf("restoring checkpoint %d: %v", e.Epoch, e.Err)
}

// Unwrap returns the underlying error.
func (e *RestoreError) Unwrap() error { return e.Err }

// restoreFailed wraps err, a failure to restore the job's checkpoint, in
// a *RestoreError; the context's own end is returned as it is. Every
// failure of an operator's Restore is damage: its only input is the
// checkpoint's entries.
func (j *Job) restoreFailed(ctx context.Context, err error, operator bool) error {
	if ctx.Err() != nil {
		return err
	}
	damaged := operator || errors.Is(err, storage.ErrCorrupt) || errors.Is(err, errBadPosition)
	return &RestoreError{Epoch: j.restoredEpoch, Damaged: damaged, Err: err}
}
