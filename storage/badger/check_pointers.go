package badger

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	bdg "github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/y"

	"github.com/eddysql/eddy/storage"
)

// A value pointer, the value of an entry whose value is in a value log, is
// Badger's valuePointer struct copied as it lies in memory: file ID,
// length and offset, three uint32s in the machine's byte order.
const valuePointerSize = 12

// pointerCheck finds the value pointers of tables and write-ahead logs
// that lead nowhere: into a value log file that is missing, or past the
// end of its committed records (a file cut short at a record boundary,
// which its records alone cannot show). Such a pointer is harmless when a
// newer version of its key exists (value log garbage collection deletes
// files while older versions still point into them), so it is only a
// suspect until Badger, once open, says which version is current.
type pointerCheck struct {
	dir      string
	vlogs    map[uint32]int64 // value log ID → end of its committed records
	suspects []suspect
}

// suspect is a key whose version pointed to a missing value.
type suspect struct {
	key     []byte // the user key
	version uint64
	vlog    string // the value log file the pointer names
	why     string
}

// check records key (with its version suffix) as a suspect if it holds a
// pointer that leads nowhere.
func (p *pointerCheck) check(key []byte, meta byte, value []byte) {
	if meta&bitValuePointer == 0 || meta&bitDelete != 0 {
		return
	}
	var fid, n, off uint32
	why := ""
	if len(value) < valuePointerSize {
		why = fmt.Sprintf("its value pointer is %d bytes", len(value))
	} else {
		fid = binary.NativeEndian.Uint32(value[0:])
		n = binary.NativeEndian.Uint32(value[4:])
		off = binary.NativeEndian.Uint32(value[8:])
	}
	if end, ok := p.vlogs[fid]; why == "" && !ok {
		why = "the file is missing"
	} else if why == "" && (int64(off) < logFileHeader || int64(off)+int64(n) > end) {
		why = fmt.Sprintf("a value at bytes %d to %d lies past the end of its records (byte %d)", off, int64(off)+int64(n), end)
	}
	if why == "" {
		return
	}
	p.suspects = append(p.suspects, suspect{key: bytes.Clone(y.ParseKey(key)), version: y.ParseTs(key),
		vlog: filepath.Join(p.dir, fmt.Sprintf("%06d.vlog", fid)), why: why})
}

// checkValueLogs verifies every value log file and returns the end of
// each one's committed records, and the highest version among them. Only
// the newest may have been in the middle of a write when the process
// died; older ones were completed and cut to their last record when the
// next was started.
func checkValueLogs(l *dirListing) (map[uint32]int64, uint64, error) {
	ends := map[uint32]int64{}
	var top uint64
	for _, fid := range slices.Sorted(maps.Keys(l.vlogs)) {
		path := l.vlogs[fid]
		var sum keySummary
		end, err := scanLogFile(path, l.crashed() && fid == l.maxVlog, func(r record) {
			sum.add(y.ParseKey(r.key))
			top = max(top, y.ParseTs(r.key))
		})
		if err != nil {
			return nil, 0, &storage.CorruptionError{Path: path, What: describeLogFile("large values of stream logs and state (a value log file)", "values of ", " (a value log file)", &sum), Err: err}
		}
		ends[fid] = end
	}
	return ends, top, nil
}

// checkMemtables verifies the write-ahead logs of the memtables, which a
// crash leaves behind, and checks the value pointers of their committed
// records. It returns each log's highest committed version.
func checkMemtables(l *dirListing, ptrs *pointerCheck) ([]uint64, error) {
	var versions []uint64
	for _, id := range slices.Sorted(maps.Keys(l.mems)) {
		path := l.mems[id]
		var sum keySummary
		var top uint64
		_, err := scanLogFile(path, true, func(r record) {
			sum.add(y.ParseKey(r.key))
			top = max(top, y.ParseTs(r.key))
			ptrs.check(r.key, r.meta, r.value)
		})
		if err != nil {
			return nil, &storage.CorruptionError{Path: path, What: describeLogFile(whatLatest, "the latest writes to ", " (a write-ahead log)", &sum), Err: err}
		}
		versions = append(versions, top)
	}
	return versions, nil
}

// describeLogFile says what a damaged log file holds: what its records
// before the damage belong to, if any were read, or else generic.
func describeLogFile(generic, prefix, suffix string, sum *keySummary) string {
	if s := sum.String(); s != "no data" {
		return prefix + s + ", among others" + suffix
	}
	return generic
}

// resolveSuspects reads, through the open database, each suspect key
// whose current version is the one that pointed nowhere, and reports the
// first whose value cannot be read (see value).
func (db *DB) resolveSuspects(sus []suspect) error {
	if len(sus) == 0 {
		return nil
	}
	return db.bdb.View(func(txn *bdg.Txn) error {
		for _, s := range sus {
			if bytes.HasPrefix(s.key, []byte("!badger!")) {
				continue // Badger's own keys, which it does not let us read
			}
			item, err := txn.Get(s.key)
			if isNotFound(err) {
				continue
			}
			if err != nil {
				return err
			}
			if item.Version() != s.version {
				continue
			}
			if err := value(item, func([]byte) error { return nil }); err != nil {
				var sum keySummary
				sum.add(s.key)
				return &storage.CorruptionError{Path: s.vlog, What: "values of " + sum.String() + " (a value log file)",
					Err: fmt.Errorf("%s, and it holds the current value of %s", s.why, describeKey(s.key))}
			}
		}
		return nil
	})
}
