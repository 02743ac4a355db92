package badger

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/dgraph-io/badger/v4/y"
	"github.com/dgraph-io/ristretto/v2/z"

	"github.com/eddysql/eddy/storage/internal/sparse"
)

// Badger's value logs (NNNNNN.vlog) and memtable write-ahead logs
// (NNNNN.mem) share one format: a 20-byte file header (an 8-byte
// big-endian encryption key ID, 0 when unencrypted, and a 12-byte IV),
// then records of meta byte, user meta byte, uvarint key length, uvarint
// value length, uvarint expiry, key, value and the big-endian CRC-32C of
// everything before it. A transaction's records in a write-ahead log
// carry bitTxn and end with a bitFinTxn record whose value is the commit
// timestamp; value logs carry no transaction marks.
const (
	logFileHeader   = 20
	maxRecordHeader = 22
	maxRecordKey    = 1 << 16 // Badger's limit; a longer key means damage

	bitDelete       = 1 << 0
	bitValuePointer = 1 << 1
	bitTxn          = 1 << 6
	bitFinTxn       = 1 << 7
)

// record is one decoded record; key and value alias the file's mapping.
type record struct {
	off, end   int64
	meta       byte
	key, value []byte
}

// checksumError is a record whose checksum does not match its bytes.
type checksumError struct{ stored, computed uint32 }

func (e *checksumError) Error() string {
	return fmt.Sprintf("checksum mismatch (stored %08x, computed %08x)", e.stored, e.computed)
}

// torn reports whether the stored checksum is what writing the record up
// to a byte of its checksum and no further leaves: the checksum's first
// bytes, then zeros.
func (e *checksumError) torn() bool {
	var s, c [crc32.Size]byte
	binary.BigEndian.PutUint32(s[:], e.stored)
	binary.BigEndian.PutUint32(c[:], e.computed)
	k := 0
	for k < len(s) && s[k] == c[k] {
		k++
	}
	return bytes.Count(s[k:], []byte{0}) == len(s)-k
}

// decodeRecord decodes the record at off. When it fails, ext is where the
// record would end by what its header says (or where the header would),
// so that the caller can check what lies beyond it.
func decodeRecord(data []byte, off int64) (r record, ext int64, err error) {
	size := int64(len(data))
	ext = min(off+maxRecordHeader, size)
	h := data[off:]
	if len(h) < 2 {
		return r, ext, errors.New("the file ends inside a record's header")
	}
	p := 2
	var lens [3]uint64
	for i := range lens {
		v, n := binary.Uvarint(h[p:])
		if n <= 0 {
			return r, ext, errors.New("its header does not decode")
		}
		lens[i], p = v, p+n
	}
	klen, vlen := lens[0], lens[1]
	if klen > maxRecordKey || vlen > math.MaxUint32 {
		return r, ext, fmt.Errorf("its header claims a %d-byte key and a %d-byte value", klen, vlen)
	}
	end := off + int64(p) + int64(klen) + int64(vlen) + crc32.Size
	if end > size {
		// Badger grows a file before writing past its end, so a record
		// being written never claims more than the file holds: the
		// header is damaged, or the file cut, and whatever follows the
		// header is not part of a record.
		return r, off + int64(p), fmt.Errorf("the file ends inside it (it needs %d bytes, %d remain): is the file cut short?", end-off, size-off)
	}
	ext = end
	sum := crc32.Checksum(data[off:end-crc32.Size], castagnoli)
	if stored := binary.BigEndian.Uint32(data[end-crc32.Size : end]); stored != sum {
		return r, ext, &checksumError{stored: stored, computed: sum}
	}
	if klen == 0 {
		return r, ext, errors.New("it has no key")
	}
	kv := data[off+int64(p) : end-crc32.Size]
	return record{off: off, end: end, meta: h[0], key: kv[:klen], value: kv[klen:]}, ext, nil
}

