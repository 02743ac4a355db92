package mem

import (
	"bytes"
	"context"
	"slices"

	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/internal/logcore"
	"github.com/eddysql/eddy/storage/internal/statecore"
)

// logBackend keeps each stream's entry frames in a slice indexed by seq.
type logBackend struct{ d *durable }

var _ logcore.Backend = logBackend{}

func (b logBackend) End(stream uint64) (uint64, error) {
	b.d.mu.Lock()
	defer b.d.mu.Unlock()
	return uint64(len(b.d.logs[stream])), nil
}

func (b logBackend) Put(stream, seq uint64, frame []byte, mark *logcore.Mark) error {
	b.d.mu.Lock()
	defer b.d.mu.Unlock()
	entries := b.d.logs[stream]
	b.d.logs[stream] = append(entries[:min(seq, uint64(len(entries)))], bytes.Clone(frame))
	if mark != nil {
		b.d.kv[string(mark.Key)] = bytes.Clone(mark.Val)
	}
	return nil
}

func (b logBackend) Iter(stream, from, to uint64) logcore.Iterator {
	b.d.mu.Lock()
	entries := b.d.logs[stream] // frames are never modified in place
	b.d.mu.Unlock()
	return &iter{entries: entries[:min(to, uint64(len(entries)))], seq: from, first: true}
}

// iter walks a snapshot of a stream's frames.
type iter struct {
	entries [][]byte
	seq     uint64
	first   bool
}

func (it *iter) Next() (uint64, bool) {
	if !it.first {
		it.seq++
	}
	it.first = false
	return it.seq, it.seq < uint64(len(it.entries))
}

func (it *iter) Frame(fn func(frame []byte) error) error { return fn(it.entries[it.seq]) }

func (it *iter) Err() error { return nil }

func (it *iter) Close() {}

func (b logBackend) Drop(stream uint64) error {
	b.d.mu.Lock()
	defer b.d.mu.Unlock()
	delete(b.d.logs, stream)
	return nil
}

// stateBackend holds one job's committed state in the durable maps.
type stateBackend struct {
	db  *DB
	job string
}

var _ statecore.Backend = (*stateBackend)(nil)

// state returns the job's committed state; the caller holds d.mu.
func (b *stateBackend) state() *jobState {
	s := b.db.d.states[b.job]
	if s == nil {
		s = &jobState{data: map[string][]byte{}}
		b.db.d.states[b.job] = s
	}
	return s
}

func (b *stateBackend) Get(key []byte) ([]byte, bool, error) {
	b.db.d.mu.Lock()
	defer b.db.d.mu.Unlock()
	v, ok := b.state().data[string(key)]
	return bytes.Clone(v), ok, nil
}

func (b *stateBackend) Scan(lo, hi []byte, fn func(k, v []byte) error) error {
	b.db.d.mu.Lock()
	data := b.state().data
	var keys []string
	for k := range data {
		if k >= string(lo) && (hi == nil || k < string(hi)) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	vals := make([][]byte, len(keys))
	for i, k := range keys {
		vals[i] = data[k] // committed values are replaced, never modified
	}
	b.db.d.mu.Unlock()
	for i, k := range keys {
		if err := fn([]byte(k), vals[i]); err != nil {
			return err
		}
	}
	return nil
}

func (b *stateBackend) Commit(ctx context.Context, muts statecore.Mutations, epoch uint64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b.db.d.mu.Lock()
	defer b.db.d.mu.Unlock()
	s := b.state()
	undo := map[string]oldValue{}
	err := muts(func(m statecore.Mutation) error {
		old, ok := s.data[string(m.Key)]
		if ok {
			s.size -= int64(len(m.Key) + len(old))
		}
		undo[string(m.Key)] = oldValue{old, ok}
		if m.Delete {
			delete(s.data, string(m.Key))
		} else {
			s.data[string(m.Key)] = bytes.Clone(m.Val)
			s.size += int64(len(m.Key) + len(m.Val))
		}
		return nil
	})
	if err != nil {
		return err // cannot happen: the function above returns none
	}
	s.undo, s.prevEpoch, s.epoch = undo, s.epoch, epoch
	return nil
}

func (b *stateBackend) Epoch() (uint64, error) {
	b.db.d.mu.Lock()
	defer b.db.d.mu.Unlock()
	return b.state().epoch, nil
}

// Size implements statecore.Backend: the size Commit keeps up to date.
func (b *stateBackend) Size() (int64, error) {
	b.db.d.mu.Lock()
	defer b.db.d.mu.Unlock()
	return b.state().size, nil
}

// Rollback implements statecore.Backend with the last commit's undo.
func (b *stateBackend) Rollback() (uint64, error) {
	b.db.d.mu.Lock()
	defer b.db.d.mu.Unlock()
	s := b.state()
	if s.undo == nil || s.prevEpoch == 0 {
		return 0, storage.ErrNoPrevious
	}
	for k, old := range s.undo {
		if cur, ok := s.data[k]; ok {
			s.size -= int64(len(k) + len(cur))
			delete(s.data, k)
		}
		if old.ok {
			s.data[k] = old.val
			s.size += int64(len(k) + len(old.val))
		}
	}
	s.epoch, s.undo = s.prevEpoch, nil
	return s.epoch, nil
}

func (b *stateBackend) Close() error {
	b.db.jobs.Release(b.job)
	return nil
}
