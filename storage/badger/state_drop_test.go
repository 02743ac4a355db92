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

// dropKeys is how many keys fillForDrop writes: with 256-byte keys, more
// deletions than one transaction holds with 4 MiB memtables, so DropState
// takes the marked path.
const dropKeys = 3000

// dropKey is key i of fillForDrop.
func dropKey(i int) []byte {
	return append(fmt.Appendf(nil, "key%05d/", i), bytes.Repeat([]byte{'k'}, 247)...)
}

// fillForDrop commits dropKeys keys of job over epochs 1 to 3, in two
// tables, and closes its store.
func fillForDrop(t *testing.T, db *DB, job string) {
	t.Helper()
	s, err := db.State(job)
	if err != nil {
		t.Fatal(err)
	}
	t1, _ := s.Table("t1", storage.TableOptions{})
	t2, _ := s.Table("t2", storage.TableOptions{})
	for i := range dropKeys {
		tbl := t1
		if i%2 == 1 {
			tbl = t2
		}
		if err := tbl.Put(dropKey(i), []byte(job)); err != nil {
			t.Fatal(err)
		}
		if i%(dropKeys/3) == dropKeys/3-1 {
			if err := s.Commit(context.Background(), uint64(i/(dropKeys/3)+1)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// jobState returns job's last committed epoch and number of keys, as a
// restarted process sees them.
func jobState(t *testing.T, db *DB, job string) (epoch uint64, keys int) {
	t.Helper()
	s, err := db.State(job)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if epoch, err = s.Recover(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"t1", "t2"} {
		tbl, _ := s.Table(name, storage.TableOptions{})
		err := tbl.Scan(nil, func(k, v []byte) error {
			if string(v) != job {
				return fmt.Errorf("job %q holds %q under %q", job, v, k)
			}
			keys++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return epoch, keys
}

// rawKeys counts the Badger keys under prefix.
func rawKeys(t *testing.T, db *DB, prefix []byte) int {
	t.Helper()
	n := 0
	err := db.bdb.View(func(txn *bdg.Txn) error {
		it := txn.NewIterator(bdg.IteratorOptions{Prefix: prefix})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestDropStateCrash interrupts a large DropState at each of its steps,
// as a crash would, and checks that the reopened job has its old state or
// none, never part of it, and that the jobs whose names share a prefix
// with it keep theirs. "partial" also deletes half the job's keys after
// the mark, as a crash in the middle of DropPrefix may leave them.
func TestDropStateCrash(t *testing.T) {
	for _, crash := range []string{"", "drop-marked", "partial", "drop-dropped"} {
		for _, finish := range []string{"State", "DropState"} {
			t.Run("crash="+crash+"/finish="+finish, func(t *testing.T) {
				dir := t.TempDir()
				db := openSmall(t, dir)
				for _, job := range []string{"jo", "job", "jobb"} {
					fillForDrop(t, db, job)
				}
				keys := newJobKeys("job")
				var seen []string
				crashHook = func(step string) bool {
					seen = append(seen, step)
					return step == crash || (crash == "partial" && step == "drop-marked")
				}
				err := db.DropState("job")
				crashHook = nil
				if !slices.Contains(seen, "drop-marked") {
					t.Fatalf("the drop did not take the marked path (steps %v)", seen)
				}
				if (crash == "") != (err == nil) {
					t.Fatalf("DropState with a crash at %q = %v", crash, err)
				}
				if crash == "partial" {
					wb := db.bdb.NewWriteBatch()
					for i := 0; i < dropKeys; i += 2 {
						k := storage.AppendString(nil, "t1")
						if err := wb.Delete(keys.data(append(k, dropKey(i)...))); err != nil {
							t.Fatal(err)
						}
					}
					if err := wb.Flush(); err != nil {
						t.Fatal(err)
					}
				}
				if crash == "drop-marked" && rawKeys(t, db, keys.dataPrefix()) != dropKeys {
					t.Fatal("the crash before DropPrefix left the job's keys incomplete")
				}
				db.Close()

				db = openSmall(t, dir)
				defer db.Close()
				if finish == "DropState" {
					if err := db.DropState("job"); err != nil {
						t.Fatal(err)
					}
				}
				if epoch, n := jobState(t, db, "job"); epoch != 0 || n != 0 {
					t.Fatalf("after the drop, job is at epoch %d with %d keys; want epoch 0, no keys", epoch, n)
				}
				if n := rawKeys(t, db, keys.prefix); n != 0 {
					t.Fatalf("%d keys left under the job's prefix", n)
				}
				for _, job := range []string{"jo", "jobb"} {
					if epoch, n := jobState(t, db, job); epoch != 3 || n != dropKeys {
						t.Fatalf("job %q is at epoch %d with %d keys; want epoch 3, %d keys", job, epoch, n, dropKeys)
					}
				}
			})
		}
	}
}

// TestDropStateSmall checks that a job with few keys is dropped in one
// transaction, without a mark.
func TestDropStateSmall(t *testing.T) {
	db := openDir(t, "")
	defer db.Close()
	s, _ := db.State("job")
	tbl, _ := s.Table("t", storage.TableOptions{})
	tbl.Put([]byte("k"), []byte("v"))
	if err := s.Commit(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	s.Close()
	var seen []string
	crashHook = func(step string) bool { seen = append(seen, step); return false }
	err := db.DropState("job")
	crashHook = nil
	if err != nil || len(seen) != 0 {
		t.Fatalf("DropState = %v, steps %v; want no error and no steps", err, seen)
	}
	if n := rawKeys(t, db, newJobKeys("job").prefix); n != 0 {
		t.Fatalf("%d keys left under the job's prefix", n)
	}
}
