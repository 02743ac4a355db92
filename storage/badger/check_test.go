package badger

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	bdg "github.com/dgraph-io/badger/v4"

	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/badger/damagetest"
)

// wantCorrupt fails unless err is a *storage.CorruptionError about the
// file named name whose message contains each of words.
func wantCorrupt(t *testing.T, err error, name string, words ...string) {
	t.Helper()
	var ce *storage.CorruptionError
	if !errors.As(err, &ce) || !errors.Is(err, storage.ErrCorrupt) || filepath.Base(ce.Path) != name {
		t.Fatalf("got %v, want a corruption error about %s", err, name)
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%q does not say %q", err, w)
		}
	}
}

func TestIdentityFile(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{})
	must(t, err)
	must(t, db.Close())
	if b, err := os.ReadFile(filepath.Join(dir, identityFile)); err != nil || string(b) != "eddy data directory\nformat 1\n" {
		t.Fatalf("identity file of a new directory: %q, %v", b, err)
	}

	// A directory written before identity files existed gets one.
	must(t, os.Remove(filepath.Join(dir, identityFile)))
	db, err = Open(dir, Options{})
	must(t, err)
	must(t, db.Close())
	if _, err := os.Stat(filepath.Join(dir, identityFile)); err != nil {
		t.Fatalf("no identity file written for an older directory: %v", err)
	}

	// A directory of eddy's that lost its database files is not new.
	gone := t.TempDir()
	must(t, os.WriteFile(filepath.Join(gone, identityFile), []byte(identityContents), 0o644))
	_, err = Open(gone, Options{})
	wantCorrupt(t, err, "MANIFEST", "missing from a directory eddy created")
	if ents, _ := os.ReadDir(gone); len(ents) != 2 { // EDDY and eddy.lock
		t.Errorf("Open changed the damaged directory: %v", ents)
	}

	newer := t.TempDir()
	must(t, os.WriteFile(filepath.Join(newer, identityFile), []byte("eddy data directory\nformat 2\n"), 0o644))
	if _, err := Open(newer, Options{}); !errors.Is(err, ErrNewerFormat) {
		t.Fatalf("a newer format: %v", err)
	}
}

// cutManifestAfterFirstChange cuts dir's MANIFEST at the end of its first
// change set: a cut no record check can see, since what remains is whole.
func cutManifestAfterFirstChange(t *testing.T, dir string) {
	t.Helper()
	path := filepath.Join(dir, bdg.ManifestFilename)
	b, err := os.ReadFile(path)
	must(t, err)
	end := 8 + 8 + int64(binary.BigEndian.Uint32(b[8:12])) // magic, then length, checksum and the change set
	if end >= int64(len(b)) {
		t.Fatalf("the MANIFEST (%d bytes) holds one change set", len(b))
	}
	must(t, os.Truncate(path, end))
}

func TestManifestLostChanges(t *testing.T) {
	clean, crashed := buildDir(t)
	for _, dir := range []string{clean, crashed} {
		cutManifestAfterFirstChange(t, dir)
		_, err := openDump(dir)
		wantCorrupt(t, err, "MANIFEST", "does not list the table files", "would delete them")
	}
}

func TestCrashLeftoverTables(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "live")
	crashed := filepath.Join(t.TempDir(), "crashed")
	db, err := Open(dir, Options{ValueLogGCInterval: -1})
	must(t, err)
	fill(t, db, 0)
	must(t, db.Close())
	db, err = Open(dir, Options{ValueLogGCInterval: -1})
	must(t, err)
	fill(t, db, 1)
	must(t, damagetest.CopyDir(dir, crashed))
	before, _ := os.ReadDir(dir)
	must(t, db.Close()) // flushes the memtable the copy has a write-ahead log of
	want, err := openDump(dir)
	must(t, err)

	// The table the close flushed is what a crash after writing it and
	// before listing it in the MANIFEST leaves; a copy of a listed table
	// under a new ID is what a compaction's unlisted output looks like.
	var flushed string
	after, _ := os.ReadDir(dir)
	for _, e := range after {
		if strings.HasSuffix(e.Name(), ".sst") && !containsName(before, e.Name()) {
			flushed = e.Name()
		}
	}
	if flushed == "" {
		t.Fatal("closing flushed no table")
	}
	b, err := os.ReadFile(filepath.Join(dir, flushed))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(crashed, flushed), b, 0o644))
	b, err = os.ReadFile(filepath.Join(dir, "000001.sst"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(crashed, "000099.sst"), b, 0o644))
	got, err := openDump(crashed)
	if err != nil || got != want {
		t.Fatalf("a crashed directory with leftover tables: %v\n%s", err, got)
	}

	// After a clean close, a table the MANIFEST does not list is damage.
	must(t, os.WriteFile(filepath.Join(dir, "000099.sst"), b, 0o644))
	_, err = openDump(dir)
	wantCorrupt(t, err, "MANIFEST", "000099.sst", "cleanly closed")
}

func containsName(ents []os.DirEntry, name string) bool {
	for _, e := range ents {
		if e.Name() == name {
			return true
		}
	}
	return false
}

