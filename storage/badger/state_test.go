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

// largeCommit writes enough state to overflow one Badger transaction
// (which a run's blocks are spread over), deleting the key commitOne
// wrote, and returns the keys written.
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

// TestCommitCrashSteps stops a commit at each of its steps, as a crash
// would, and checks that the reopened job holds the old epoch or the new
// one, whole, and that no run is left that no manifest names.
func TestCommitCrashSteps(t *testing.T) {
	for _, crash := range []string{"", "run", "manifest"} {
		t.Run("crash="+crash, func(t *testing.T) {
			dir := t.TempDir()
			db := openSmall(t, dir)
			commitOne(t, db, "big", "base", "1")

			var seen []string
			crashHook = func(step string) bool {
				seen = append(seen, step)
				return step == crash
			}
			keys, err := largeCommit(t, db, 2)
			crashHook = nil
			if !slices.Contains(seen, "run") || !slices.Contains(seen, "manifest") && crash != "run" {
				t.Fatalf("the commit did not take its steps (steps %v)", seen)
			}
			if (crash == "") != (err == nil) {
				t.Fatalf("Commit with a crash at %q = %v", crash, err)
			}
			db.Close()

			db = openSmall(t, dir)
			defer db.Close()
			s, epoch := recovered(t, db)
			tbl, _ := s.Table("big", storage.TableOptions{})
			var got [][]byte
			must(t, tbl.Scan(nil, func(k, v []byte) error {
				got = append(got, bytes.Clone(k))
				return nil
			}))
			switch {
			case crash == "run":
				if epoch != 1 || len(got) != 1 || string(got[0]) != "base" {
					t.Fatalf("after a crash before the manifest: epoch %d, keys %q; want epoch 1 and its key", epoch, got)
				}
			case epoch != 2 || !slices.EqualFunc(got, keys, bytes.Equal):
				t.Fatalf("after the commit: epoch %d, %d keys; want epoch 2 and its %d keys", epoch, len(got), len(keys))
			}
			must(t, s.Close())
			b, err := db.openState("job")
			must(t, err)
			named := len(b.man.runs) + len(b.prev.runs)
			if n := len(rawRunKeys(t, db, "job", runIndex)); n > named {
				t.Fatalf("%d runs stored, the manifests name %d", n, named)
			}
			must(t, b.Close())
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
	s, epoch := recovered(t, db)
	defer s.Close()
	if epoch != 0 {
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
				stored := rawKeys(t, db, keys.runsPrefix())
				defer func(n int) { smallStateDrop = n }(smallStateDrop)
				smallStateDrop = 1 // fewer than the job's keys: the marked path
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
					for i, k := range rawRunKeys(t, db, "job", runIndex) {
						if i%2 == 0 {
							if err := wb.Delete(k); err != nil {
								t.Fatal(err)
							}
						}
					}
					if err := wb.Flush(); err != nil {
						t.Fatal(err)
					}
				}
				if crash == "drop-marked" && rawKeys(t, db, keys.runsPrefix()) != stored {
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
				if ids, err := newRunFiles(dir, "job").list(); err != nil || len(ids) != 0 {
					t.Fatalf("run files %v (%v) left after the drop", ids, err)
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
	commitOne(t, db, "t", "k", "v")
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

// commitOne commits epoch 1 of job "job" in db, holding key=value in
// table, and closes the store.
func commitOne(t *testing.T, db *DB, table, key, value string) {
	t.Helper()
	s, err := db.State("job")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tbl, err := s.Table(table, storage.TableOptions{})
	if err == nil {
		err = tbl.Put([]byte(key), []byte(value))
	}
	if err == nil {
		err = s.Commit(context.Background(), 1)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// recovered opens the state store of job "job" in db and returns it with
// its last committed epoch, failing t on an error.
func recovered(t *testing.T, db *DB) (storage.StateStore, uint64) {
	t.Helper()
	s, err := db.State("job")
	if err != nil {
		t.Fatal(err)
	}
	epoch, err := s.Recover(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s, epoch
}
