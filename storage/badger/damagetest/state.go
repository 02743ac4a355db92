package damagetest

import (
	"fmt"

	bdg "github.com/dgraph-io/badger/v4"

	"github.com/eddysql/eddy/storage"
)

// DamageState rewrites the committed state entries of job in the closed
// data directory dir, as damage that leaves the files sound would (a bit
// flipped in memory before a write, a value cut short): damage is called
// with each entry's key within the job (the table's encoded name, then
// the key) and its stored value (the value followed by its checksum, see
// storage/badger's state_seal.go), and a non-nil result replaces the
// stored value. It returns how many entries it replaced. The layout of
// state keys mirrors storage/badger's layout.go: s, the job's name as
// storage.AppendString encodes it, d, then the key.
func DamageState(dir, job string, damage func(key, stored []byte) []byte) (int, error) {
	opts := bdg.DefaultOptions(dir).WithValueThreshold(64 << 10).WithLogger(nil).WithSyncWrites(true)
	db, err := bdg.Open(opts)
	if err != nil {
		return 0, fmt.Errorf("damagetest: opening %s: %w", dir, err)
	}
	prefix := append(storage.AppendString([]byte{'s'}, job), 'd')
	type entry struct{ key, val []byte }
	var damaged []entry
	err = db.View(func(txn *bdg.Txn) error {
		it := txn.NewIterator(bdg.IteratorOptions{Prefix: prefix, PrefetchValues: true})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			k := it.Item().KeyCopy(nil)
			if nv := damage(k[len(prefix):], v); nv != nil {
				damaged = append(damaged, entry{k, nv})
			}
		}
		return nil
	})
	if err == nil {
		err = db.Update(func(txn *bdg.Txn) error {
			for _, e := range damaged {
				if err := txn.Set(e.key, e.val); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	return len(damaged), err
}
