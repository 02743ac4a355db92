package badger

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	bdg "github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/dgraph-io/badger/v4/table"

	"github.com/eddysql/eddy/storage"
)

// The files of a data directory besides tables (NNNNNN.sst), value logs
// (NNNNNN.vlog) and memtable write-ahead logs (NNNNN.mem).
const (
	// identityFile marks a directory as eddy's (see identity.go).
	identityFile = "EDDY"
	// keyRegistryFile holds Badger's encryption keys; eddy uses none.
	keyRegistryFile = "KEYREGISTRY"
	// discardFile holds Badger's per value log garbage statistics.
	discardFile = "DISCARD"
	// badgerLockFile is Badger's pid file: it exists while the database
	// is open and is removed by a clean close.
	badgerLockFile = "LOCK"
)

// dirListing is what a data directory holds, by kind of file.
type dirListing struct {
	dir                              string
	identity, manifest               bool
	keyRegistry, discard, badgerLock bool
	tables                           map[uint64]string // table ID → path
	vlogs                            map[uint32]string // value log ID → path
	mems                             map[int]string    // memtable WAL ID → path
	maxVlog                          uint32
	// headerless are the value log files a kill left shorter than their
	// header (checkValueLogs: the newest, or any of a crashed directory),
	// for Open to remove.
	headerless []string
}

// listDir reads what dir holds. Files eddy does not know are left out.
func listDir(dir string) (*dirListing, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("storage: reading data directory: %w", err)
	}
	l := &dirListing{dir: dir, tables: map[uint64]string{}, vlogs: map[uint32]string{}, mems: map[int]string{}}
	for _, e := range ents {
		name := e.Name()
		path := filepath.Join(dir, name)
		switch {
		case name == identityFile:
			l.identity = true
		case name == bdg.ManifestFilename:
			l.manifest = true
		case name == keyRegistryFile:
			l.keyRegistry = true
		case name == discardFile:
			l.discard = true
		case name == badgerLockFile:
			l.badgerLock = true
		case strings.HasSuffix(name, ".sst"):
			if id, ok := table.ParseFileID(name); ok {
				l.tables[id] = path
			}
		case strings.HasSuffix(name, ".vlog"):
			if id, err := strconv.ParseUint(strings.TrimSuffix(name, ".vlog"), 10, 32); err == nil {
				l.vlogs[uint32(id)] = path
				l.maxVlog = max(l.maxVlog, uint32(id))
			}
		case strings.HasSuffix(name, ".mem"):
			if id, err := strconv.Atoi(strings.TrimSuffix(name, ".mem")); err == nil {
				l.mems[id] = path
			}
		}
	}
	return l, nil
}

// dataFiles counts the files that hold data: tables, value logs and
// write-ahead logs.
func (l *dirListing) dataFiles() int { return len(l.tables) + len(l.vlogs) + len(l.mems) }

// fresh reports whether the directory holds nothing of eddy's or
// Badger's: a new data directory.
func (l *dirListing) fresh() bool {
	return !l.identity && !l.manifest && !l.keyRegistry && !l.discard && l.dataFiles() == 0
}

// crashed reports whether the database was not closed cleanly: Badger's
// pid file is still there, or memtable write-ahead logs are (a clean close
// flushes every memtable and deletes its log). Only then may files end in
// a partly written record, which Badger discards when it opens them.
func (l *dirListing) crashed() bool { return l.badgerLock || len(l.mems) > 0 }

func (l *dirListing) path(name string) string { return filepath.Join(l.dir, name) }

// checked is what checkDir learned that Open still needs.
type checked struct {
	fresh bool // a new directory: nothing to check
	adopt bool // no identity file yet: write one after opening
	// emptyMem is the newest write-ahead log of a crashed directory when
	// it is empty: Badger was killed between creating it and sizing it,
	// and refuses to open it. Open removes it (it never held a write).
	emptyMem string
	// headerlessVlog are the value log files shorter than their header
	// (killed while Badger created them): Open removes them too.
	headerlessVlog []string
}

