package badger

import (
	"context"
	"errors"
	"fmt"
	"sync"

	bdg "github.com/dgraph-io/badger/v4"
	"github.com/eddysql/eddy/internal/giveway"
	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/internal/runs"
	"github.com/eddysql/eddy/storage/internal/statecore"
)

// stateBackend holds one job's committed state under s <job>: a manifest
// naming sorted runs (see state_manifest.go). A commit writes the
// checkpoint's mutations as one run — a few large values written in
// sequence, rather than a point write per key into the LSM tree — and
// compacts runs as they accumulate (state_compact.go).
type stateBackend struct {
	db   *DB
	job  string
	keys jobKeys

	salt  uint32    // runs.Salt of the job's name
	files *runFiles // where new runs' blocks go; nil in an in-memory database

	mu      sync.Mutex // guards the fields below
	man     *manifest  // the last committed epoch's; never nil
	prev    *manifest  // the one before it, kept to fall back on; may be nil
	indexes map[uint64]*runs.Index
}

var _ statecore.Backend = (*stateBackend)(nil)

// openState loads the job's manifests, converting state of the layout
// before runs, and deletes runs that no manifest names (those of a commit
// a crash interrupted, or of a compaction).
func (db *DB) openState(job string) (*stateBackend, error) {
	b := &stateBackend{db: db, job: job, keys: newJobKeys(job), salt: runs.Salt(job), indexes: map[uint64]*runs.Index{}}
	if db.dir != "" {
		b.files = newRunFiles(db.dir, job)
	}
	if err := db.recoverDrop(b.keys); err != nil {
		return nil, fmt.Errorf("finishing its interrupted drop: %w", err)
	}
	var err error
	if b.man, err = b.readManifest(b.keys.manifest()); err != nil {
		return nil, err
	}
	if b.prev, err = b.readManifest(b.keys.previous()); err != nil {
		return nil, err
	}
	if b.man == nil {
		b.prev = nil
		if b.man, err = b.convertLegacy(); err != nil {
			return nil, fmt.Errorf("converting its checkpoint to runs: %w", err)
		}
	} else if b.hasLegacy() {
		if err := b.dropLegacy(); err != nil {
			return nil, err
		}
	}
	if err := db.write(b.deleteUnnamedRuns); err != nil {
		return nil, err
	}
	return b, nil
}

// readManifest returns the manifest stored under key, nil if none.
func (b *stateBackend) readManifest(key []byte) (*manifest, error) {
	var m *manifest
	err := b.db.bdb.View(func(txn *bdg.Txn) error {
		item, err := txn.Get(key)
		if err != nil {
			return err
		}
		return value(item, func(v []byte) error {
			m, err = decodeManifest(v)
			return err
		})
	})
	if isNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, b.damaged(err)
	}
	return m, nil
}

// damaged wraps err, damage found in the job's committed state, as a
// CorruptionError naming the job; other errors pass as they are.
func (b *stateBackend) damaged(err error) error {
	var ce *storage.CorruptionError
	if err == nil || !errors.Is(err, storage.ErrCorrupt) || errors.As(err, &ce) {
		return err
	}
	return &storage.CorruptionError{Path: b.db.dir, What: fmt.Sprintf("the operator state of job %q", b.job), Err: err}
}

// read runs fn over the runs of the last committed epoch, their blocks
// read in one Badger transaction. The transaction starts after the
// manifest is taken (its runs were written before it was set) and sees
// the runs even if commits delete them meanwhile.
func (b *stateBackend) read(fn func(rs []runs.Run) error) error {
	b.mu.Lock()
	man := b.man
	txn := b.db.bdb.NewTransaction(false)
	b.mu.Unlock()
	defer txn.Discard()
	return b.readIn(txn, man.runs, fn)
}

