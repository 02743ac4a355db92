package badger

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/badger/damagetest"
)

// epochValues returns the values of table "t" of job "job" after
// recovery, and the epoch recovered.
func epochValues(t *testing.T, db *DB) (uint64, map[string]string) {
	t.Helper()
	s, epoch := recovered(t, db)
	defer s.Close()
	tbl, err := s.Table("t", storage.TableOptions{})
	must(t, err)
	got := map[string]string{}
	must(t, tbl.Scan(nil, func(k, v []byte) error {
		got[string(k)] = string(v)
		return nil
	}))
	return epoch, got
}

// putAll puts vals into table "t" of s, each key a value of size bytes
// starting with tag.
func putAll(t *testing.T, s storage.StateStore, keys int, tag string, size int) map[string]string {
	t.Helper()
	tbl, err := s.Table("t", storage.TableOptions{})
	must(t, err)
	want := map[string]string{}
	for i := range keys {
		k, v := fmt.Sprintf("k%04d", i), tag+string(bytes.Repeat([]byte{'.'}, size-len(tag)))
		must(t, tbl.Put([]byte(k), []byte(v)))
		want[k] = v
	}
	return want
}

// checkOld checks that db recovers epoch 1 with the values old.
func checkOld(t *testing.T, db *DB, old map[string]string) {
	t.Helper()
	epoch, got := epochValues(t, db)
	if epoch != 1 {
		t.Fatalf("recovered epoch %d, want the old epoch 1", epoch)
	}
	if len(got) != len(old) {
		t.Fatalf("recovered %d keys, want the old epoch's %d", len(got), len(old))
	}
	for k, v := range old {
		if got[k] != v {
			t.Fatalf("key %s = %.10q..., want the old epoch's %.10q...", k, got[k], v)
		}
	}
}

// TestCommitKilledMidWrite checks that a process killed while Badger
// writes a commit's transaction (its run's index and the manifest; the
// run's blocks are in their file by then) to its write-ahead log leaves
// the old epoch with the old values: the directory is copied while open
// after the commit of epoch 2, and epoch 2's records in the copy's
// write-ahead log are cut in their middle (zeros from there on, as a
// killed process's unfinished copy into the file's mapping leaves them).
// The run file epoch 2 wrote, which no manifest names, is deleted.
func TestCommitKilledMidWrite(t *testing.T) {
	ctx := context.Background()
	dir, crashed := t.TempDir(), filepath.Join(t.TempDir(), "crashed")
	db := openDir(t, dir)
	s, err := db.State("job")
	must(t, err)
	old := putAll(t, s, 40, "old", 100)
	must(t, s.Commit(ctx, 1))
	wal := onlyFile(t, dir, ".mem")
	before := dataEnd(t, wal)
	latest := putAll(t, s, 40, "new", 100)
	must(t, s.Commit(ctx, 2))
	after := dataEnd(t, wal)
	if after <= before {
		t.Fatal("epoch 2 wrote nothing to the write-ahead log")
	}
	must(t, damagetest.CopyDir(dir, crashed))
	must(t, s.Close())
	must(t, db.Close())

	// Whole, the copy holds epoch 2.
	whole := filepath.Join(t.TempDir(), "whole")
	must(t, damagetest.CopyDir(crashed, whole))
	db = openDir(t, whole)
	if epoch, got := epochValues(t, db); epoch != 2 || got["k0000"] != latest["k0000"] {
		t.Fatalf("the whole copy recovers epoch %d, key k0000 %.10q..., want epoch 2 and its values", epoch, got["k0000"])
	}
	must(t, db.Close())

	cut := before + (after-before)/2
	f, err := os.OpenFile(filepath.Join(crashed, filepath.Base(wal)), os.O_RDWR, 0)
	must(t, err)
	_, err = f.WriteAt(make([]byte, after-cut), cut)
	must(t, err)
	must(t, f.Close())

	db = openDir(t, crashed)
	defer db.Close()
	checkOld(t, db, old)
	ids, err := newRunFiles(crashed, "job").list()
	must(t, err)
	if len(ids) != 1 {
		t.Fatalf("run files %v after the crash, want only epoch 1's", ids)
	}
}

// onlyFile returns the path of dir's one file with the extension ext.
func onlyFile(t *testing.T, dir, ext string) string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*"+ext))
	must(t, err)
	if len(m) != 1 {
		t.Fatalf("%d %s files in %s, want 1", len(m), ext, dir)
	}
	return m[0]
}

// dataEnd returns the offset after the last non-zero byte of the file at
// path: the end of what a preallocated log holds.
func dataEnd(t *testing.T, path string) int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	must(t, err)
	n := len(b)
	for n > 0 && b[n-1] == 0 {
		n--
	}
	return int64(n)
}
