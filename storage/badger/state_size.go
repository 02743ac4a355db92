package badger

import (
	"hash/crc32"

	bdg "github.com/dgraph-io/badger/v4"
	"github.com/eddysql/eddy/storage/internal/statecore"
)

// The size of a job's committed state (storage.StateStore.Bytes) is read
// from Badger's items without their values: a value in the LSM tree has
// its exact length, one in the value log (64 KiB and more) its record's
// length less an estimate of the record's header, so a size may be off by
// a few bytes per such value.

// storedSize returns the bytes of item's key within the job (of length
// keyLen) and of its value without the seal.
func storedSize(item *bdg.Item, keyLen int) int64 {
	return int64(keyLen) + max(item.ValueSize()-crc32.Size, 0)
}

// Size implements statecore.Backend: it iterates over the job's keys
// without reading their values.
func (b *stateBackend) Size() (int64, error) {
	var n int64
	prefix := b.keys.dataPrefix()
	err := b.db.bdb.View(func(txn *bdg.Txn) error {
		it := txn.NewIterator(bdg.IteratorOptions{Prefix: prefix, PrefetchValues: false})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			item := it.Item()
			n += storedSize(item, len(item.Key())-len(prefix))
		}
		return nil
	})
	return n, err
}

// SizeOf implements statecore.Backend with a lookup per key.
func (b *stateBackend) SizeOf(muts []statecore.Mutation) (int64, error) {
	var n int64
	err := b.db.bdb.View(func(txn *bdg.Txn) error {
		for _, m := range muts {
			item, err := txn.Get(b.keys.data(m.Key))
			if isNotFound(err) {
				continue
			}
			if err != nil {
				return err
			}
			n += storedSize(item, len(m.Key))
		}
		return nil
	})
	return n, err
}