// readIn runs fn over the runs metas names, read in txn (their run files
// held open until fn returns).
func (b *stateBackend) readIn(txn *bdg.Txn, metas []runMeta, fn func(rs []runs.Run) error) error {
	rs := make([]runs.Run, 0, len(metas))
	for _, r := range metas {
		idx, err := b.index(txn, r.id)
		if err != nil {
			return err
		}
		fetch := b.fetcher(txn, r.id)
		if r.file {
			if b.files == nil {
				return fmt.Errorf("%w: run %d is in a file, but the database is in memory", storage.ErrCorrupt, r.id)
			}
			o, err := b.files.acquire(r.id)
			if err != nil {
				return err
			}
			defer b.files.release(o)
			if o.f.Blocks() != idx.Blocks() {
				return fmt.Errorf("%w: the file of run %d holds %d blocks, its index %d", storage.ErrCorrupt, r.id, o.f.Blocks(), idx.Blocks())
			}
			fetch = o.f.Fetch
		}
		rs = append(rs, runs.Run{Salt: b.salt, ID: r.id, Index: idx, Fetch: fetch})
	}
	return fn(rs)
}

// fetcher reads the blocks of run id in txn.
func (b *stateBackend) fetcher(txn *bdg.Txn, id uint64) runs.Fetch {
	return func(no uint32, dst []byte) ([]byte, error) {
		item, err := txn.Get(b.keys.runBlock(id, no))
		if isNotFound(err) {
			return nil, fmt.Errorf("%w: block %d of run %d is missing", storage.ErrCorrupt, no, id)
		}
		if err != nil {
			return nil, err
		}
		return valueCopy(item, dst)
	}
}

// index returns the index of run id, read in txn the first time.
func (b *stateBackend) index(txn *bdg.Txn, id uint64) (*runs.Index, error) {
	b.mu.Lock()
	idx := b.indexes[id]
	b.mu.Unlock()
	if idx != nil {
		return idx, nil
	}
	key := b.keys.runIndex(id)
	it := txn.NewIterator(bdg.IteratorOptions{Prefix: key(0)[:len(key(0))-4]})
	defer it.Close()
	it.Seek(key(0))
	if !it.Valid() {
		return nil, fmt.Errorf("%w: the index of run %d is missing", storage.ErrCorrupt, id)
	}
	var r blobReader
	err := r.read(it, key(0)[:len(key(0))-4], func(data []byte) error {
		var err error
		idx, err = runs.DecodeIndex(b.salt, id, data)
		return err
	})
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	b.indexes[id] = idx
	b.mu.Unlock()
	return idx, nil
}

// Get implements statecore.Backend.
func (b *stateBackend) Get(key []byte) (val []byte, ok bool, err error) {
	err = b.read(func(rs []runs.Run) error {
		var err error
		val, ok, _, err = runs.Get(rs, key)
		return err
	})
	if err != nil {
		return nil, false, b.damaged(err)
	}
	return val, ok, nil
}

// Scan implements statecore.Backend.
func (b *stateBackend) Scan(lo, hi []byte, fn func(k, v []byte) error) error {
	var fnErr error
	err := b.read(func(rs []runs.Run) error {
		return runs.Merge(rs, nil, lo, hi, false, func(k, v []byte, _ bool) error {
			if err := fn(k, v); err != nil {
				fnErr = err
				return err
			}
			return nil
		})
	})
	if fnErr != nil {
		return fnErr
	}
	return b.damaged(err)
}

// Epoch implements statecore.Backend.
func (b *stateBackend) Epoch() (uint64, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.man.epoch, nil
}

// Size implements statecore.Backend: the keys and values of the runs'
// entries, read from the manifest.
func (b *stateBackend) Size() (int64, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.man.bytes(), nil
}