// scanLogFile reads every record of the value log or write-ahead log at
// path, as Badger replays it, and calls visit for each committed one. It
// returns the end of the last committed record, which is where Badger
// cuts the file when it opens it.
//
// A file closed cleanly must consist of whole, committed records up to its
// last byte. A file Badger was writing when the process died (lenient)
// may also be, if a value log, empty or shorter than its header (created,
// not yet bootstrapped: Badger bootstraps it again), or end in a transaction
// without its commit record and in one record cut short (see
// checkTornTail). Anything else is damage: cutting
// the file at a damaged record, as Badger would, loses the committed
// records after it.
func scanLogFile(path string, lenient bool, visit func(r record)) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := st.Size()
	switch {
	case lenient && size < logFileHeader && filepath.Ext(path) == ".vlog":
		// Killed after creating the value log file and before its header
		// was written: Badger bootstraps such a file as a new one (not a
		// write-ahead log, which it refuses to open).
		return 0, nil
	case size == 0:
		return 0, errors.New("it is empty")
	case size < logFileHeader:
		return 0, fmt.Errorf("it is %d bytes, shorter than its header", size)
	}
	data, err := z.Mmap(f, false, size)
	if err != nil {
		return 0, err
	}
	defer z.Munmap(data)
	if key := binary.BigEndian.Uint64(data); key != 0 {
		return 0, fmt.Errorf("its header names encryption key %d, but eddy never encrypts", key)
	}
	off, committed := int64(logFileHeader), int64(logFileHeader)
	var pending []record
	var txnTs uint64 // the open transaction's timestamp, 0 if none
	for off < size {
		r, ext, err := decodeRecord(data, off)
		if err != nil {
			if !lenient {
				return 0, fmt.Errorf("the record at byte %d of %d is damaged: %w", off, size, err)
			}
			if err := checkTornTail(f, data, off, ext, err); err != nil {
				return 0, err
			}
			return committed, nil
		}
		var bad error // a whole record out of place, which no crash leaves
		switch {
		case r.meta&bitTxn != 0:
			ts := y.ParseTs(r.key)
			if txnTs == 0 {
				txnTs = ts
			}
			if ts != txnTs {
				bad = fmt.Errorf("a record of transaction %d interrupts transaction %d", ts, txnTs)
			}
			pending = append(pending, r)
		case r.meta&bitFinTxn != 0:
			ts, err := strconv.ParseUint(string(r.value), 10, 64)
			if err != nil || ts != txnTs {
				bad = fmt.Errorf("a commit record for transaction %q does not match transaction %d", r.value, txnTs)
				break
			}
			for _, p := range pending {
				visit(p)
			}
			pending, txnTs, committed = pending[:0], 0, r.end
		default:
			if txnTs != 0 {
				bad = fmt.Errorf("a record outside any transaction interrupts transaction %d", txnTs)
				break
			}
			visit(r)
			committed = r.end
		}
		if bad != nil {
			return 0, fmt.Errorf("the record at byte %d of %d is damaged: %w", off, size, bad)
		}
		off = r.end
	}
	if committed != size && !lenient {
		return 0, fmt.Errorf("it ends in transaction %d without its commit record, at byte %d of %d", txnTs, committed, size)
	}
	return committed, nil // after a crash: the end of a transaction it interrupted
}

// checkTornTail checks that the record at off, which failed with why and
// would extend to ext, is one a process dying in the middle of writing it
// leaves. Badger preallocates its log files with zeros and writes each
// record into a memory mapping with one copy, and what a process writes
// there survives it. A copy that is cut short leaves some of the record's
// bytes written and others zero, not always a prefix: Go's memmove stores
// a large copy's first (up to 32) and last (up to 128) bytes after the
// rest. So a torn record may have any bytes, but its checksum is zero or
// cut short itself, no whole record follows it, and if its header's key
// length was written (a record's key is never empty), so that where it
// ends is known, the file is zero past it. Anything else is damage.
// (A power failure can leave pages of the last writes missing in any
// order, which this can report as damage.)
func checkTornTail(f *os.File, data []byte, off, ext int64, why error) error {
	headed := off+2 < int64(len(data)) && data[off+2] != 0 // its key length was written
	var ce *checksumError
	if headed && errors.As(why, &ce) && !ce.torn() {
		return fmt.Errorf("the record at byte %d is damaged: %w, though it was written whole", off, why)
	}
	if next := findRecord(f, data, off+1); next >= 0 {
		return fmt.Errorf("the record at byte %d is damaged (%w), and a whole record follows it at byte %d: everything from byte %d would be lost",
			off, why, next, off)
	}
	if !headed {
		return nil // where it ends is unknown
	}
	if nz := firstNonZero(f, data, ext); nz >= 0 {
		return fmt.Errorf("the record at byte %d is damaged (%w), and data follows it at byte %d: everything from byte %d would be lost",
			off, why, nz, off)
	}
	return nil
}

// firstNonZero returns the offset of the first non-zero byte of data (the
// mapping of f) at or after from, or -1. It reads only the file's data
// regions where the system can say where they are (sparse.DataRegions),
// so the zeros of a preallocated file cost nothing.
func firstNonZero(f *os.File, data []byte, from int64) int64 {
	for lo, hi := range sparse.DataRegions(f, from, int64(len(data))) {
		for i := lo; i < hi; i++ {
			if data[i] != 0 {
				return i
			}
		}
	}
	return -1
}

// eddySpaces are the first bytes of the keys eddy and Badger write.
var eddySpaces = []byte{spaceKV, spaceLog, spaceState, '!'}

// findRecord returns the offset of the first whole record of eddy's at or
// after from, or -1. Only positions that look like the start of one are
// decoded: eddy sets no user meta and no expiry, and its keys start with
// one of its key spaces (or Badger's '!') and end in an 8-byte version.
func findRecord(f *os.File, data []byte, from int64) int64 {
	const knownMeta = bitDelete | bitValuePointer | 1<<2 | 1<<3 | bitTxn | bitFinTxn
	for lo, hi := range sparse.DataRegions(f, from, int64(len(data))) {
		for i := lo; i < hi-5; i++ {
			if data[i]&^knownMeta != 0 || data[i+1] != 0 {
				continue
			}
			if klen, n := binary.Uvarint(data[i+2:]); n <= 0 || klen < 9 || klen > maxRecordKey {
				continue
			}
			if r, _, err := decodeRecord(data, i); err == nil && bytes.IndexByte(eddySpaces, r.key[0]) >= 0 {
				return i
			}
		}
	}
	return -1
}
