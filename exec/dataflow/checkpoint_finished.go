package dataflow

import (
	"encoding/binary"
	"fmt"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/storage"
)

// A job whose input ended for good. When every source of a job is an
// exec.FiniteSource that is finite (a generator with a count of events),
// no row can reach its operators once they all ended, in this process or
// after a restart: the state that only serves to process more input — a
// join's sides, a keyed aggregate's groups, a Top-N's partitions
// (exec.FiniteInputState) — is never read again. The job's final
// checkpoint then leaves it out: it writes the state of the other
// operators (a materialized view's rows, a global aggregate's row), the
// sources' end positions and a mark, in the same epoch. A job that
// resumes from a checkpoint with the mark does not restore the state
// left out: those operators start empty, their sources read nothing, and
// the view answers with the rows it restored. So the final checkpoint of
// such a job costs what its results hold, not what its state holds, and
// so does the restart — as Flink restores nothing for its finished tasks
// (FLIP-147).
//
// The mark belongs to the epoch that wrote it: a store rolled back past
// it (a damaged final checkpoint) restores the checkpoint before, whole,
// and its sources read on from there. The entries the operators wrote in
// earlier checkpoints stay in their tables, unread, until the job's
// state is dropped: deleting them would write a tombstone for each, the
// cost the mark avoids.

// finishedTable names the table of the mark; finishedKey is its one key,
// whose value is the epoch of the final checkpoint that wrote it.
const finishedTable = "job/finished"

var finishedKey = []byte("finished")

// finiteInput reports whether every source of the job is finite for
// good.
func (j *Job) finiteInput() bool {
	for _, sr := range j.stages {
		if sr.spec.Source == nil {
			continue
		}
		for _, t := range sr.tasks {
			fs, ok := t.source.(exec.FiniteSource)
			if !ok || !fs.Finite() {
				return false
			}
		}
	}
	return true
}

// dropsAtEnd reports whether op's state is left out of the final
// checkpoint of a job whose input ended for good.
func dropsAtEnd(op exec.Stateful) bool {
	f, ok := op.(exec.FiniteInputState)
	return ok && !f.StateOutlivesInput()
}

// markFinished writes the mark of a job whose input ended for good, in
// the final checkpoint of epoch.
func (j *Job) markFinished(epoch uint64) error {
	t, err := j.store.Table(finishedTable, storage.TableOptions{})
	if err != nil {
		return fmt.Errorf("opening the mark of a finished input: %w", err)
	}
	return t.Put(finishedKey, binary.AppendUvarint(nil, epoch))
}

// readFinished reports whether the store's last committed checkpoint is
// the final one of a job whose input ended for good.
func readFinished(store storage.StateStore) (bool, error) {
	t, err := store.Table(finishedTable, storage.TableOptions{})
	if err != nil {
		return false, fmt.Errorf("opening the mark of a finished input: %w", err)
	}
	v, ok, err := t.Get(finishedKey)
	if err != nil || !ok {
		return false, err
	}
	if _, n := binary.Uvarint(v); n <= 0 || n != len(v) {
		return false, fmt.Errorf("the mark of a finished input is damaged: %x: %w", v, storage.ErrCorrupt)
	}
	return true, nil
}

// ResumedFinished reports whether the job resumed from the final
// checkpoint of its input ended for good: its operators whose state only
// serves more input started empty.
func (j *Job) ResumedFinished() bool { return j.restore && j.restoredFinished }
