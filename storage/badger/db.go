package badger

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	bdg "github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/internal/guard"
	"github.com/eddysql/eddy/storage/internal/logcore"
	"github.com/eddysql/eddy/storage/internal/statecore"
)

// Options configures Open. The zero value is the default.
type Options struct {
	// Logger receives Badger's warnings and errors; nil discards them.
	Logger *slog.Logger
	// ValueLogGCInterval is how often the value log is garbage-collected
	// to reclaim the space of dropped logs and overwritten values; 0 means
	// every 10 minutes and a negative value disables it. In-memory
	// databases have no value log.
	ValueLogGCInterval time.Duration

	// memTableSize overrides Badger's memtable size in tests, which
	// shrink it to reach the per-transaction limit (15% of it) cheaply.
	memTableSize int64
}

// Tuning of the Badger database, with the reason for each value.
const (
	// valueThreshold sends values of 64 KiB and more (log entries of more
	// than a few hundred rows) to Badger's value log, so the LSM tree
	// holds small keys and pointers and compaction does not rewrite log
	// data again and again. Catalog and state values stay in the tree.
	valueThreshold = 64 << 10
	// numCompactors matches the two cores eddy is sized for; Badger's
	// default of 4 only adds contention there.
	numCompactors = 2
	// memMemTableSize is the memtable size of in-memory databases: tests
	// open many, and Badger allocates each memtable's arena up front.
	memMemTableSize = 16 << 20
	// defaultGCInterval is the default ValueLogGCInterval.
	defaultGCInterval = 10 * time.Minute
)

// DB is a storage.DB on Badger.
type DB struct {
	dir  string
	bdb  *bdg.DB
	lock *dirLock // nil for in-memory databases
	g    *guard.Guard
	log  *logcore.Log
	gc   *gcLoop // nil when disabled

	maxValue int64 // the longest value Badger accepts (see checkEntry)

	jobs statecore.Jobs // the jobs whose state store is open

	// dropMu keeps writes away from a DropPrefix: Badger fails writes
	// made while one runs (ErrBlockedWrites) instead of making them wait,
	// so writers hold dropMu shared (see write) and Log.Drop and
	// DropState hold it exclusively.
	dropMu sync.RWMutex
}

var _ storage.DB = (*DB)(nil)

// Open opens (creating if needed) the database in dir, or an in-memory
// database when dir is "". It fails with an error wrapping storage.ErrInUse
// when another process, or another Open in this one, has dir open.
//
// Before Badger sees an existing directory, Open verifies every file in it
// (see checkDir); damage is a *storage.CorruptionError naming the file and
// what it holds, and nothing in the directory is changed. A new directory
// gets an identity file (EDDY) once Badger has created its files.
func Open(dir string, opts Options) (*DB, error) {
	var bo bdg.Options
	var lock *dirLock
	var chk *checked
	if dir == "" {
		bo = bdg.DefaultOptions("").WithInMemory(true).WithMemTableSize(memMemTableSize)
	} else {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("storage: creating data directory: %w", err)
		}
		var err error
		if lock, err = lockDir(dir); err != nil {
			return nil, err
		}
		if chk, err = checkDir(dir); err != nil {
			lock.release()
			return nil, err
		}
		for _, debris := range append([]string{chk.emptyMem}, chk.headerlessVlog...) {
			if debris == "" {
				continue
			}
			if err := os.Remove(debris); err != nil {
				lock.release()
				return nil, fmt.Errorf("storage: removing the empty file a crash left: %w", err)
			}
		}
		bo = bdg.DefaultOptions(dir).WithValueThreshold(valueThreshold)
	}
	if opts.memTableSize > 0 {
		bo = bo.WithMemTableSize(opts.memTableSize)
	}
	// Tables are verified whole by checkDir, so Badger verifies none
	// itself: with OnTableRead it would skip a table that fails (silently
	// losing its data), and with OnBlockRead a block failing later would
	// end iterations early rather than fail them. Values read from the
	// value log are verified against their record's checksum, so damage
	// arising while eddy runs is an error, not garbage.
	bo = bo.WithLogger(quietLogger{opts.Logger}).
		WithSyncWrites(true).
		WithDetectConflicts(false).
		WithNumCompactors(numCompactors).
		WithMetricsEnabled(false).
		WithChecksumVerificationMode(options.NoVerification).
		WithVerifyValueChecksum(true)
	bdb, err := openBadger(bo)
	if err != nil {
		lock.release()
		return nil, err
	}
	maxValue := bo.ValueLogFileSize
	if bo.InMemory {
		// An in-memory database keeps every value in the LSM tree,
		// which takes values up to the threshold only.
		maxValue = bo.ValueThreshold
	}
	db := &DB{dir: dir, bdb: bdb, lock: lock, g: guard.New(), maxValue: maxValue}
	if chk != nil && (chk.fresh || chk.adopt) {
		if err := writeIdentity(dir); err != nil {
			bdb.Close()
			lock.release()
			return nil, err
		}
	}
	if dir != "" {
		if err := db.sweepRunDirs(); err != nil {
			bdb.Close()
			lock.release()
			return nil, err
		}
	}
	db.log = logcore.New(logBackend{db}, db.g)
	if interval := opts.ValueLogGCInterval; dir != "" && interval >= 0 {
		if interval == 0 {
			interval = defaultGCInterval
		}
		db.gc = startGC(db, interval)
	}
	return db, nil
}

