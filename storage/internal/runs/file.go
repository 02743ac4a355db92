package runs

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"

	"github.com/eddysql/eddy/storage"
)

// A run file holds the blocks of one run, one after another, then a
// trailer that says where each starts:
//
//	block 0 | block 1 | ... | block n-1 | offsets | n | crc | magic
//
// offsets are n+1 little-endian uint64s (the start of each block, then the
// end of the last), n a little-endian uint32, crc the CRC-32C,
// little-endian, of the offsets and n, and magic the 8 bytes fileMagic.
// Blocks carry their own seal (block.go), so the trailer's checksum only
// guards the offsets. A file is written once, synced, and never changed.
const fileMagic = "EDDYRUN1"

// trailerFixed is the size of the trailer after the offsets.
const trailerFixed = 4 + 4 + 8 // n, crc, fileMagic

// maxFileBlocks bounds the blocks a file may claim, so that a damaged
// count cannot ask for a huge offsets table.
const maxFileBlocks = 1 << 26

// FileWriter writes a run file. Blocks go straight to the file (the
// caller may reuse a block's memory once WriteBlock returns), and the
// kernel is asked to start writing them to disk every writebackEvery
// bytes; Finish writes the trailer and syncs the file.
type FileWriter struct {
	f      *os.File
	offs   []uint64
	pos    uint64
	queued uint64 // the bytes before it were handed to startWriteback
	err    error
}

// writebackEvery is how many bytes a FileWriter writes between asking the
// kernel to start writing them out. A sync of a whole run at once (tens
// of megabytes at a checkpoint a second) is tens of milliseconds of the
// kernel's work in one piece on the syncing thread (the file system
// mapping and submitting every dirty page), which takes a core from the
// tasks' threads for as long; started a megabyte at a time, the same work
// comes in small pieces as the file is written, and the sync finds little
// left. RocksDB's bytes_per_sync does the same, for the same reason.
const writebackEvery = 1 << 20

// startWriteback starts the writing out of a file's bytes [off, off+n):
// writeback, or a test's hook.
var startWriteback = writeback

// CreateFile creates the run file at path, which must not exist.
func CreateFile(path string) (*FileWriter, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("storage: creating run file: %w", err)
	}
	return &FileWriter{f: f}, nil
}

// WriteBlock appends block no, which must be the next one (0, 1, ...).
func (w *FileWriter) WriteBlock(no uint32, block []byte) error {
	if w.err != nil {
		return w.err
	}
	if int(no) != len(w.offs) {
		w.err = fmt.Errorf("runs: block %d written after %d blocks", no, len(w.offs))
		return w.err
	}
	w.offs = append(w.offs, w.pos)
	if _, err := w.f.Write(block); err != nil {
		w.err = fmt.Errorf("storage: writing run file: %w", err)
		return w.err
	}
	w.pos += uint64(len(block))
	if w.pos-w.queued >= writebackEvery {
		startWriteback(w.f, int64(w.queued), int64(w.pos-w.queued))
		w.queued = w.pos
	}
	return nil
}

// Finish writes the trailer, syncs the file to disk and closes it.
func (w *FileWriter) Finish() error {
	if w.err != nil {
		return w.err
	}
	t := make([]byte, 0, 8*(len(w.offs)+1)+trailerFixed)
	for _, o := range w.offs {
		t = binary.LittleEndian.AppendUint64(t, o)
	}
	t = binary.LittleEndian.AppendUint64(t, w.pos)
	t = binary.LittleEndian.AppendUint32(t, uint32(len(w.offs)))
	t = binary.LittleEndian.AppendUint32(t, crc32.Checksum(t, castagnoli))
	t = append(t, fileMagic...)
	if _, err := w.f.Write(t); err != nil {
		w.err = fmt.Errorf("storage: writing run file: %w", err)
		return w.err
	}
	if err := w.f.Sync(); err != nil {
		w.err = fmt.Errorf("storage: syncing run file: %w", err)
		return w.err
	}
	w.err = w.f.Close()
	w.f = nil
	return w.err
}