// TestLostValueIsAnError checks that a value Badger cannot read from the
// value log is an error: Badger itself logs the failure and returns an
// empty value.
func TestLostValueIsAnError(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{ValueLogGCInterval: -1})
	must(t, err)
	defer db.Close()
	big := bytes.Repeat([]byte{'x'}, 100<<10)
	must(t, db.KV().Put([]byte("big"), big))
	vlogs, _ := filepath.Glob(filepath.Join(dir, "*.vlog"))
	for _, p := range vlogs {
		f, err := os.OpenFile(p, os.O_RDWR, 0)
		must(t, err)
		_, err = f.WriteAt([]byte{'y'}, logFileHeader+100) // inside the value, which the mapping shares
		f.Close()
		must(t, err)
	}
	if v, _, err := db.KV().Get([]byte("big")); !errors.Is(err, storage.ErrCorrupt) {
		t.Fatalf("Get of a damaged value = %d bytes, %v", len(v), err)
	}
	err = db.KV().Scan(nil, func(k, v []byte) error { return nil })
	if !errors.Is(err, storage.ErrCorrupt) {
		t.Fatalf("Scan over a damaged value: %v", err)
	}
}

// TestKilledWhileClosing checks that a directory whose process was killed
// while closing Badger, after its last memtable was flushed (so no
// write-ahead log is left) but before Badger removed its LOCK file, opens
// with everything in it, while one whose write-ahead log was deleted
// after a crash is damaged.
func TestKilledWhileClosing(t *testing.T) {
	clean, crashed := buildDir(t)
	want, err := openDump(clean)
	must(t, err)
	must(t, os.WriteFile(filepath.Join(clean, badgerLockFile), []byte("4242\n"), 0o644))
	if got, err := openDump(clean); err != nil || got != want {
		t.Fatalf("killed while closing: %v\n%s", err, got)
	}
	mems, _ := filepath.Glob(filepath.Join(crashed, "*.mem"))
	for _, m := range mems {
		must(t, os.Remove(m))
	}
	_, err = openDump(crashed)
	wantCorrupt(t, err, "*.mem", "LOCK", "values written after every table")
}

// TestStaleValuePointers checks that value pointers of versions no longer
// current, which value log garbage collection leaves when it deletes a
// value log file, are not damage, while a current one is.
func TestStaleValuePointers(t *testing.T) {
	dir := t.TempDir()
	put := func(key string, b byte, del string) {
		db, err := Open(dir, Options{ValueLogGCInterval: -1})
		must(t, err)
		must(t, db.KV().Put([]byte(key), bytes.Repeat([]byte{b}, 100<<10)))
		if del != "" {
			must(t, db.KV().Delete([]byte(del)))
		}
		must(t, db.Close())
	}
	put("a", 1, "") // 000001.vlog
	put("b", 2, "") // 000002.vlog
	put("a", 3, "b")
	for _, name := range []string{"000001.vlog", "000002.vlog"} {
		must(t, os.Remove(filepath.Join(dir, name)))
	}
	db, err := Open(dir, Options{ValueLogGCInterval: -1})
	if err != nil {
		t.Fatalf("pointers only of older versions and of a deleted key: %v", err)
	}
	v, _, err := db.KV().Get([]byte("a"))
	must(t, err)
	must(t, db.Close())
	if len(v) != 100<<10 || v[0] != 3 {
		t.Fatalf("a = %d bytes of %d", len(v), v[0])
	}
	vlogs, _ := filepath.Glob(filepath.Join(dir, "*.vlog"))
	for _, p := range vlogs {
		if st, _ := os.Stat(p); st.Size() > logFileHeader {
			must(t, os.Remove(p))
			_, err := Open(dir, Options{ValueLogGCInterval: -1})
			wantCorrupt(t, err, filepath.Base(p), `the current value of the catalog entry "a"`)
		}
	}
}

// TestKilledWhileOpening checks that a value log file Badger created and
// did not get to write its header into — a process killed while opening a
// directory it had closed cleanly — is not damage: the directory opens
// with everything in it (the crash harness met it, as "000017.vlog: it is
// empty").
func TestKilledWhileOpening(t *testing.T) {
	clean, _ := buildDir(t)
	want, err := openDump(clean)
	must(t, err)
	vlogs, _ := filepath.Glob(filepath.Join(clean, "*.vlog"))
	slices.Sort(vlogs)
	last := filepath.Base(vlogs[len(vlogs)-1])
	n, err := strconv.Atoi(strings.TrimSuffix(last, ".vlog"))
	must(t, err)
	for _, size := range []int{0, 5} {
		next := filepath.Join(clean, fmt.Sprintf("%06d.vlog", n+1))
		must(t, os.WriteFile(next, make([]byte, size), 0o644))
		if got, err := openDump(clean); err != nil || got != want {
			t.Fatalf("a newest value log of %d bytes: %v\n%s", size, err, got)
		}
		os.Remove(next)
	}
}

// TestKilledLeavingEmptyValueLogs: a crashed directory (Badger's LOCK left
// behind) holding value log files shorter than their header below the
// newest opens with the same contents: they hold nothing, and Open removes
// them (the crash harness met one, rarely).
func TestKilledLeavingEmptyValueLogs(t *testing.T) {
	clean, _ := buildDir(t)
	want, err := openDump(clean)
	must(t, err)
	vlogs, _ := filepath.Glob(filepath.Join(clean, "*.vlog"))
	slices.Sort(vlogs)
	n, err := strconv.Atoi(strings.TrimSuffix(filepath.Base(vlogs[len(vlogs)-1]), ".vlog"))
	must(t, err)
	for _, k := range []int{1, 2} {
		must(t, os.WriteFile(filepath.Join(clean, fmt.Sprintf("%06d.vlog", n+k)), nil, 0o644))
	}
	must(t, os.WriteFile(filepath.Join(clean, badgerLockFile), []byte("4242\n"), 0o644))
	if got, err := openDump(clean); err != nil || got != want {
		t.Fatalf("empty value logs in a crashed directory: %v\n%s", err, got)
	}
}
