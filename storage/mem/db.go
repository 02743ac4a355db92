package mem

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/internal/guard"
	"github.com/eddysql/eddy/storage/internal/logcore"
	"github.com/eddysql/eddy/storage/internal/statecore"
)

// durable is what survives a Reopen: the contents a disk would hold.
type durable struct {
	mu     sync.Mutex
	inUse  bool // a DB handle is open on it
	kv     map[string][]byte
	logs   map[uint64][][]byte
	states map[string]*jobState
}

// jobState is one job's committed operator state.
type jobState struct {
	data  map[string][]byte
	size  int64 // the bytes of data's keys and values
	epoch uint64
	// undo restores the checkpoint before the last (at prevEpoch): the
	// old values of the keys the last commit wrote. It is nil when no
	// earlier checkpoint is kept.
	undo      map[string]oldValue
	prevEpoch uint64
}

// oldValue is a key's value before a commit, or its absence.
type oldValue struct {
	val []byte
	ok  bool
}

// DB is an in-memory storage.DB.
type DB struct {
	d   *durable
	g   *guard.Guard
	log *logcore.Log

	jobs statecore.Jobs // the jobs whose state store is open
}

var _ storage.DB = (*DB)(nil)

// New returns an empty DB.
func New() *DB {
	d := &durable{
		kv:     map[string][]byte{},
		logs:   map[uint64][][]byte{},
		states: map[string]*jobState{},
	}
	db, _ := open(d)
	return db
}

// errOpen is returned by Reopen while the DB is still open.
var errOpen = errors.New("mem: reopening a DB that is still open")

// Reopen returns a new DB over db's durable contents, as a process started
// after db's would see them. db must be closed first.
func (db *DB) Reopen() (*DB, error) { return open(db.d) }

func open(d *durable) (*DB, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.inUse {
		return nil, errOpen
	}
	d.inUse = true
	db := &DB{d: d, g: guard.New()}
	db.log = logcore.New(logBackend{d}, db.g)
	return db, nil
}

// KV implements storage.DB.
func (db *DB) KV() storage.KV { return kv{db} }

// Log implements storage.DB.
func (db *DB) Log() storage.Log { return db.log }

// State implements storage.DB.
func (db *DB) State(job string) (storage.StateStore, error) {
	return db.jobs.Open(job, db.g, func() (statecore.Backend, error) { return &stateBackend{db: db, job: job}, nil })
}

// Close implements storage.DB.
func (db *DB) Close() error {
	if db.g.Close() {
		db.d.mu.Lock()
		db.d.inUse = false
		db.d.mu.Unlock()
	}
	return nil
}

// kv is the DB's storage.KV.
type kv struct{ db *DB }

var _ storage.KV = kv{}

// with runs fn on the key-value map, locked, while the DB is open.
func (k kv) with(fn func(m map[string][]byte)) error {
	if err := k.db.g.Enter(); err != nil {
		return err
	}
	defer k.db.g.Exit()
	d := k.db.d
	d.mu.Lock()
	defer d.mu.Unlock()
	fn(d.kv)
	return nil
}

func (k kv) Get(key []byte) (val []byte, ok bool, err error) {
	err = k.with(func(m map[string][]byte) {
		val, ok = m[string(key)]
		val = bytes.Clone(val)
	})
	return val, ok, err
}

func (k kv) Put(key, val []byte) error {
	return k.with(func(m map[string][]byte) { m[string(key)] = bytes.Clone(val) })
}

func (k kv) Delete(key []byte) error {
	return k.with(func(m map[string][]byte) { delete(m, string(key)) })
}

func (k kv) Scan(prefix []byte, fn func(key, val []byte) error) error {
	var keys []string
	var vals [][]byte
	err := k.with(func(m map[string][]byte) {
		for key := range m {
			if strings.HasPrefix(key, string(prefix)) {
				keys = append(keys, key)
			}
		}
		slices.Sort(keys)
		vals = make([][]byte, len(keys))
		for i, key := range keys {
			vals[i] = m[key]
		}
	})
	if err != nil {
		return err
	}
	// Stored values are replaced, never modified, so the snapshot stays
	// valid without the lock; fn gets copies so it cannot change them.
	for i, key := range keys {
		if err := fn([]byte(key), bytes.Clone(vals[i])); err != nil {
			return err
		}
	}
	return nil
}

// DropState implements storage.DB.
func (db *DB) DropState(job string) error {
	return db.jobs.Drop(job, db.g, func() error {
		db.d.mu.Lock()
		defer db.d.mu.Unlock()
		delete(db.d.states, job)
		return nil
	})
}