// Rollback implements statecore.Backend: the previous manifest becomes
// the manifest, and the runs only the discarded one named are deleted.
func (b *stateBackend) Rollback() (uint64, error) {
	b.mu.Lock()
	cur, prev := b.man, b.prev
	b.mu.Unlock()
	if prev == nil || prev.epoch == 0 {
		return 0, storage.ErrNoPrevious
	}
	// Run ids are never reused, so no block of a discarded run can pass
	// as one of a later run's.
	prev = prev.clone()
	prev.nextID = cur.nextID
	err := b.db.write(func() error {
		err := b.db.bdb.Update(func(txn *bdg.Txn) error {
			if err := txn.Set(b.keys.manifest(), prev.encode()); err != nil {
				return err
			}
			return txn.Delete(b.keys.previous())
		})
		if err != nil {
			return err
		}
		b.mu.Lock()
		b.man, b.prev = prev, nil
		b.mu.Unlock()
		ids := make([]uint64, 0, len(cur.runs))
		for _, r := range cur.runs {
			ids = append(ids, r.id)
		}
		return b.deleteRuns(ids)
	})
	if err != nil {
		return 0, err
	}
	return prev.epoch, nil
}

// Close implements statecore.Backend.
func (b *stateBackend) Close() error {
	if b.files != nil {
		b.files.close()
	}
	b.db.jobs.Release(b.job)
	return nil
}

// Commit implements statecore.Backend: muts become a run, then the new
// manifest names it (with the runs compaction leaves) and keeps the
// previous one.
func (b *stateBackend) Commit(ctx context.Context, muts statecore.Mutations, epoch uint64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return b.db.write(func() error { return b.commit(ctx, muts, epoch) })
}

func (b *stateBackend) commit(ctx context.Context, muts statecore.Mutations, epoch uint64) error {
	b.mu.Lock()
	cur := b.man
	b.mu.Unlock()
	next := cur.clone()
	next.epoch = epoch
	id := next.nextID
	next.nextID++
	written := []uint64{id} // runs this commit wrote
	meta, err := b.writeRun(id, func(add func(k, v []byte, del bool) error) error {
		return muts(func(m statecore.Mutation) error {
			if err := b.db.checkEntry(b.keys.dataLen(m.Key), m.Val); err != nil {
				return fmt.Errorf("storage: state of job %q, key %s: %w", b.job, shownKey(m.Key), err)
			}
			return add(m.Key, m.Val, m.Delete)
		})
	})
	if err != nil {
		return b.abandon(written, err)
	}
	if meta.entries > 0 {
		next.runs = append(next.runs, meta)
	}
	if crashAt("run") {
		return errCrashed
	}
	if err := ctx.Err(); err != nil {
		return b.abandon(written, err)
	}
	compacted, id, err := b.compact(next)
	if id != 0 {
		written = append(written, id)
	}
	if err != nil {
		return b.abandon(written, err)
	}
	if compacted != nil {
		next = compacted
	}
	err = b.db.bdb.Update(func(txn *bdg.Txn) error {
		if err := txn.Set(b.keys.manifest(), next.encode()); err != nil {
			return err
		}
		return txn.Set(b.keys.previous(), cur.encode())
	})
	if err != nil {
		return b.abandon(written, err)
	}
	b.mu.Lock()
	old := b.prev
	b.man, b.prev = next, cur
	b.mu.Unlock()
	if crashAt("manifest") {
		return errCrashed
	}
	// The runs that no manifest names any more: the previous prev's, and
	// this commit's run if compaction merged it away.
	var garbage []uint64
	if old != nil {
		for _, r := range old.runs {
			garbage = append(garbage, r.id)
		}
	}
	return b.deleteRuns(append(garbage, written...))
}

// writeRun writes run id from the entries feed adds (in key order) and
// returns its manifest entry.
func (b *stateBackend) writeRun(id uint64, feed func(add func(k, v []byte, del bool) error) error) (runMeta, error) {
	var idx *runs.Index
	var err error
	// A commit and a compaction are background work: they give way to
	// the tasks about every 1,024 entries (tens of microseconds).
	var pace giveway.Pacer
	inner := feed
	feed = func(add func(k, v []byte, del bool) error) error {
		return inner(func(k, v []byte, del bool) error {
			pace.Step(1024)
			return add(k, v, del)
		})
	}
	if b.files != nil {
		idx, err = b.files.write(b.job, b.salt, id, feed)
	} else {
		idx, err = b.writeBadgerRun(id, feed)
	}
	if err != nil {
		return runMeta{}, err
	}
	if idx.Entries == 0 {
		return runMeta{id: id}, nil // an empty run is not stored
	}
	if err := b.db.putBlob(b.keys.runIndex(id), idx.Encode(b.salt, id)); err != nil {
		return runMeta{}, err
	}
	b.mu.Lock()
	b.indexes[id] = idx
	b.mu.Unlock()
	return runMeta{id: id, blocks: uint64(idx.Blocks()), entries: uint64(idx.Entries), bytes: idx.Bytes, file: b.files != nil}, nil
}

