package badger

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	bdg "github.com/dgraph-io/badger/v4"
)

// DropState implements storage.DB. A job with few keys is dropped in one
// transaction. Otherwise the drop is marked first, in its own
// transaction: from then on the job's state counts as dropped, and State
// finishes an interrupted drop before it opens the store. The keys go with
// one DropPrefix, which is not atomic (a crash may leave some of them), and
// the mark last. So a crash leaves the old state (before the mark) or, once
// reopened, none.
func (db *DB) DropState(job string) error {
	return db.jobs.Drop(job, db.g, func() error {
		if err := db.dropState(newJobKeys(job)); err != nil {
			return err
		}
		return db.dropRunFiles(job)
	})
}

// dropRunFiles deletes the run files of job, whose state is dropped. A
// crash before it leaves them to the next Open (sweepRunDirs) or the
// job's next State (deleteUnnamedRuns).
func (db *DB) dropRunFiles(job string) error {
	if db.dir == "" {
		return nil
	}
	if err := os.RemoveAll(jobRunDir(db.dir, job)); err != nil {
		return fmt.Errorf("storage: deleting the run files of job %q: %w", job, err)
	}
	return nil
}

// sweepRunDirs deletes the run directories of jobs that have no state
// (a manifest, current or previous): what a crash during DropState left.
// It runs when the database opens, before any job's state is.
func (db *DB) sweepRunDirs() error {
	root := filepath.Join(db.dir, runsDir)
	ents, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("storage: reading %s: %w", root, err)
	}
	for _, e := range ents {
		dir := filepath.Join(root, e.Name())
		name, err := os.ReadFile(filepath.Join(dir, jobDirFile))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("storage: reading %s: %w", dir, err)
		}
		if err == nil && jobRunDir(db.dir, string(name)) == dir {
			keys := newJobKeys(string(name))
			has := false
			err := db.bdb.View(func(txn *bdg.Txn) error {
				for _, k := range [][]byte{keys.manifest(), keys.previous()} {
					_, err := txn.Get(k)
					if err == nil {
						has = true
					} else if !isNotFound(err) {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return fmt.Errorf("storage: reading the state of job %q: %w", name, err)
			}
			if has {
				continue
			}
		}
		// No job, or a job without state: nothing names its runs.
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("storage: deleting %s: %w", dir, err)
		}
	}
	return nil
}

// smallStateDrop is the most keys of a job's state DropState deletes in
// one transaction (a variable so that tests can take the marked path
// without writing gigabytes of runs).
var smallStateDrop = smallDrop

func (db *DB) dropState(keys jobKeys) error {
	done, err := db.dropSmall(keys.prefix, smallStateDrop)
	if done || err != nil {
		return err
	}
	err = db.write(func() error {
		return db.bdb.Update(func(txn *bdg.Txn) error { return txn.Set(keys.dropMark(), nil) })
	})
	if err != nil {
		return err
	}
	if crashAt("drop-marked") {
		return errCrashed
	}
	return db.finishDrop(keys)
}

// finishDrop deletes the job's state with DropPrefix, then its drop mark.
func (db *DB) finishDrop(keys jobKeys) error {
	db.dropMu.Lock()
	err := db.bdb.DropPrefix(keys.stateParts()...)
	db.dropMu.Unlock()
	if err != nil {
		return err
	}
	if crashAt("drop-dropped") {
		return errCrashed
	}
	return db.write(func() error {
		return db.bdb.Update(func(txn *bdg.Txn) error { return txn.Delete(keys.dropMark()) })
	})
}

// recoverDrop finishes a drop of the job's state that a crash interrupted
// after marking it.
func (db *DB) recoverDrop(keys jobKeys) error {
	err := db.bdb.View(func(txn *bdg.Txn) error {
		_, err := txn.Get(keys.dropMark())
		return err
	})
	if isNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	return db.finishDrop(keys)
}
