package badger

import (
	"testing"

	bdg "github.com/dgraph-io/badger/v4"
	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/storagetest"
)

func openDir(t testing.TB, dir string) *DB {
	t.Helper()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// corrupt flips a bit in the middle of the chunk 0 of stream's entry seq.
func corrupt(t testing.TB, db storage.DB, stream, seq uint64) {
	b := db.(*DB).bdb
	key := logKey(stream, seq, 0)
	err := b.Update(func(txn *bdg.Txn) error {
		item, err := txn.Get(key)
		if err != nil {
			return err
		}
		v, err := item.ValueCopy(nil)
		if err != nil {
			return err
		}
		v[len(v)/2] ^= 0x40
		return txn.Set(key, v)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSuite runs the shared suite on disk, where persistence is tested.
func TestSuite(t *testing.T) {
	storagetest.Run(t, storagetest.Harness{
		Open: func(t testing.TB) storage.DB { return openDir(t, t.TempDir()) },
		Reopen: func(t testing.TB, db storage.DB) storage.DB {
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			return openDir(t, db.(*DB).Dir())
		},
		Corrupt: corrupt,
	})
}

// TestSuiteInMemory runs the suite on an in-memory Badger, whose value
// size limit differs.
func TestSuiteInMemory(t *testing.T) {
	storagetest.Run(t, storagetest.Harness{
		Open:    func(t testing.TB) storage.DB { return openDir(t, "") },
		Corrupt: corrupt,
	})
}

// BenchmarkLogAppendRead measures the log on disk with synchronous
// writes: every Append is fsynced before it returns.
func BenchmarkLogAppendRead(b *testing.B) {
	db, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	storagetest.BenchLogAppendRead(b, db)
}
