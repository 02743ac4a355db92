package badger

import (
	"context"
	"errors"
	"strings"
	"testing"

	bdg "github.com/dgraph-io/badger/v4"

	"github.com/eddysql/eddy/storage"
)

// rawState returns the stored bytes of job's state key (table and key, as
// statecore passes it).
func rawState(t *testing.T, db *DB, job string, key []byte) []byte {
	t.Helper()
	var v []byte
	err := db.bdb.View(func(txn *bdg.Txn) error {
		item, err := txn.Get(newJobKeys(job).data(key))
		if err != nil {
			return err
		}
		v, err = item.ValueCopy(nil)
		return err
	})
	must(t, err)
	return v
}

// TestDamagedStateValue checks that a state value damaged in the
// database, or found under another key, is an error naming the job and
// key on Get and on Scan, and that a damaged epoch marker is one too.
func TestDamagedStateValue(t *testing.T) {
	ctx := context.Background()
	db := openDir(t, t.TempDir())
	defer db.Close()
	s, err := db.State("job")
	must(t, err)
	tbl, err := s.Table("t", storage.TableOptions{})
	must(t, err)
	must(t, tbl.Put([]byte("a"), []byte("apple")))
	must(t, tbl.Put([]byte("b"), []byte("banana")))
	must(t, s.Commit(ctx, 1))
	must(t, s.Close())

	var keyA, keyB []byte
	err = db.bdb.View(func(txn *bdg.Txn) error {
		it := txn.NewIterator(bdg.IteratorOptions{Prefix: newJobKeys("job").dataPrefix()})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			k := it.Item().KeyCopy(nil)[len(newJobKeys("job").dataPrefix()):]
			if keyA == nil {
				keyA = k
			} else {
				keyB = k
			}
		}
		return nil
	})
	must(t, err)
	a, b := rawState(t, db, "job", keyA), rawState(t, db, "job", keyB)
	flipped := append([]byte(nil), a...)
	flipped[1] ^= 1
	for name, damage := range map[string]func(){
		"a flipped byte":        func() { setRaw(t, db, newJobKeys("job").data(keyA), flipped) },
		"a value under another": func() { setRaw(t, db, newJobKeys("job").data(keyA), b) },
	} {
		damage()
		s, err := db.State("job")
		must(t, err)
		tbl, err := s.Table("t", storage.TableOptions{})
		must(t, err)
		_, _, getErr := tbl.Get([]byte("a"))
		scanErr := tbl.Scan(nil, func(k, v []byte) error { return nil })
		for op, err := range map[string]error{"Get": getErr, "Scan": scanErr} {
			if !errors.Is(err, storage.ErrCorrupt) || !strings.Contains(err.Error(), `the operator state of job "job"`) {
				t.Errorf("%s: %s = %v", name, op, err)
			}
		}
		must(t, s.Close())
	}

	setRaw(t, db, newJobKeys("job").epoch(), []byte{0, 0, 0, 0, 0, 0, 0, 1, 9, 9, 9, 9})
	if _, err := db.State("job"); !errors.Is(err, storage.ErrCorrupt) || !strings.Contains(err.Error(), `the last committed epoch of job "job"`) {
		t.Errorf("State with a damaged epoch marker: %v", err)
	}
}
