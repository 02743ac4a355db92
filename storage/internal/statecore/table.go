package statecore

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/eddysql/eddy/internal/kvlog"
	"github.com/eddysql/eddy/storage"
)

// table is a StateTable: the keys of its store under its prefix, the
// key-codec encoding of its name (self-delimiting, so no table's prefix
// starts another's).
type table struct {
	s      *Store
	prefix []byte
	end    []byte // storage.PrefixEnd(prefix)
}

var _ storage.StateTable = (*table)(nil)

func (t *table) key(k []byte) []byte {
	return append(slices.Clip(t.prefix), k...)
}

// open returns an error when the store is closed. The caller holds s.mu.
func (t *table) open() error {
	if t.s.closed {
		return fmt.Errorf("storage: state of job %q: %w", t.s.job, storage.ErrClosed)
	}
	return nil
}

// layers returns the overlays to consult, the top one first, or an error
// when the store is closed. The caller holds s.mu.
func (t *table) layers() ([]*overlay, error) {
	if err := t.open(); err != nil {
		return nil, err
	}
	if t.s.sortFrozen != nil {
		t.s.sortFrozen() // waits for Commit's sort, if it runs
	}
	return []*overlay{t.s.live, t.s.frozen}, nil
}

// Get implements storage.StateTable.
func (t *table) Get(k []byte) ([]byte, bool, error) {
	if err := t.s.g.Enter(); err != nil {
		return nil, false, err
	}
	defer t.s.g.Exit()
	full := t.key(k)
	t.s.mu.Lock()
	layers, err := t.layers()
	if err != nil {
		t.s.mu.Unlock()
		return nil, false, err
	}
	for _, o := range layers {
		if o == nil {
			continue
		}
		if v, ok, decided := o.lookup(full); decided {
			t.s.mu.Unlock()
			return bytes.Clone(v), ok, nil
		}
	}
	t.s.mu.Unlock()
	return t.s.b.Get(full)
}

// lockLive starts a write: it enters the guard and locks s.mu, and
// returns the live overlay for the write; unlockLive ends it.
func (t *table) lockLive() (*overlay, error) {
	if err := t.s.g.Enter(); err != nil {
		return nil, err
	}
	t.s.mu.Lock()
	if err := t.open(); err != nil {
		t.s.mu.Unlock()
		t.s.g.Exit()
		return nil, err
	}
	return t.s.live, nil
}

func (t *table) unlockLive() {
	t.s.mu.Unlock()
	t.s.g.Exit()
}

// Put implements storage.StateTable. It copies the table's prefix, k and
// v into the live overlay and allocates nothing of its own: operators
// write every changed entry at each checkpoint, on the path that holds
// up their input.
func (t *table) Put(k, v []byte) error {
	o, err := t.lockLive()
	if err != nil {
		return err
	}
	err = o.put(t.prefix, k, v)
	t.unlockLive()
	return t.tooLarge(k, err)
}

// WriteLog implements storage.StateTable: it checks that every write fits,
// then copies them all into the live overlay under one lock.
func (t *table) WriteLog(l *kvlog.Log) error {
	n := int32(l.Len())
	if n == 0 {
		return nil
	}
	o, err := t.lockLive()
	if err != nil {
		return err
	}
	defer t.unlockLive()
	if o.recs()+int(n) > maxRecs {
		return t.tooLarge(l.Key(0), errTooLarge)
	}
	for i := range n {
		k := l.Key(i)
		v, _ := l.Val(i)
		if err := o.fits(len(t.prefix)+len(k), len(v)); err != nil {
			return t.tooLarge(k, err)
		}
	}
	for i := range n {
		v, ok := l.Val(i)
		o.add(t.prefix, l.Key(i), v, !ok)
	}
	return nil
}

// Delete implements storage.StateTable.
func (t *table) Delete(k []byte) error {
	o, err := t.lockLive()
	if err != nil {
		return err
	}
	err = o.del(t.prefix, k)
	t.unlockLive()
	return t.tooLarge(k, err)
}

// tooLarge returns the error for a write of k that the live overlay
// refused with err, or nil when err is nil.
func (t *table) tooLarge(k []byte, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("storage: state of job %q, key %x: %w: %w", t.s.job, k[:min(len(k), 32)], storage.ErrTooLarge, err)
}

// DeleteRange implements storage.StateTable.
func (t *table) DeleteRange(lo, hi []byte) error {
	flo, fhi := t.key(lo), t.end
	if hi != nil {
		fhi = t.key(hi)
	}
	if bytes.Compare(flo, fhi) >= 0 {
		return nil
	}
	o, err := t.lockLive()
	if err != nil {
		return err
	}
	o.deleteRange(flo, fhi)
	t.unlockLive()
	return nil
}

// Scan implements storage.StateTable.
func (t *table) Scan(prefix []byte, fn func(k, v []byte) error) error {
	lo := t.key(prefix)
	return t.scan(lo, storage.PrefixEnd(lo), fn)
}

// ScanRange implements storage.StateTable.
func (t *table) ScanRange(lo, hi []byte, fn func(k, v []byte) error) error {
	flo, fhi := t.key(lo), t.end
	if hi != nil {
		fhi = t.key(hi)
	}
	if bytes.Compare(flo, fhi) >= 0 {
		return nil
	}
	return t.scan(flo, fhi, fn)
}

// scan calls fn for the table's keys in [lo, hi), whole keys (with the
// table's prefix) within the table.
func (t *table) scan(lo, hi []byte, fn func(k, v []byte) error) error {
	if err := t.s.g.Enter(); err != nil {
		return err
	}
	defer t.s.g.Exit()
	t.s.mu.Lock()
	layers, err := t.layers()
	if err != nil {
		t.s.mu.Unlock()
		return err
	}
	kvs, spans := view(layers, lo, hi)
	// kvs alias the overlays' logs: keep a commit from handing them to
	// the next overlays while fn runs.
	for _, o := range layers {
		if o != nil {
			o.pins++
		}
	}
	t.s.mu.Unlock()
	defer func() {
		t.s.mu.Lock()
		for _, o := range layers {
			if o != nil {
				o.unpin()
			}
		}
		t.s.mu.Unlock()
	}()

	n := len(t.prefix)
	i := 0
	// flush emits the buffered entries before key (all of them when key is
	// nil) and reports whether the next one is key itself.
	flush := func(key []byte) (bool, error) {
		for i < len(kvs) && (key == nil || bytes.Compare(kvs[i].key, key) < 0) {
			if e := kvs[i]; !e.del {
				if err := fn(e.key[n:], e.val); err != nil {
					return false, err
				}
			}
			i++
		}
		return key != nil && i < len(kvs) && bytes.Equal(kvs[i].key, key), nil
	}
	err = t.s.b.Scan(lo, hi, func(k, v []byte) error {
		same, err := flush(k)
		if err != nil {
			return err
		}
		if same {
			e := kvs[i]
			i++
			if e.del {
				return nil
			}
			return fn(k[n:], e.val)
		}
		for _, sp := range spans {
			if sp.covers(k) {
				return nil
			}
		}
		return fn(k[n:], v)
	})
	if err != nil {
		return err
	}
	_, err = flush(nil)
	return err
}