// openBadger opens Badger, turning a panic in this goroutine into an
// error. (Badger also opens tables in goroutines of its own, whose panics
// cannot be recovered; checkDir has read every table before.)
func openBadger(bo bdg.Options) (bdb *bdg.DB, err error) {
	defer func() {
		if p := recover(); p != nil {
			bdb, err = nil, &storage.CorruptionError{Path: bo.Dir, What: "the database",
				Err: fmt.Errorf("Badger failed while opening it: %s", firstLine(p))}
		}
	}()
	bdb, err = bdg.Open(bo)
	if err != nil {
		return nil, fmt.Errorf("storage: opening data directory %q: %w", bo.Dir, err)
	}
	return bdb, nil
}

// Dir returns the data directory, "" for an in-memory database.
func (db *DB) Dir() string { return db.dir }

// KV implements storage.DB.
func (db *DB) KV() storage.KV { return kv{db} }

// Log implements storage.DB.
func (db *DB) Log() storage.Log { return db.log }

// State implements storage.DB. It finishes a drop (see DropState) or a
// large commit that a crash interrupted before returning the store.
func (db *DB) State(job string) (storage.StateStore, error) {
	return db.jobs.Open(job, db.g, func() (statecore.Backend, error) {
		b, err := db.openState(job)
		if err != nil {
			return nil, fmt.Errorf("storage: opening state of job %q: %w", job, err)
		}
		return b, nil
	})
}

// write runs fn, which writes to Badger, while no DropPrefix runs. fn must
// not call write itself.
func (db *DB) write(fn func() error) error {
	db.dropMu.RLock()
	defer db.dropMu.RUnlock()
	return fn()
}

// Close implements storage.DB. It stops Badger's goroutines and the value
// log collector before returning.
func (db *DB) Close() error {
	if !db.g.Close() {
		return nil
	}
	if db.gc != nil {
		db.gc.stop()
	}
	err := db.bdb.Close()
	db.lock.release()
	if err != nil {
		return fmt.Errorf("storage: closing: %w", err)
	}
	return nil
}

// quietLogger passes Badger's warnings and errors to an slog.Logger and
// drops its info and debug chatter.
type quietLogger struct{ l *slog.Logger }

func (q quietLogger) Errorf(format string, args ...any) {
	if q.l != nil {
		q.l.Error("badger: " + fmt.Sprintf(format, args...))
	}
}

func (q quietLogger) Warningf(format string, args ...any) {
	if q.l != nil {
		q.l.Warn("badger: " + fmt.Sprintf(format, args...))
	}
}

func (quietLogger) Infof(string, ...any) {}

func (quietLogger) Debugf(string, ...any) {}

// isNotFound reports whether err is Badger's missing-key error.
func isNotFound(err error) bool { return errors.Is(err, bdg.ErrKeyNotFound) }

// gcDiscardRatio is the share of a value log file that must be garbage
// before it is rewritten; Badger recommends 0.5 to balance the rewrite's
// cost against the space won.
const gcDiscardRatio = 0.5

// gcLoop collects Badger's value log periodically. Its goroutine is owned
// by the DB, which stops it (and waits) before closing Badger.
type gcLoop struct {
	quit chan struct{}
	done sync.WaitGroup
}

func startGC(db *DB, interval time.Duration) *gcLoop {
	g := &gcLoop{quit: make(chan struct{})}
	g.done.Add(1)
	go func() {
		defer g.done.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-g.quit:
				return
			case <-t.C:
			}
			// Each successful run rewrites one file; repeat until nothing
			// is worth rewriting or we are asked to stop.
			gc := func() error { return db.bdb.RunValueLogGC(gcDiscardRatio) }
			for db.write(gc) == nil {
				select {
				case <-g.quit:
					return
				default:
				}
			}
		}
	}()
	return g
}

func (g *gcLoop) stop() {
	close(g.quit)
	g.done.Wait()
}
