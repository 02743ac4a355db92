package dataflow

import (
	"context"
	"errors"
	"fmt"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/internal/kvlog"
	"github.com/eddysql/eddy/storage"
)

// The final checkpoint. A job whose every input ends (bounded sources)
// stops taking checkpoints once its tasks have returned, so without one
// more a restart would resume from the last periodic checkpoint and read
// the tail of its inputs again (or, with none, all of them). So each task
// of a checkpointing job snapshots its stateful operators once more after
// its end of input, into a buffer of its own — the store may still be
// committing a periodic checkpoint whose barrier the task has passed,
// which must not see state from after it — and once every task has
// returned and no checkpoint is in flight, the job writes the buffers and
// the sources' end positions into the store and commits the next epoch.
//
// Only a job with no exec.Committer takes it: a committer (a two-phase
// sink, a stream writer) publishes at its end of input what it has, and a
// checkpoint after that would stage its output again.

// finalCheckpoints reports whether the job takes a final checkpoint.
func (j *Job) finalCheckpoints() bool {
	if j.store == nil || j.resumeErr != nil || !j.periodic {
		return false
	}
	for _, sr := range j.stages {
		for _, t := range sr.tasks {
			for _, op := range t.chain.ops {
				if _, ok := op.(exec.Committer); ok {
					return false
				}
			}
		}
	}
	return true
}

// errFinishing is what a checkpoint requested of a job whose input ended
// returns under the lock of checkpoints: the caller then waits for the
// final checkpoint (awaitFinal) instead.
var errFinishing = errors.New("dataflow: the job's input ended; its final checkpoint follows")

// awaitFinal waits until the job is done and returns the epoch and the
// outcome of its final checkpoint.
func (j *Job) awaitFinal(ctx context.Context) (uint64, error) {
	select {
	case <-j.done:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	j.ckptMu.Lock()
	defer j.ckptMu.Unlock()
	if !j.finalTaken {
		return 0, fmt.Errorf("dataflow: job %s ended before its final checkpoint", j.name)
	}
	return j.finalEpoch, j.finalErr
}

// finalWrites are the writes a final snapshot makes to one table, kept in
// a log that allocates nothing per write.
type finalWrites struct {
	to  storage.StateTable
	log kvlog.Log
}

// finalTable is the storage.StateTable a final snapshot writes to: it
// appends to a finalWrites.
type finalTable struct{ w *finalWrites }

var errFinalRead = errors.New("dataflow: a final snapshot only writes")

// errFinalTooLarge is returned for a key or value the log cannot hold.
var errFinalTooLarge = fmt.Errorf("dataflow: a final snapshot's key or value: %w", storage.ErrTooLarge)

func (f finalTable) Put(k, v []byte) error {
	if len(k) > kvlog.MaxLen || len(v) > kvlog.MaxLen {
		return errFinalTooLarge
	}
	f.w.log.Append(nil, k, v, false)
	return nil
}

func (f finalTable) WriteLog(l *kvlog.Log) error {
	for i := range int32(l.Len()) {
		v, ok := l.Val(i)
		f.w.log.Append(nil, l.Key(i), v, !ok)
	}
	return nil
}

func (f finalTable) Delete(k []byte) error {
	if len(k) > kvlog.MaxLen {
		return errFinalTooLarge
	}
	f.w.log.Append(nil, k, nil, true)
	return nil
}

func (f finalTable) Get([]byte) ([]byte, bool, error)           { return nil, false, errFinalRead }
func (f finalTable) Scan([]byte, func(k, v []byte) error) error { return errFinalRead }
func (f finalTable) DeleteRange(lo, hi []byte) error            { return errFinalRead }
func (f finalTable) ScanRange(lo, hi []byte, fn func(k, v []byte) error) error {
	return errFinalRead
}

// apply writes the buffered writes into their table and returns the
// bytes of their keys and values. The table copies them: the log's memory
// goes back to kvlog's pool, for the table's own log to copy the next
// task's writes into.
func (f *finalWrites) apply() (int64, error) {
	n := int64(f.log.Size())
	err := f.to.WriteLog(&f.log)
	f.log.Release()
	return n, err
}

// snapshotFinal takes the task's final snapshot, after its end of input.
func (t *task) snapshotFinal(ctx context.Context) error {
	if !t.job.final || t.state == nil {
		return nil
	}
	s := t.state
	t.final = make([]finalWrites, 0, len(s.ops)) // never moves: w points into it
	for i, op := range s.ops {
		if op == nil {
			continue
		}
		t.final = append(t.final, finalWrites{to: s.tables[i]})
		w := &stateWriter{t: finalTable{w: &t.final[len(t.final)-1]}}
		err := op.Snapshot(ctx, 0, w)
		if ferr := w.flush(); err == nil {
			err = ferr
		}
		if err != nil {
			return fmt.Errorf("snapshotting operator %d at the end of input: %w", i, err)
		}
	}
	return nil
}

// finalCheckpoint commits the job's final checkpoint once every task has
// returned, the job finished and its coordinator stopped.
func (j *Job) finalCheckpoint(ctx context.Context) error {
	j.ckptRun.Lock()
	defer j.ckptRun.Unlock()
	j.ckptMu.Lock()
	epoch := j.lastEpoch + 1
	j.ckptMu.Unlock()
	err := j.takeCheckpoint(ctx, epoch, func() error {
		for _, sr := range j.stages {
			for _, t := range sr.tasks {
				for i := range t.final {
					n, err := t.final[i].apply()
					j.stateWritten.Add(n)
					if err != nil {
						return err
					}
				}
				t.final = nil
				if t.srcPos != nil {
					// Every source ended: its end, unless a checkpoint
					// wrote it already.
					t.mu.Lock()
					end := t.endPos
					t.endPos = endWritten
					t.mu.Unlock()
					if len(end) > 0 {
						if err := t.srcPos.table.Put(t.srcPos.key, end); err != nil {
							return err
						}
					}
				}
			}
		}
		return j.store.Commit(ctx, epoch)
	})
	j.ckptMu.Lock()
	j.finalTaken, j.finalEpoch, j.finalErr = true, epoch, err
	j.ckptMu.Unlock()
	return err
}

// TakesFinalCheckpoint reports whether the job commits a final checkpoint
// when its input ends; CheckpointNext on such a job that has finished
// waits for it.
func (j *Job) TakesFinalCheckpoint() bool { return j.final }