// Abort closes and removes a file not finished.
func (w *FileWriter) Abort() {
	if w.f == nil {
		return
	}
	name := w.f.Name()
	w.f.Close()
	w.f = nil
	os.Remove(name)
}

// File is a run file open for reading. Its methods are safe for
// concurrent use.
type File struct {
	f    *os.File
	id   uint64
	offs []uint64 // n+1: where each block starts, then the end of the last
}

// OpenFile opens the file of run id at path and reads its trailer. A
// file whose trailer is missing or damaged, or whose blocks it does not
// account for, is an error wrapping storage.ErrCorrupt.
func OpenFile(path string, id uint64) (*File, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: the file of run %d is missing", storage.ErrCorrupt, id)
	}
	if err != nil {
		return nil, fmt.Errorf("storage: opening run file: %w", err)
	}
	r, err := readTrailer(f, id)
	if err != nil {
		f.Close()
		return nil, err
	}
	return r, nil
}

func readTrailer(f *os.File, id uint64) (*File, error) {
	bad := func(what string) error {
		return fmt.Errorf("%w: the file of run %d (%s): %s", storage.ErrCorrupt, id, f.Name(), what)
	}
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("storage: %w", err)
	}
	size := st.Size()
	if size < int64(8+trailerFixed) {
		return nil, bad("it is shorter than its trailer")
	}
	var fixed [trailerFixed]byte
	if _, err := f.ReadAt(fixed[:], size-trailerFixed); err != nil {
		return nil, fmt.Errorf("storage: reading run file: %w", err)
	}
	if string(fixed[8:]) != fileMagic {
		return nil, bad("its trailer is missing (the file was cut short or overwritten)")
	}
	n := binary.LittleEndian.Uint32(fixed[:4])
	tlen := 8*(int64(n)+1) + trailerFixed
	if n > maxFileBlocks || tlen > size {
		return nil, bad("its trailer claims more blocks than it holds")
	}
	t := make([]byte, tlen)
	if _, err := f.ReadAt(t, size-tlen); err != nil {
		return nil, fmt.Errorf("storage: reading run file: %w", err)
	}
	body := t[:tlen-crc32.Size-int64(len(fileMagic))]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(t[len(body):]) {
		return nil, bad("its trailer fails its checksum")
	}
	offs := make([]uint64, n+1)
	for i := range offs {
		offs[i] = binary.LittleEndian.Uint64(body[8*i:])
	}
	if offs[0] != 0 || offs[n] != uint64(size-tlen) {
		return nil, bad("its blocks do not fill it")
	}
	for i := range n {
		if offs[i] > offs[i+1] {
			return nil, bad("its block offsets are out of order")
		}
	}
	return &File{f: f, id: id, offs: offs}, nil
}

// Blocks returns the number of blocks in the file.
func (r *File) Blocks() int { return len(r.offs) - 1 }

// Fetch reads block no into dst (grown as needed) and returns it: a Fetch
// of the run.
func (r *File) Fetch(no uint32, dst []byte) ([]byte, error) {
	if int(no) >= r.Blocks() {
		return nil, fmt.Errorf("%w: block %d of run %d is missing from its file", storage.ErrCorrupt, no, r.id)
	}
	lo, hi := r.offs[no], r.offs[no+1]
	n := int(hi - lo)
	if cap(dst) < n {
		dst = make([]byte, n)
	}
	dst = dst[:n]
	if _, err := r.f.ReadAt(dst, int64(lo)); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: block %d of run %d is cut short", storage.ErrCorrupt, no, r.id)
		}
		return nil, fmt.Errorf("storage: reading run file: %w", err)
	}
	return dst, nil
}

// Close closes the file.
func (r *File) Close() error { return r.f.Close() }
