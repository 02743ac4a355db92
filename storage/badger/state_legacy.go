package badger

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	bdg "github.com/dgraph-io/badger/v4"
	"github.com/eddysql/eddy/storage/internal/statecore"
)

// The layout before runs: each committed entry under s <job> d <key>, its
// value sealed (state_seal.go), the epoch under s <job> e, and a commit
// too large for one transaction staged as an intent under s <job> i
// (intent.go). A job's state in this layout is read once, when its store
// is opened, and converted to a run (convertLegacy).

// legacyScan calls fn for the job's entries in key order.
func (b *stateBackend) legacyScan(fn func(k, v []byte) error) error {
	prefix := b.keys.dataPrefix()
	txn := b.db.bdb.NewTransaction(false)
	defer txn.Discard()
	it := txn.NewIterator(bdg.IteratorOptions{Prefix: prefix})
	defer it.Close()
	var buf []byte
	for it.Rewind(); it.Valid(); it.Next() {
		item := it.Item()
		k := item.Key()[len(prefix):]
		// Copy the value so fn does not run inside Badger's value callback,
		// which may hold a value log file's lock.
		var err error
		if buf, err = valueCopy(item, buf[:0]); err != nil {
			return err
		}
		v, err := b.unsealState(k, buf)
		if err != nil {
			return err
		}
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return nil
}

// legacyEpoch returns the epoch of the job's state, 0 if it has none.
func (b *stateBackend) legacyEpoch() (uint64, error) {
	var epoch uint64
	err := b.db.bdb.View(func(txn *bdg.Txn) error {
		item, err := txn.Get(b.keys.epoch())
		if err != nil {
			return err
		}
		return value(item, func(stored []byte) error {
			v, err := b.unsealState(nil, stored)
			if err != nil {
				return err
			}
			if len(v) != 8 {
				return b.corrupt(nil, fmt.Errorf("the marker is %d bytes", len(v)))
			}
			epoch = binary.BigEndian.Uint64(v)
			return nil
		})
	})
	if isNotFound(err) {
		return 0, nil
	}
	return epoch, err
}

// convertLegacy converts the job's state from the layout before runs, if
// it has any, and returns its manifest: an interrupted large commit is
// finished, the entries become run 1, the manifest naming it is written,
// and then the old keys are deleted. A crash before the manifest is
// written leaves the old layout (converted again at the next open); one
// after leaves old keys that the next open deletes.
func (b *stateBackend) convertLegacy() (*manifest, error) {
	fresh := &manifest{nextID: 1}
	if !b.hasLegacy() {
		return fresh, nil
	}
	if err := b.db.write(b.recoverIntent); err != nil {
		return nil, err
	}
	epoch, err := b.legacyEpoch()
	if err != nil {
		return nil, err
	}
	m := fresh
	if epoch > 0 {
		m = &manifest{epoch: epoch, nextID: 2}
		err := b.db.write(func() error {
			meta, err := b.writeRun(1, func(add func(k, v []byte, del bool) error) error {
				return b.legacyScan(func(k, v []byte) error { return add(k, v, false) })
			})
			if err != nil {
				return err
			}
			if meta.entries > 0 {
				m.runs = []runMeta{meta}
			}
			return b.db.bdb.Update(func(txn *bdg.Txn) error { return txn.Set(b.keys.manifest(), m.encode()) })
		})
		if err != nil {
			return nil, err
		}
	}
	return m, b.dropLegacy()
}

// hasLegacy reports whether any key of the layout before runs is left.
func (b *stateBackend) hasLegacy() bool {
	found := false
	b.db.bdb.View(func(txn *bdg.Txn) error {
		for _, p := range [][]byte{b.keys.dataPrefix(), b.keys.epoch(), b.keys.intentPrefix()} {
			it := txn.NewIterator(bdg.IteratorOptions{Prefix: p, PrefetchValues: false})
			it.Rewind()
			found = found || it.Valid()
			it.Close()
		}
		return nil
	})
	return found
}

// dropLegacy deletes the keys of the layout before runs.
func (b *stateBackend) dropLegacy() error {
	b.db.dropMu.Lock()
	defer b.db.dropMu.Unlock()
	return b.db.bdb.DropPrefix(b.keys.dataPrefix(), b.keys.epoch(), b.keys.intentPrefix())
}

// writer is what a commit writes mutations to: a Badger transaction, or a
// write batch.
type writer interface {
	Set(key, val []byte) error
	Delete(key []byte) error
}

// writeMuts writes muts, their values sealed, to w.
func (b *stateBackend) writeMuts(w writer, muts []statecore.Mutation) error {
	for _, m := range muts {
		var err error
		if m.Delete {
			err = w.Delete(b.keys.data(m.Key))
		} else {
			err = w.Set(b.keys.data(m.Key), sealState(m.Key, m.Val))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// crashHook, when set by a test, is called at each step of a large commit
// and stops it (as a crash would) when it returns true.
var crashHook func(step string) bool

func crashAt(step string) bool { return crashHook != nil && crashHook(step) }

var errCrashed = errors.New("storage: test crash")

// commitLarge commits muts too large for one transaction: it writes them
// as an intent blob (the commit point is the transaction that writes the
// intent's chunk 0), applies them, and then sets the epoch marker and
// deletes the intent together. recoverIntent finishes the job after a
// crash at any step.
func (b *stateBackend) commitLarge(muts []statecore.Mutation, epoch uint64) error {
	if err := b.db.putBlob(b.keys.intent, encodeIntent(epoch, muts)); err != nil {
		return err
	}
	if crashAt("intent") {
		return errCrashed
	}
	return b.apply(muts, epoch)
}

// apply writes muts with a WriteBatch, then sets the epoch marker and
// deletes the intent's chunk 0 in one transaction, then the other chunks.
func (b *stateBackend) apply(muts []statecore.Mutation, epoch uint64) error {
	wb := b.db.bdb.NewWriteBatch()
	defer wb.Cancel()
	if err := b.writeMuts(wb, muts); err != nil {
		return err
	}
	if err := wb.Flush(); err != nil {
		return err
	}
	if crashAt("applied") {
		return errCrashed
	}
	err := b.db.bdb.Update(func(txn *bdg.Txn) error {
		if err := txn.Set(b.keys.epoch(), sealState(nil, binary.BigEndian.AppendUint64(nil, epoch))); err != nil {
			return err
		}
		return txn.Delete(b.keys.intent(0))
	})
	if err != nil {
		return err
	}
	if crashAt("marked") {
		return errCrashed
	}
	return b.deleteIntentChunks()
}

// recoverIntent finishes a large commit whose intent was committed, and
// deletes the chunks of one that was not.
func (b *stateBackend) recoverIntent() error {
	var epoch uint64
	var muts []statecore.Mutation
	found := false
	err := b.db.bdb.View(func(txn *bdg.Txn) error {
		it := txn.NewIterator(bdg.IteratorOptions{Prefix: b.keys.intentPrefix()})
		defer it.Close()
		it.Seek(b.keys.intent(0))
		if !it.Valid() || !bytes.Equal(it.Item().Key(), b.keys.intent(0)) {
			return nil
		}
		found = true
		var r blobReader
		return r.read(it, b.keys.intentPrefix(), func(data []byte) error {
			var err error
			epoch, muts, err = decodeIntent(bytes.Clone(data))
			return err
		})
	})
	if err != nil {
		return fmt.Errorf("reading the intent of an interrupted commit: %w", err)
	}
	if found {
		return b.apply(muts, epoch)
	}
	return b.deleteIntentChunks()
}

// deleteIntentChunks deletes every key under the job's intent prefix.
func (b *stateBackend) deleteIntentChunks() error {
	var keys [][]byte
	err := b.db.bdb.View(func(txn *bdg.Txn) error {
		it := txn.NewIterator(bdg.IteratorOptions{Prefix: b.keys.intentPrefix(), PrefetchValues: false})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			keys = append(keys, it.Item().KeyCopy(nil))
		}
		return nil
	})
	if err != nil {
		return err
	}
	return b.deleteKeys(keys)
}
