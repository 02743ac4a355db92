package kafkastate

import (
	"fmt"

	"github.com/eddysql/eddy/internal/kvlog"
	"github.com/eddysql/eddy/storage"
)

// table is a storage.StateTable of a Store: statecore's table, refusing
// every operation once the store is fenced and, up front, keys too long
// for a record (see maxKeyLen).
type table struct {
	t      storage.StateTable
	b      *backend
	prefix int // the length of the table's prefix in a record's key
}

var _ storage.StateTable = (*table)(nil)

// check returns an error once the store is fenced.
func (t *table) check() error {
	if t.b.fenced.Load() {
		return t.b.errFenced()
	}
	return nil
}

// fits returns an error wrapping storage.ErrTooLarge when a record's key
// for k would be too long: the kind byte, the prefix, k and a chunk's
// index.
func (t *table) fits(k []byte) error {
	if 1+t.prefix+len(k)+4 > maxKeyLen {
		return fmt.Errorf("kafkastate: %s: a key of %d bytes (at most %d with the table's name): %w",
			t.b.job, len(k), maxKeyLen-5-t.prefix, storage.ErrTooLarge)
	}
	return nil
}

// Get implements storage.StateTable.
func (t *table) Get(k []byte) ([]byte, bool, error) {
	if err := t.check(); err != nil {
		return nil, false, err
	}
	return t.t.Get(k)
}

// Put implements storage.StateTable.
func (t *table) Put(k, v []byte) error {
	if err := t.check(); err != nil {
		return err
	}
	if err := t.fits(k); err != nil {
		return err
	}
	return t.t.Put(k, v)
}

// Delete implements storage.StateTable.
func (t *table) Delete(k []byte) error {
	if err := t.check(); err != nil {
		return err
	}
	if err := t.fits(k); err != nil {
		return err
	}
	return t.t.Delete(k)
}

// WriteLog implements storage.StateTable. It writes none of l when one of
// its keys is too long.
func (t *table) WriteLog(l *kvlog.Log) error {
	if err := t.check(); err != nil {
		return err
	}
	for i := range int32(l.Len()) {
		if err := t.fits(l.Key(i)); err != nil {
			return err
		}
	}
	return t.t.WriteLog(l)
}

// Scan implements storage.StateTable.
func (t *table) Scan(prefix []byte, fn func(k, v []byte) error) error {
	if err := t.check(); err != nil {
		return err
	}
	return t.t.Scan(prefix, fn)
}

// ScanRange implements storage.StateTable.
func (t *table) ScanRange(lo, hi []byte, fn func(k, v []byte) error) error {
	if err := t.check(); err != nil {
		return err
	}
	return t.t.ScanRange(lo, hi, fn)
}

// DeleteRange implements storage.StateTable.
func (t *table) DeleteRange(lo, hi []byte) error {
	if err := t.check(); err != nil {
		return err
	}
	return t.t.DeleteRange(lo, hi)
}
