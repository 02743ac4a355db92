package badger

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"

	bdg "github.com/dgraph-io/badger/v4"

	"github.com/eddysql/eddy/storage"
)

// rawRunKeys returns the Badger keys of job's runs whose kind is runBlock
// or runIndex.
func rawRunKeys(t *testing.T, db *DB, job string, kind byte) [][]byte {
	t.Helper()
	keys := newJobKeys(job)
	var out [][]byte
	err := db.bdb.View(func(txn *bdg.Txn) error {
		it := txn.NewIterator(bdg.IteratorOptions{Prefix: keys.runsPrefix(), PrefetchValues: false})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			k := it.Item().KeyCopy(nil)
			if k[len(keys.runsPrefix())+8] == kind {
				out = append(out, k)
			}
		}
		return nil
	})
	must(t, err)
	return out
}

func rawValue(t *testing.T, db *DB, key []byte) []byte {
	t.Helper()
	var v []byte
	must(t, db.bdb.View(func(txn *bdg.Txn) error {
		item, err := txn.Get(key)
		if err != nil {
			return err
		}
		v, err = item.ValueCopy(nil)
		return err
	}))
	return v
}

// TestDamagedState checks that a checkpoint's run file with a damaged
// block, another job's block, cut short or missing, is an error naming
// the job on Get and on Scan, and that a damaged manifest is one when the
// store is opened.
func TestDamagedState(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openDir(t, dir)
	defer db.Close()
	for _, job := range []string{"job", "other"} {
		s, err := db.State(job)
		must(t, err)
		tbl, err := s.Table("t", storage.TableOptions{})
		must(t, err)
		must(t, tbl.Put([]byte("a"), []byte("apple")))
		must(t, tbl.Put([]byte("b"), []byte("banana")))
		must(t, s.Commit(ctx, 1))
		must(t, s.Close())
	}

	jobFiles, otherFiles := newRunFiles(dir, "job"), newRunFiles(dir, "other")
	ids, err := jobFiles.list()
	must(t, err)
	others, err := otherFiles.list()
	must(t, err)
	if len(ids) != 1 || len(others) != 1 || ids[0] != others[0] {
		t.Fatalf("runs %v and %v, want one run of the same id for each job", ids, others)
	}
	path := jobFiles.path(ids[0])
	file, err := os.ReadFile(path)
	must(t, err)
	otherFile, err := os.ReadFile(otherFiles.path(others[0]))
	must(t, err)
	flipped := append([]byte(nil), file...)
	flipped[1] ^= 1
	for name, damage := range map[string]func(){
		"a flipped byte":                 func() { must(t, os.WriteFile(path, flipped, 0o644)) },
		"another job's block (same run)": func() { must(t, os.WriteFile(path, otherFile, 0o644)) },
		"a file cut short":               func() { must(t, os.WriteFile(path, file[:len(file)-3], 0o644)) },
		"a missing file":                 func() { must(t, os.Remove(path)) },
	} {
		damage()
		s, err := db.State("job")
		must(t, err)
		tbl, err := s.Table("t", storage.TableOptions{})
		must(t, err)
		_, _, getErr := tbl.Get([]byte("a"))
		scanErr := tbl.Scan(nil, func(k, v []byte) error { return nil })
		for op, err := range map[string]error{"Get": getErr, "Scan": scanErr} {
			var ce *storage.CorruptionError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), `the operator state of job "job"`) {
				t.Errorf("%s: %s = %v", name, op, err)
			}
		}
		must(t, s.Close())
	}

	man := rawValue(t, db, newJobKeys("job").manifest())
	man[2] ^= 1
	setRaw(t, db, newJobKeys("job").manifest(), man)
	if _, err := db.State("job"); !errors.Is(err, storage.ErrCorrupt) || !strings.Contains(err.Error(), `the operator state of job "job"`) {
		t.Errorf("State with a damaged manifest: %v", err)
	}
}

// TestLegacyStateIsConverted checks that a job's checkpoint in the layout
// before runs (a key per entry, sealed values, an epoch marker) opens with
// its epoch and entries, converted to a run, and that the old keys are
// gone; and that a damaged old value is an error, not a silent loss.
func TestLegacyStateIsConverted(t *testing.T) {
	dir := t.TempDir()
	db := openDir(t, dir)
	keys := newJobKeys("job")
	entries := map[string]string{"t1/a": "apple", "t1/b": "banana", "t2/c": "cherry"}
	for k, v := range entries {
		setRaw(t, db, keys.data([]byte(k)), sealState([]byte(k), []byte(v)))
	}
	setRaw(t, db, keys.epoch(), sealState(nil, binary.BigEndian.AppendUint64(nil, 7)))
	must(t, db.Close())

	db = openDir(t, dir)
	s, err := db.State("job")
	must(t, err)
	epoch, err := s.Recover(context.Background())
	must(t, err)
	if epoch != 7 {
		t.Fatalf("epoch %d after the conversion, want 7", epoch)
	}
	// statecore prefixes a table's keys with its encoded name; read the
	// backend's merged entries directly.
	got := map[string]string{}
	must(t, s.Close())
	st, err := db.openState("job")
	must(t, err)
	must(t, st.Scan(nil, nil, func(k, v []byte) error { got[string(k)] = string(v); return nil }))
	must(t, st.Close())
	if len(got) != len(entries) {
		t.Fatalf("%d entries after the conversion, want %d: %v", len(got), len(entries), got)
	}
	for k, v := range entries {
		if got[k] != v {
			t.Fatalf("%s = %q after the conversion, want %q", k, got[k], v)
		}
	}
	for _, p := range [][]byte{keys.dataPrefix(), keys.epoch()} {
		if n := rawKeys(t, db, p); n != 0 {
			t.Fatalf("%d keys of the old layout left under %q", n, p)
		}
	}
	must(t, db.Close())

	db = openDir(t, t.TempDir())
	defer db.Close()
	setRaw(t, db, keys.data([]byte("k")), []byte("damaged, no seal"))
	setRaw(t, db, keys.epoch(), sealState(nil, binary.BigEndian.AppendUint64(nil, 1)))
	if _, err := db.State("job"); !errors.Is(err, storage.ErrCorrupt) {
		t.Fatalf("State over a damaged old value: %v", err)
	}
}