// checkDir verifies every file of the data directory dir before Badger
// opens it, because Badger, given damaged files, panics in goroutines of
// its own (a truncated table), starts over (a missing MANIFEST: it writes
// an empty one and deletes every table), or silently drops data (a table
// failing its checksum is skipped; a value log or write-ahead log is cut
// at its first bad record). It reads every file once and changes none.
// Damage is reported as a *storage.CorruptionError naming the file.
func checkDir(dir string) (*checked, error) {
	l, err := listDir(dir)
	if err != nil {
		return nil, err
	}
	if l.fresh() {
		return &checked{fresh: true}, nil
	}
	c := &checked{adopt: !l.identity}
	if l.crashed() && len(l.mems) > 0 {
		newest := slices.Max(slices.Collect(maps.Keys(l.mems)))
		if info, err := os.Stat(l.mems[newest]); err == nil && info.Size() == 0 {
			c.emptyMem = l.mems[newest]
			delete(l.mems, newest)
		}
	}
	if l.identity {
		if err := checkIdentity(l.path(identityFile)); err != nil {
			return nil, err
		}
	}
	if !l.manifest {
		why := fmt.Sprintf("it is missing, but the directory holds %d data files", l.dataFiles())
		if l.identity {
			why = fmt.Sprintf("it is missing from a directory eddy created (it holds %d data files)", l.dataFiles())
		}
		return nil, &storage.CorruptionError{Path: l.path(bdg.ManifestFilename), What: whatManifest, Err: errors.New(why)}
	}
	if l.keyRegistry {
		if err := checkKeyRegistry(l.path(keyRegistryFile)); err != nil {
			return nil, err
		}
	}
	if l.discard {
		if err := checkDiscard(l.path(discardFile)); err != nil {
			return nil, err
		}
	}
	m, err := checkManifest(l.path(bdg.ManifestFilename))
	if err != nil {
		return nil, err
	}
	vlogs, vlogVersion, err := checkValueLogs(l)
	if err != nil {
		return nil, err
	}
	c.headerlessVlog = l.headerless
	ptrs := &pointerCheck{vlogs: vlogs, dir: dir}
	memVersions, err := checkMemtables(l, ptrs)
	if err != nil {
		return nil, err
	}
	tableVersion, err := checkTables(l, m, memVersions, ptrs)
	if err != nil {
		return nil, err
	}
	if err := resolveSuspects(l, m, ptrs); err != nil {
		return nil, err
	}
	// An open database always has a write-ahead log; a process killed
	// while closing it, after the last memtable was flushed and its log
	// deleted, leaves Badger's LOCK without one. A value newer than every
	// table then means a log with the latest writes was lost.
	// An empty newest log (see checked.emptyMem) held no write only if
	// the value log holds none newer than the tables and the other logs.
	if c.emptyMem != "" && vlogVersion > max(tableVersion, slices.Max(append(memVersions, 0))) {
		return nil, &storage.CorruptionError{Path: c.emptyMem, What: whatLatest,
			Err: fmt.Errorf("it is empty, but the value log holds values written after every table and write-ahead log (version %d)", vlogVersion)}
	}
	if l.badgerLock && len(l.mems) == 0 && c.emptyMem == "" && vlogVersion > tableVersion {
		return nil, &storage.CorruptionError{Path: l.path("*.mem"), What: whatLatest,
			Err: fmt.Errorf("there is none, but Badger's LOCK file says the database was open when it stopped, and the value log holds values written after every table (version %d, the tables end at %d)",
				vlogVersion, tableVersion)}
	}
	return c, nil
}

// checkTables verifies every table the MANIFEST lists, in ID order, and
// then the tables it does not list, which Badger deletes when it opens the
// directory. After a crash those are expected: the output of a flush or a
// compaction whose change to the MANIFEST was not written (their data is
// still in a write-ahead log or in the listed tables they were built
// from), or the inputs of a compaction whose change was written but which
// were not deleted yet. A table that is none of these, or any unlisted
// table after a clean close, means the MANIFEST lost changes, and is
// reported rather than deleted.
// It returns the highest version of the listed tables.
func checkTables(l *dirListing, m bdg.Manifest, memVersions []uint64, ptrs *pointerCheck) (uint64, error) {
	ids := slices.Sorted(maps.Keys(m.Tables))
	var maxVersion uint64
	for _, id := range ids {
		path, ok := l.tables[id]
		if !ok {
			return 0, &storage.CorruptionError{Path: table.NewFilename(id, l.dir), What: "part of the database (a table file)",
				Err: fmt.Errorf("it is missing (the MANIFEST lists it at level %d)", m.Tables[id].Level)}
		}
		v, err := checkTable(path, m.Tables[id], ptrs)
		if err != nil {
			return 0, err
		}
		maxVersion = max(maxVersion, v)
	}
	var lost []string
	for _, id := range slices.Sorted(maps.Keys(l.tables)) {
		if _, ok := m.Tables[id]; ok {
			continue
		}
		if l.crashed() && orphanExplained(l.tables[id], id, ids, maxVersion, memVersions) {
			continue
		}
		lost = append(lost, table.IDToFilename(id))
	}
	if len(lost) == 0 {
		return maxVersion, nil
	}
	state := "a cleanly closed database"
	if l.crashed() {
		state = "a database that crashed, and their data is in no listed table or write-ahead log"
	}
	return 0, &storage.CorruptionError{Path: l.path(bdg.ManifestFilename), What: whatManifest,
		Err: fmt.Errorf("it does not list the table files %s of %s (has it lost its end?); opening would delete them",
			joinAnd(lost), state)}
}

// orphanExplained reports whether a table the MANIFEST does not list is
// one a crash leaves: an input of a compaction that replaced it (its ID is
// below a listed table's), a compaction's output (its versions are all in
// listed tables), or a flush's output (its highest version is a
// write-ahead log's). A table whose index cannot be read was being written.
func orphanExplained(path string, id uint64, listed []uint64, listedVersion uint64, memVersions []uint64) bool {
	if len(listed) > 0 && id < listed[len(listed)-1] {
		return true
	}
	v, ok := tableMaxVersion(path, options.Snappy)
	return !ok || v <= listedVersion || slices.Contains(memVersions, v)
}
