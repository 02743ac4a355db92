package statecore

import (
	"bytes"
	"fmt"
	"slices"

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

// layers returns the overlays to consult, the top one first, or an error
// when the store is closed. The caller holds s.mu.
func (t *table) layers() ([]*overlay, error) {
	if t.s.closed {
		return nil, fmt.Errorf("storage: state of job %q: %w", t.s.job, storage.ErrClosed)
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

// write applies fn to the live overlay.
func (t *table) write(fn func(o *overlay)) error {
	if err := t.s.g.Enter(); err != nil {
		return err
	}
	defer t.s.g.Exit()
	t.s.mu.Lock()
	defer t.s.mu.Unlock()
	if _, err := t.layers(); err != nil {
		return err
	}
	fn(t.s.live)
	return nil
}

// Put implements storage.StateTable.
func (t *table) Put(k, v []byte) error {
	full := t.key(k)
	return t.write(func(o *overlay) { o.put(full, v) })
}

// Delete implements storage.StateTable.
func (t *table) Delete(k []byte) error {
	full := t.key(k)
	return t.write(func(o *overlay) { o.del(full) })
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
	return t.write(func(o *overlay) { o.deleteRange(flo, fhi) })
}

// Scan implements storage.StateTable.
func (t *table) Scan(prefix []byte, fn func(k, v []byte) error) error {
	if err := t.s.g.Enter(); err != nil {
		return err
	}
	defer t.s.g.Exit()
	lo := t.key(prefix)
	hi := storage.PrefixEnd(lo)
	t.s.mu.Lock()
	layers, err := t.layers()
	if err != nil {
		t.s.mu.Unlock()
		return err
	}
	kvs, spans := view(layers, lo, hi)
	t.s.mu.Unlock()

	n := len(t.prefix)
	i := 0
	// flush emits the buffered entries before key (all of them when key is
	// nil) and reports whether the next one is key itself.
	flush := func(key []byte) (bool, error) {
		for i < len(kvs) && (key == nil || kvs[i].key < string(key)) {
			if e := kvs[i]; !e.del {
				if err := fn([]byte(e.key[n:]), e.val); err != nil {
					return false, err
				}
			}
			i++
		}
		return key != nil && i < len(kvs) && kvs[i].key == string(key), nil
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
