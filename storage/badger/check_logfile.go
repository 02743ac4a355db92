package badger

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"strconv"

	"github.com/dgraph-io/badger/v4/y"
	"github.com/dgraph-io/ristretto/v2/z"
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
	if klen > maxRecordKey || vlen > uint64(size) {
		return r, ext, fmt.Errorf("its header claims a %d-byte key and a %d-byte value", klen, vlen)
	}
	end := off + int64(p) + int64(klen) + int64(vlen) + crc32.Size
	if end > size {
		return r, size, fmt.Errorf("the file ends inside it: it needs %d bytes, %d remain", end-off, size-off)
	}
	ext = end
	sum := crc32.Checksum(data[off:end-crc32.Size], castagnoli)
	if stored := binary.BigEndian.Uint32(data[end-crc32.Size : end]); stored != sum {
		return r, ext, fmt.Errorf("checksum mismatch (stored %08x, computed %08x)", stored, sum)
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
// may end in a transaction without its commit record and one record cut
// short, followed by zeros: the file is preallocated with zeros, and what
// a process writes to it before dying is in it (it is memory-mapped). So
// a damaged record with data after it is an error either way: cutting the
// file there, as Badger would, loses the committed records that follow.
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
	var stop error   // why reading stopped before the end
	var stopExt int64
	for off < size && stop == nil {
		r, ext, err := decodeRecord(data, off)
		if err != nil {
			stop, stopExt = err, ext
			break
		}
		switch {
		case r.meta&bitTxn != 0:
			ts := y.ParseTs(r.key)
			if txnTs == 0 {
				txnTs = ts
			}
			if ts != txnTs {
				stop = fmt.Errorf("a record of transaction %d interrupts transaction %d", ts, txnTs)
			} else {
				pending = append(pending, r)
			}
		case r.meta&bitFinTxn != 0:
			ts, err := strconv.ParseUint(string(r.value), 10, 64)
			if err != nil || ts != txnTs {
				stop = fmt.Errorf("a commit record for transaction %q does not match transaction %d", r.value, txnTs)
				break
			}
			for _, p := range pending {
				visit(p)
			}
			pending, txnTs, committed = pending[:0], 0, r.end
		default:
			if txnTs != 0 {
				stop = fmt.Errorf("a record outside any transaction interrupts transaction %d", txnTs)
				break
			}
			visit(r)
			committed = r.end
		}
		if stop != nil {
			stopExt = r.end
			break
		}
		off = r.end
	}
	switch {
	case stop == nil && committed == size:
		return committed, nil
	case stop == nil && lenient:
		return committed, nil // a transaction the crash interrupted
	case stop == nil:
		return 0, fmt.Errorf("it ends in transaction %d without its commit record, at byte %d of %d", txnTs, committed, size)
	case !lenient:
		return 0, fmt.Errorf("the record at byte %d of %d is damaged: %w", off, size, stop)
	}
	if nz := firstNonZero(f, data, stopExt); nz >= 0 {
		return 0, fmt.Errorf("the record at byte %d is damaged (%w), and data follows it at byte %d: everything after byte %d would be lost",
			off, stop, nz, committed)
	}
	return committed, nil
}

// firstNonZero returns the offset of the first non-zero byte of data (the
// mapping of f) at or after from, or -1. It reads only the file's data
// regions where the system can say where they are (see dataRegions), so
// the zeros of a preallocated file cost nothing.
func firstNonZero(f *os.File, data []byte, from int64) int64 {
	size := int64(len(data))
	for lo, hi := range dataRegions(f, from, size) {
		for i := lo; i < hi; i++ {
			if data[i] != 0 {
				return i
			}
		}
	}
	return -1
}
