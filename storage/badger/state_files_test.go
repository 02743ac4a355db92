package badger

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/eddysql/eddy/storage"
)

// TestRunFilesNobodyNamesAreDeleted checks that a run file no manifest
// names (a commit's that a crash cut off before its manifest) is deleted
// when the job's state opens, and the run directory of a job without
// state (a crash in DropState left it) when the database opens, while the
// committed state stays readable.
func TestRunFilesNobodyNamesAreDeleted(t *testing.T) {
	dir := t.TempDir()
	db := openDir(t, dir)
	commitOne(t, db, "t", "k", "v")
	must(t, db.Close())

	files := newRunFiles(dir, "job")
	named, err := files.list()
	must(t, err)
	if len(named) != 1 {
		t.Fatalf("run files %v after one commit, want one", named)
	}
	stray := files.path(named[0] + 5)
	must(t, os.WriteFile(stray, []byte("half a run"), 0o644))
	gone := newRunFiles(dir, "dropped")
	must(t, os.MkdirAll(gone.dir, 0o755))
	must(t, os.WriteFile(filepath.Join(gone.dir, jobDirFile), []byte("dropped"), 0o644))
	must(t, os.WriteFile(gone.path(1), []byte("a run"), 0o644))

	db = openDir(t, dir)
	defer db.Close()
	if _, err := os.Stat(gone.dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the run directory of a job without state is still there: %v", err)
	}
	s, epoch := recovered(t, db)
	defer s.Close()
	if _, err := os.Stat(stray); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a run file no manifest names is still there: %v", err)
	}
	tbl, err := s.Table("t", storage.TableOptions{})
	must(t, err)
	v, ok, err := tbl.Get([]byte("k"))
	if epoch != 1 || !ok || string(v) != "v" || err != nil {
		t.Fatalf("epoch %d, k = %q, %v, %v; want epoch 1, k = v", epoch, v, ok, err)
	}
}

// TestReadSurvivesRunRemoval checks that a scan reading a run's file
// finishes when a commit meanwhile compacts that run away and deletes its
// file.
func TestReadSurvivesRunRemoval(t *testing.T) {
	ctx := context.Background()
	db := openDir(t, t.TempDir())
	defer db.Close()
	s, err := db.State("job")
	must(t, err)
	defer s.Close()
	tbl, err := s.Table("t", storage.TableOptions{})
	must(t, err)
	want := putAll(t, s, 200, "v", 2000)
	must(t, s.Commit(ctx, 1))
	files := newRunFiles(db.dir, "job")
	before, err := files.list()
	must(t, err)
	seen := 0
	epoch := uint64(1)
	err = tbl.Scan(nil, func(k, v []byte) error {
		if seen%50 == 0 {
			// Rewrite every key: the new run is as large as the first,
			// so the commit merges both into one and deletes their files.
			putAll(t, s, 200, "w", 2000)
			epoch++
			must(t, s.Commit(ctx, epoch))
		}
		if string(v) != want[string(k)] {
			t.Fatalf("key %s = %.5q... during the scan, want the first epoch's", k, v)
		}
		seen++
		return nil
	})
	must(t, err)
	if seen != len(want) {
		t.Fatalf("the scan saw %d keys, want %d", seen, len(want))
	}
	after, err := files.list()
	must(t, err)
	for _, id := range before {
		for _, a := range after {
			if a == id {
				t.Fatalf("run %d's file survived compaction: %v", id, after)
			}
		}
	}
}
