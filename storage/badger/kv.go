package badger

import (
	"fmt"

	bdg "github.com/dgraph-io/badger/v4"
	"github.com/eddysql/eddy/storage"
)

// kv is the DB's storage.KV, in the k key space.
type kv struct{ db *DB }

var _ storage.KV = kv{}

func (k kv) Get(key []byte) (val []byte, ok bool, err error) {
	if err := k.db.g.Enter(); err != nil {
		return nil, false, err
	}
	defer k.db.g.Exit()
	err = k.db.bdb.View(func(txn *bdg.Txn) error {
		item, err := txn.Get(kvKey(key))
		if err != nil {
			return err
		}
		val, err = valueCopy(item, nil)
		return err
	})
	if isNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, wrap("reading", key, err)
	}
	return val, true, nil
}

func (k kv) Put(key, val []byte) error {
	return k.update("writing", key, val, func(txn *bdg.Txn) error {
		return txn.Set(kvKey(key), val) // Update returns after Badger has copied val
	})
}

func (k kv) Delete(key []byte) error {
	return k.update("deleting", key, nil, func(txn *bdg.Txn) error { return txn.Delete(kvKey(key)) })
}

// update runs change, a write of key (with val, nil for a delete) that
// verb names in errors, in a Badger transaction.
func (k kv) update(verb string, key, val []byte, change func(txn *bdg.Txn) error) error {
	if err := k.db.g.Enter(); err != nil {
		return err
	}
	defer k.db.g.Exit()
	if err := k.db.checkEntry(1+len(key), val); err != nil {
		return wrap(verb, key, err)
	}
	err := k.db.write(func() error { return k.db.bdb.Update(change) })
	return wrap(verb, key, err)
}

func (k kv) Scan(prefix []byte, fn func(key, val []byte) error) error {
	if err := k.db.g.Enter(); err != nil {
		return err
	}
	defer k.db.g.Exit()
	txn := k.db.bdb.NewTransaction(false)
	defer txn.Discard()
	it := txn.NewIterator(bdg.IteratorOptions{Prefix: kvKey(prefix)})
	defer it.Close()
	var buf []byte
	for it.Rewind(); it.Valid(); it.Next() {
		item := it.Item()
		var err error
		// Copy the value so fn does not run inside Badger's value callback,
		// which may hold a value log file's lock.
		if buf, err = valueCopy(item, buf[:0]); err != nil {
			return wrap("scanning", prefix, err)
		}
		if err := fn(item.Key()[1:], buf); err != nil {
			return err
		}
	}
	return nil
}

// wrap adds the operation and KV key to a Badger error; nil stays nil.
func wrap(op string, key []byte, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("storage: %s key %s: %w", op, shownKey(key), err)
}

// shownKeyLen is how many bytes of a key an error message shows.
const shownKeyLen = 64

// shownKey renders a key for an error message: quoted, and cut after
// shownKeyLen bytes with its length, so a message stays readable however
// long the key.
func shownKey(key []byte) string {
	if len(key) <= shownKeyLen {
		return fmt.Sprintf("%q", key)
	}
	return fmt.Sprintf("%q... (%d bytes)", key[:shownKeyLen], len(key))
}

// maxKeySize is the longest key Badger accepts (maxKeySize in Badger's
// txn.go: keys are stored with 16-bit lengths, less room for a prefix and
// a timestamp).
const maxKeySize = 65000

// checkEntry refuses a key (of keyLen bytes, as Badger stores it) or value
// that Badger would refuse, with storage.ErrTooLarge: Badger's own error
// carries a hex dump of the first kilobyte of the key or value, which is no
// message for a user.
func (db *DB) checkEntry(keyLen int, val []byte) error {
	if keyLen > maxKeySize {
		return fmt.Errorf("%w: a key of %d bytes (at most %d)", storage.ErrTooLarge, keyLen, maxKeySize)
	}
	if int64(len(val)) > db.maxValue {
		return fmt.Errorf("%w: a value of %d bytes (at most %d)", storage.ErrTooLarge, len(val), db.maxValue)
	}
	return nil
}