// writeBadgerRun writes the blocks of run id into Badger, as an in-memory
// database keeps them, and returns its index.
func (b *stateBackend) writeBadgerRun(id uint64, feed func(add func(k, v []byte, del bool) error) error) (*runs.Index, error) {
	wb := b.db.bdb.NewWriteBatch()
	defer wb.Cancel()
	bl := runs.NewBuilder(b.salt, id, func(no uint32, block []byte) error { return wb.Set(b.keys.runBlock(id, no), block) })
	if err := feed(bl.Add); err != nil {
		return nil, err
	}
	idx, err := bl.Finish()
	if err != nil || idx.Entries == 0 {
		return idx, err
	}
	return idx, wb.Flush()
}

// abandon deletes the runs a failed commit wrote and returns err. The
// deletion is best effort: runs it leaves are deleted when the job's
// state is opened next.
func (b *stateBackend) abandon(ids []uint64, err error) error {
	_ = b.deleteRuns(ids)
	return err
}

// deleteRuns deletes the keys of the runs among ids that neither manifest
// names.
func (b *stateBackend) deleteRuns(ids []uint64) error {
	b.mu.Lock()
	var doomed []uint64
	for _, id := range ids {
		if !b.man.has(id) && !b.prev.has(id) {
			doomed = append(doomed, id)
			delete(b.indexes, id)
		}
	}
	b.mu.Unlock()
	if len(doomed) == 0 {
		return nil
	}
	if b.files != nil {
		if err := b.files.remove(doomed); err != nil {
			return err
		}
	}
	var keys [][]byte
	err := b.db.bdb.View(func(txn *bdg.Txn) error {
		for _, id := range doomed {
			it := txn.NewIterator(bdg.IteratorOptions{Prefix: b.keys.runPrefix(id), PrefetchValues: false})
			for it.Rewind(); it.Valid(); it.Next() {
				keys = append(keys, it.Item().KeyCopy(nil))
			}
			it.Close()
		}
		return nil
	})
	if err != nil {
		return err
	}
	return b.deleteKeys(keys)
}

// deleteUnnamedRuns deletes every run that neither manifest names.
func (b *stateBackend) deleteUnnamedRuns() error {
	var keys [][]byte
	err := b.db.bdb.View(func(txn *bdg.Txn) error {
		it := txn.NewIterator(bdg.IteratorOptions{Prefix: b.keys.runsPrefix(), PrefetchValues: false})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			id, ok := b.keys.runOf(it.Item().Key())
			if !ok || (!b.man.has(id) && !b.prev.has(id)) {
				keys = append(keys, it.Item().KeyCopy(nil))
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if b.files != nil {
		ids, err := b.files.list()
		if err != nil {
			return err
		}
		var unnamed []uint64
		for _, id := range ids {
			if !b.man.has(id) && !b.prev.has(id) {
				unnamed = append(unnamed, id)
			}
		}
		if err := b.files.remove(unnamed); err != nil {
			return err
		}
	}
	return b.deleteKeys(keys)
}

func (b *stateBackend) deleteKeys(keys [][]byte) error {
	if len(keys) == 0 {
		return nil
	}
	wb := b.db.bdb.NewWriteBatch()
	defer wb.Cancel()
	for _, k := range keys {
		if err := wb.Delete(k); err != nil {
			return err
		}
	}
	return wb.Flush()
}
