package badger

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	bdg "github.com/dgraph-io/badger/v4"
	"github.com/eddysql/eddy/storage/internal/statecore"
)

// stateBackend holds one job's committed state under s <job> d.
type stateBackend struct {
	db   *DB
	job  string
	keys jobKeys
}

var _ statecore.Backend = (*stateBackend)(nil)

func (b *stateBackend) Get(key []byte) (val []byte, ok bool, err error) {
	err = b.db.bdb.View(func(txn *bdg.Txn) error {
		item, err := txn.Get(b.keys.data(key))
		if err != nil {
			return err
		}
		if val, err = valueCopy(item, nil); err != nil {
			return err
		}
		val, err = b.unsealState(key, val)
		return err
	})
	if isNotFound(err) {
		return nil, false, nil
	}
	return val, err == nil, err
}

func (b *stateBackend) Scan(lo, hi []byte, fn func(k, v []byte) error) error {
	prefix := b.keys.dataPrefix()
	txn := b.db.bdb.NewTransaction(false)
	defer txn.Discard()
	it := txn.NewIterator(bdg.IteratorOptions{Prefix: prefix})
	defer it.Close()
	var buf []byte
	for it.Seek(b.keys.data(lo)); it.Valid(); it.Next() {
		item := it.Item()
		k := item.Key()[len(prefix):]
		if hi != nil && bytes.Compare(k, hi) >= 0 {
			break
		}
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

func (b *stateBackend) Epoch() (uint64, error) {
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

func (b *stateBackend) Close() error {
	b.db.jobs.Release(b.job)
	return nil
}

// Commit writes muts and the epoch marker in one transaction when they
// fit, and through an intent otherwise (see commitLarge).
func (b *stateBackend) Commit(ctx context.Context, muts []statecore.Mutation, epoch uint64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return b.db.write(func() error { return b.commit(muts, epoch) })
}

func (b *stateBackend) commit(muts []statecore.Mutation, epoch uint64) error {
	for _, m := range muts {
		if err := b.db.checkEntry(b.keys.dataLen(m.Key), m.Val); err != nil {
			return fmt.Errorf("storage: state of job %q, key %s: %w", b.job, shownKey(m.Key), err)
		}
	}
	if b.tooLarge(muts) {
		// Known to be too large for one transaction: do not build one
		// only to discard it.
		return b.commitLarge(muts, epoch)
	}
	txn := b.db.bdb.NewTransaction(true)
	defer txn.Discard()
	err := b.stage(txn, muts, epoch)
	if err == nil {
		return txn.Commit()
	}
	if !errors.Is(err, bdg.ErrTxnTooBig) {
		return err
	}
	txn.Discard()
	return b.commitLarge(muts, epoch)
}

// tooLarge reports whether muts certainly exceed what one Badger
// transaction takes (its count or its size, each entry counted at least
// its key and value); a commit it does not call too large may still be.
func (b *stateBackend) tooLarge(muts []statecore.Mutation) bool {
	if int64(len(muts))+1 >= b.db.bdb.MaxBatchCount() {
		return true
	}
	size, limit := int64(0), b.db.bdb.MaxBatchSize()
	for _, m := range muts {
		if size += int64(len(m.Key) + len(m.Val)); size >= limit {
			return true
		}
	}
	return false
}

// stage adds muts and the epoch marker to txn.
func (b *stateBackend) stage(txn *bdg.Txn, muts []statecore.Mutation, epoch uint64) error {
	if err := b.writeMuts(txn, muts); err != nil {
		return err
	}
	return txn.Set(b.keys.epoch(), sealState(nil, binary.BigEndian.AppendUint64(nil, epoch)))
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
	if err != nil || len(keys) == 0 {
		return err
	}
	wb := b.db.bdb.NewWriteBatch()
	defer wb.Cancel()
	for _, k := range keys {
		if err := wb.Delete(k); err != nil {
			return err
		}
	}
	return wb.Flush()
}
