package badger

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"

	bdg "github.com/dgraph-io/badger/v4"
	"github.com/eddysql/eddy/storage"
)

// largeCommit writes enough state to overflow one Badger transaction, so
// Commit takes the intent path, and returns the keys written.
func largeCommit(t *testing.T, db *DB, epoch uint64) ([][]byte, error) {
	t.Helper()
	s, err := db.State("job")
	if err != nil {
		t.Fatal(err)
	}
	tbl, _ := s.Table("big", storage.TableOptions{})
	val := bytes.Repeat([]byte{'x'}, 16<<10)
	var keys [][]byte
	for i := range 60 { // 960 KiB, beyond the 614 KiB a transaction holds with 4 MiB memtables
		k := fmt.Appendf(nil, "key%04d", i)
		keys = append(keys, k)
		if err := tbl.Put(k, val); err != nil {
			t.Fatal(err)
		}
	}
	if err := tbl.Delete([]byte("base")); err != nil {
		t.Fatal(err)
	}
	return keys, s.Commit(context.Background(), epoch)
}

// intentKeys counts the keys under the job's intent prefix.
func intentKeys(t *testing.T, db *DB) int {
	t.Helper()
	n := 0
	prefix := newJobKeys("job").intentPrefix()
	db.bdb.View(func(txn *bdg.Txn) error {
		it := txn.NewIterator(bdg.IteratorOptions{Prefix: prefix})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			n++
		}
		return nil
	})
	return n
}

// openSmall opens dir with 4 MiB memtables, so that a transaction holds
// at most 614 KiB.
func openSmall(t *testing.T, dir string) *DB {
	t.Helper()
	db, err := Open(dir, Options{memTableSize: 4 << 20})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func TestLargeCommit(t *testing.T) {
	steps := []string{"", "intent", "applied", "marked"}
	for _, crash := range steps {
		t.Run("crash="+crash, func(t *testing.T) {
			dir := t.TempDir()
			db := openSmall(t, dir)
			s, _ := db.State("job")
			tbl, _ := s.Table("big", storage.TableOptions{})
			tbl.Put([]byte("base"), []byte("1"))
			if err := s.Commit(context.Background(), 1); err != nil {
				t.Fatal(err)
			}
			s.Close()

			var seen []string
			crashHook = func(step string) bool {
				seen = append(seen, step)
				return step == crash
			}
			keys, err := largeCommit(t, db, 2)
			crashHook = nil
			if !slices.Contains(seen, "intent") {
				t.Fatalf("the commit did not take the intent path (steps %v)", seen)
			}
			if (crash == "") != (err == nil) {
				t.Fatalf("Commit with a crash at %q = %v", crash, err)
			}
			db.Close()

			db = openSmall(t, dir)
			defer db.Close()
			s, err = db.State("job")
			if err != nil {
				t.Fatal(err)
			}
			if epoch, _ := s.Recover(context.Background()); epoch != 2 {
				t.Fatalf("epoch after recovery = %d, want 2", epoch)
			}
			tbl, _ = s.Table("big", storage.TableOptions{})
			n := 0
			tbl.Scan(nil, func(k, v []byte) error {
				if !bytes.Equal(k, keys[n]) || len(v) != 16<<10 {
					t.Fatalf("key %d is %q (%d bytes)", n, k, len(v))
				}
				n++
				return nil
			})
			if n != len(keys) {
				t.Fatalf("%d keys after recovery, want %d", n, len(keys))
			}
			if n := intentKeys(t, db); n != 0 {
				t.Fatalf("%d intent keys left", n)
			}
		})
	}
}

// TestUnfinishedIntent checks that intent chunks without a chunk 0 (a crash
// while writing the intent) are discarded: the commit never happened.
func TestUnfinishedIntent(t *testing.T) {
	dir := t.TempDir()
	db := openDir(t, dir)
	keys := newJobKeys("job")
	for chunk := uint32(1); chunk < 4; chunk++ {
		setRaw(t, db, keys.intent(chunk), []byte("half-written intent"))
	}
	db.Close()
	db = openDir(t, dir)
	defer db.Close()
	s, err := db.State("job")
	if err != nil {
		t.Fatal(err)
	}
	if epoch, _ := s.Recover(context.Background()); epoch != 0 {
		t.Fatalf("epoch = %d, want 0", epoch)
	}
	if n := intentKeys(t, db); n != 0 {
		t.Fatalf("%d intent keys left", n)
	}
}

func TestCorruptIntent(t *testing.T) {
	db := openDir(t, "")
	defer db.Close()
	keys := newJobKeys("job")
	intent := encodeIntent(3, nil)
	intent[0] ^= 1
	if err := db.putBlob(keys.intent, intent); err != nil {
		t.Fatal(err)
	}
	if _, err := db.State("job"); err == nil {
		t.Fatal("State with a corrupt intent succeeded")
	}
}
