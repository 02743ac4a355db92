package badger

import (
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
	return db.jobs.Drop(job, db.g, func() error { return db.dropState(newJobKeys(job)) })
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
