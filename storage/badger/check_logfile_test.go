package badger

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4/y"
)

// appendRecord appends a record in Badger's log file format.
func appendRecord(b []byte, meta byte, key, val []byte) []byte {
	start := len(b)
	b = append(b, meta, 0)
	b = binary.AppendUvarint(b, uint64(len(key)))
	b = binary.AppendUvarint(b, uint64(len(val)))
	b = binary.AppendUvarint(b, 0)
	b = append(b, key...)
	b = append(b, val...)
	return binary.BigEndian.AppendUint32(b, crc32.Checksum(b[start:], castagnoli))
}

// appendTxn appends a committed transaction of one record at ts.
func appendTxn(b []byte, ts uint64, key, val string) []byte {
	b = appendRecord(b, bitTxn, y.KeyWithTs([]byte(key), ts), []byte(val))
	return appendRecord(b, bitFinTxn, y.KeyWithTs([]byte("!badger!txn"), ts), []byte(strconv.FormatUint(ts, 10)))
}

func TestScanLogFile(t *testing.T) {
	header := make([]byte, logFileHeader)
	one := appendTxn(bytes.Clone(header), 1, "kA", "apple")
	two := appendTxn(bytes.Clone(one), 2, "kB", "banana")
	zeros := make([]byte, 4096)
	open := appendRecord(bytes.Clone(two), bitTxn, y.KeyWithTs([]byte("kC"), 3), []byte("cherry")) // no commit record
	partial := append(bytes.Clone(two), open[len(two):len(open)-3]...)
	// A large copy cut short by a kill: written in the middle only.
	headless := bytes.Clone(open)
	clear(headless[len(two) : len(two)+5])
	clear(headless[len(headless)-6:])
	damaged := bytes.Clone(two)
	damaged[len(header)+3] ^= 0x10 // in the first record
	lastDamaged := bytes.Clone(two)
	lastDamaged[len(lastDamaged)-10] ^= 0x01 // in the last commit record
	hugeValue := bytes.Clone(two)
	hugeValue[len(header)+3] = 0xff // the value length's first byte: the record claims more than the file holds
	for _, c := range []struct {
		name    string
		data    []byte
		lenient bool
		end     int    // the committed end, when it opens
		err     string // what the error says, when it does not
	}{
		{name: "whole", data: two, end: len(two)},
		{name: "only a header", data: header, end: len(header)},
		{name: "cut inside a record", data: two[:len(two)-2], err: "the record at byte"},
		{name: "flipped byte", data: damaged, err: "checksum mismatch"},
		{name: "transaction without commit", data: open, err: "without its commit record"},
		{name: "zeros after a clean close", data: append(bytes.Clone(two), zeros...), err: "is damaged"},
		{name: "crash: zeros", lenient: true, data: append(bytes.Clone(two), zeros...), end: len(two)},
		{name: "crash: open transaction", lenient: true, data: append(bytes.Clone(open), zeros...), end: len(two)},
		{name: "crash: partial record", lenient: true, data: append(partial, zeros...), end: len(two)},
		{name: "crash: damaged record", lenient: true, data: append(bytes.Clone(damaged), zeros...), err: "though it was written whole"},
		{name: "crash: damaged last record", lenient: true, data: append(bytes.Clone(lastDamaged), zeros...), err: "though it was written whole"},
		{name: "crash: header claiming too much, then records", lenient: true, data: append(bytes.Clone(hugeValue), zeros...), err: "a whole record follows it"},
		{name: "crash: partial record, then a record", lenient: true, data: append(append(bytes.Clone(partial), zeros[:100]...), two[len(header):]...), err: "a whole record follows it"},
		{name: "crash: zeros, then a stray byte", lenient: true, data: append(append(bytes.Clone(two), zeros...), 7), end: len(two)},
		{name: "crash: record with its head and tail unwritten", lenient: true, data: append(headless, zeros...), end: len(two)},
		{name: "crash: whole record, then data", lenient: true, data: append(append(bytes.Clone(partial[:len(two)+12]), zeros[:40]...), 7), err: "data follows it"},
		{name: "encrypted", data: append([]byte{0, 0, 0, 0, 0, 0, 0, 1}, two[8:]...), err: "encryption key 1"},
		{name: "empty", data: nil, err: "it is empty"},
		{name: "crash: empty", lenient: true, data: nil, end: 0},
		{name: "crash: part of the header", lenient: true, data: header[:5], end: 0},
		{name: "part of the header after a clean close", data: header[:5], err: "shorter than its header"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "000001.vlog")
			must(t, os.WriteFile(path, c.data, 0o644))
			var keys []string
			end, err := scanLogFile(path, c.lenient, func(r record) { keys = append(keys, string(y.ParseKey(r.key))) })
			switch {
			case c.err == "" && (err != nil || end != int64(c.end)):
				t.Fatalf("end %d, %v; want %d", end, err, c.end)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Fatalf("got %v, want an error saying %q", err, c.err)
			}
			if c.err == "" && c.end == len(two) && strings.Join(keys, ",") != "kA,kB" {
				t.Errorf("committed records visited: %v", keys)
			}
		})
	}
}
