package damagetest

import (
	"fmt"

	bdg "github.com/dgraph-io/badger/v4"

	"github.com/eddysql/eddy/storage"
)

// DamageState rewrites the stored blocks of job's checkpoint runs in the
// closed data directory dir, as damage that leaves the files sound would
// (a bit flipped in memory before a write, a block cut short): damage is
// called with each block's key within the job and its stored bytes (the
// entries followed by their checksum, see storage/internal/runs), and a
// non-nil result replaces the stored block. It returns how many blocks it
// replaced. The layout mirrors storage/badger's layout.go: s, the job's
// name as storage.AppendString encodes it, r, the run's id (8 bytes), b
// and the block's number (4 bytes).
func DamageState(dir, job string, damage func(key, stored []byte) []byte) (int, error) {
	opts := bdg.DefaultOptions(dir).WithValueThreshold(64 << 10).WithLogger(nil).WithSyncWrites(true)
	db, err := bdg.Open(opts)
	if err != nil {
		return 0, fmt.Errorf("damagetest: opening %s: %w", dir, err)
	}
	prefix := append(storage.AppendString([]byte{'s'}, job), 'r')
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
			if len(k) != len(prefix)+8+1+4 || k[len(prefix)+8] != 'b' {
				continue // a run's index
			}
			if nv := damage(k[len(prefix)-1:], v); nv != nil {
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
