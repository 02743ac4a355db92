package mem

import (
	"bytes"
	"errors"
	"fmt"
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
	epoch uint64
}

// DB is an in-memory storage.DB.
type DB struct {
	d   *durable
	g   *guard.Guard
	log *logcore.Log

	mu   sync.Mutex
	jobs map[string]bool // jobs whose state store is open
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
	db := &DB{d: d, g: guard.New(), jobs: map[string]bool{}}
	db.log = logcore.New(logBackend{d}, db.g)
	return db, nil
}

// KV implements storage.DB.
func (db *DB) KV() storage.KV { return kv{db} }

// Log implements storage.DB.
func (db *DB) Log() storage.Log { return db.log }

// State implements storage.DB.
func (db *DB) State(job string) (storage.StateStore, error) {
	if err := db.g.Enter(); err != nil {
		return nil, err
	}
	defer db.g.Exit()
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.jobs[job] {
		return nil, fmt.Errorf("%w: job %q", storage.ErrAlreadyOpen, job)
	}
	s, err := statecore.New(job, &stateBackend{db: db, job: job}, db.g)
	if err != nil {
		return nil, err
	}
	db.jobs[job] = true
	return s, nil
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

func (k kv) Get(key []byte) ([]byte, bool, error) {
	if err := k.db.g.Enter(); err != nil {
		return nil, false, err
	}
	defer k.db.g.Exit()
	d := k.db.d
	d.mu.Lock()
	defer d.mu.Unlock()
	v, ok := d.kv[string(key)]
	return bytes.Clone(v), ok, nil
}

func (k kv) Put(key, val []byte) error {
	if err := k.db.g.Enter(); err != nil {
		return err
	}
	defer k.db.g.Exit()
	d := k.db.d
	d.mu.Lock()
	defer d.mu.Unlock()
	d.kv[string(key)] = bytes.Clone(val)
	return nil
}

func (k kv) Delete(key []byte) error {
	if err := k.db.g.Enter(); err != nil {
		return err
	}
	defer k.db.g.Exit()
	d := k.db.d
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.kv, string(key))
	return nil
}

func (k kv) Scan(prefix []byte, fn func(key, val []byte) error) error {
	if err := k.db.g.Enter(); err != nil {
		return err
	}
	defer k.db.g.Exit()
	d := k.db.d
	d.mu.Lock()
	var keys []string
	for key := range d.kv {
		if strings.HasPrefix(key, string(prefix)) {
			keys = append(keys, key)
		}
	}
	slices.Sort(keys)
	vals := make([][]byte, len(keys))
	for i, key := range keys {
		vals[i] = d.kv[key]
	}
	d.mu.Unlock()
	// Stored values are replaced, never modified, so the snapshot stays
	// valid without the lock; fn gets copies so it cannot change them.
	for i, key := range keys {
		if err := fn([]byte(key), bytes.Clone(vals[i])); err != nil {
			return err
		}
	}
	return nil
}
