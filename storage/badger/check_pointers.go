package badger

import (
	"encoding/binary"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

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
// which its records alone cannot show). Such a pointer is harmless when it
// is not its key's current version (value log garbage collection deletes
// files while older versions still point into them), so it is only a
// suspect until resolveSuspects has looked at the key's other versions.
type pointerCheck struct {
	dir      string
	vlogs    map[uint32]int64 // value log ID → end of its committed records
	suspects map[string]bool  // user keys with a version pointing nowhere
}

// problem says why the entry with meta and value points to a missing
// value, or returns "" if it does not.
func (p *pointerCheck) problem(meta byte, value []byte) (fid uint32, why string) {
	if meta&bitValuePointer == 0 || meta&bitDelete != 0 {
		return 0, ""
	}
	if len(value) < valuePointerSize {
		return 0, fmt.Sprintf("its value pointer is %d bytes", len(value))
	}
	fid = binary.NativeEndian.Uint32(value[0:])
	n := int64(binary.NativeEndian.Uint32(value[4:]))
	off := int64(binary.NativeEndian.Uint32(value[8:]))
	end, ok := p.vlogs[fid]
	switch {
	case !ok:
		return fid, "the file is missing"
	case off < logFileHeader || off+n > end:
		return fid, fmt.Sprintf("a value at bytes %d to %d lies past the end of its records (byte %d)", off, off+n, end)
	}
	return fid, ""
}

// vlogPath returns the path of value log fid.
func (p *pointerCheck) vlogPath(fid uint32) string {
	return filepath.Join(p.dir, fmt.Sprintf("%06d.vlog", fid))
}

// check records key (with its version suffix) as a suspect if it holds a
// pointer that leads nowhere.
func (p *pointerCheck) check(key []byte, meta byte, value []byte) {
	if _, why := p.problem(meta, value); why != "" {
		if p.suspects == nil {
			p.suspects = map[string]bool{}
		}
		p.suspects[string(y.ParseKey(key))] = true
	}
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
		if fid == l.maxVlog || l.crashed() {
			// Badger creates a value log file when it opens the directory
			// (and when one fills): a process killed before the file's
			// header was written leaves it shorter than that, even in a
			// directory closed cleanly before — a kill while opening. It
			// holds nothing (a value pointer into it fails the pointer
			// check); Open removes it, as Badger refuses to create it again.
			// A crashed directory may hold one that is not the newest (the
			// crash harness met an empty one below a newer file, rarely);
			// it holds nothing either, and goes the same way.
			if st, err := os.Stat(path); err == nil && st.Size() < logFileHeader {
				ends[fid] = 0
				l.headerless = append(l.headerless, path)
				continue
			}
		}
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
