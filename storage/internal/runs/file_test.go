package runs

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/eddysql/eddy/storage"
)

// fileRun builds run id from entries into a run file in dir, its blocks
// built in reused memory, and returns the path and the run read from it.
func fileRun(t *testing.T, dir string, id uint64, entries []Entry) (string, Run, *File) {
	t.Helper()
	path := filepath.Join(dir, "run")
	w, err := CreateFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b := NewBuilder(5, id, w.WriteBlock)
	b.ReuseBlocks()
	for _, e := range entries {
		if err := b.Add(e.Key, e.Val, e.Delete); err != nil {
			t.Fatal(err)
		}
	}
	idx, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	f, err := OpenFile(path, id)
	if err != nil {
		t.Fatal(err)
	}
	if f.Blocks() != idx.Blocks() {
		t.Fatalf("the file holds %d blocks, the index %d", f.Blocks(), idx.Blocks())
	}
	return path, Run{Salt: 5, ID: id, Index: idx, Fetch: f.Fetch}, f
}

// TestFileRoundTrip: a run written to a file, its blocks built in reused
// memory, reads back as the same run built in memory.
func TestFileRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	entries := randomEntries(r, 3000, 8000)
	_, run, f := fileRun(t, t.TempDir(), 3, entries)
	defer f.Close()
	if run.Index.Blocks() < 3 {
		t.Fatalf("want several blocks, got %d", run.Index.Blocks())
	}
	want := memRun(t, 3, entries)
	var got, exp []Entry
	collect := func(out *[]Entry) func(k, v []byte, del bool) error {
		return func(k, v []byte, del bool) error {
			*out = append(*out, Entry{Key: bytes.Clone(k), Val: bytes.Clone(v), Delete: del})
			return nil
		}
	}
	if err := Merge([]Run{run}, nil, nil, nil, true, collect(&got)); err != nil {
		t.Fatal(err)
	}
	if err := Merge([]Run{want}, nil, nil, nil, true, collect(&exp)); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(exp) {
		t.Fatalf("%d entries from the file, %d from memory", len(got), len(exp))
	}
	for i := range got {
		if !bytes.Equal(got[i].Key, exp[i].Key) || !bytes.Equal(got[i].Val, exp[i].Val) || got[i].Delete != exp[i].Delete {
			t.Fatalf("entry %d: %q from the file, %q from memory", i, got[i].Key, exp[i].Key)
		}
	}
}

// TestFileDamageIsDetected: a run file cut short, with its trailer
// damaged, or missing, fails to open with ErrCorrupt, and a damaged block
// fails its read; a file not finished is removed by Abort.
func TestFileDamageIsDetected(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	path, _, f := fileRun(t, dir, 4, randomEntries(r, 2000, 5000))
	f.Close()
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	flip := func(off int) []byte {
		b := bytes.Clone(good)
		b[off] ^= 0x20
		return b
	}
	for name, data := range map[string][]byte{
		"cut short":       good[:len(good)-1],
		"cut to half":     good[:len(good)/2],
		"empty":           nil,
		"flipped magic":   flip(len(good) - 1),
		"flipped count":   flip(len(good) - trailerFixed),
		"flipped offsets": flip(len(good) - trailerFixed - 9),
		"block appended":  append(bytes.Clone(good[:len(good)/2]), good...),
	} {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if f, err := OpenFile(path, 4); !errors.Is(err, storage.ErrCorrupt) {
			if err == nil {
				f.Close()
			}
			t.Errorf("%s: OpenFile = %v, want ErrCorrupt", name, err)
		}
	}

	// A flipped byte in a block: the file opens, the block fails its seal.
	if err := os.WriteFile(path, flip(10), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err = OpenFile(path, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := f.Fetch(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := DecodeBlock(5, 4, 0, b, func([]byte, []byte, bool) error { return nil }); !errors.Is(err, storage.ErrCorrupt) {
		t.Errorf("flipped block: %v, want ErrCorrupt", err)
	}
	if _, err := f.Fetch(uint32(f.Blocks()), nil); !errors.Is(err, storage.ErrCorrupt) {
		t.Errorf("a block past the last: %v, want ErrCorrupt", err)
	}

	if _, err := OpenFile(filepath.Join(dir, "absent"), 9); !errors.Is(err, storage.ErrCorrupt) {
		t.Errorf("missing file: %v, want ErrCorrupt", err)
	}
	w, err := CreateFile(filepath.Join(dir, "unfinished"))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteBlock(1, []byte("x")); err == nil {
		t.Error("block 1 written first: no error")
	}
	w.Abort()
	if _, err := os.Stat(filepath.Join(dir, "unfinished")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an aborted file is still there: %v", err)
	}
}

// BenchmarkFileWrite builds a run of 64 MiB of 100-byte entries into a
// file: encoding, writing and syncing, as a checkpoint's commit does.
func BenchmarkFileWrite(b *testing.B) {
	const entries = 640 << 10
	val := bytes.Repeat([]byte{'v'}, 84)
	key := make([]byte, 16)
	dir := b.TempDir()
	b.SetBytes(entries * 100)
	for i := 0; b.Loop(); i++ {
		path := filepath.Join(dir, fmt.Sprintf("run%d", i))
		w, err := CreateFile(path)
		if err != nil {
			b.Fatal(err)
		}
		bl := NewBuilder(1, 1, w.WriteBlock)
		bl.ReuseBlocks()
		for k := range entries {
			binary.BigEndian.PutUint64(key, 7)
			binary.BigEndian.PutUint64(key[8:], uint64(k))
			if err := bl.Add(key, val, false); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := bl.Finish(); err != nil {
			b.Fatal(err)
		}
		if err := w.Finish(); err != nil {
			b.Fatal(err)
		}
		os.Remove(path)
	}
}

// TestFileWriterStartsWriteback checks that a run file's bytes are handed
// to the kernel's writeback as they are written, a megabyte or more at a
// time, in order and each once, and that a file so written (the real
// writeback, not the test's hook) reads back.
func TestFileWriterStartsWriteback(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 11))
	entries := randomEntries(r, 4000, 8000)
	type span struct{ off, n int64 }
	var spans []span
	startWriteback = func(_ *os.File, off, n int64) { spans = append(spans, span{off, n}) }
	path, run, f := fileRun(t, t.TempDir(), 4, entries)
	startWriteback = writeback
	f.Close()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() < 3*writebackEvery {
		t.Fatalf("a file of %d bytes: the test wants several megabytes", st.Size())
	}
	var next int64
	for _, s := range spans {
		if s.off != next || s.n < writebackEvery {
			t.Fatalf("writeback of [%d, %d) after [0, %d): want the next %d bytes or more", s.off, s.off+s.n, next, writebackEvery)
		}
		next = s.off + s.n
	}
	if blocks := int64(run.Index.Blocks()); next < st.Size()-writebackEvery-BlockSize*2 {
		t.Fatalf("writeback started for %d of %d bytes (%d blocks)", next, st.Size(), blocks)
	}

	_, run, f = fileRun(t, t.TempDir(), 4, entries)
	defer f.Close()
	n := 0
	if err := Merge([]Run{run}, nil, nil, nil, true, func([]byte, []byte, bool) error { n++; return nil }); err != nil || n != len(entries) {
		t.Fatalf("read back %d of %d entries: %v", n, len(entries), err)
	}
}
