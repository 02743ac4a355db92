package statecore

import (
	"bytes"
	"context"
	"fmt"
	"sync"

	"github.com/eddysql/eddy/internal/giveway"
	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/internal/guard"
)

// Mutations are a commit's mutations, in key order and each key once,
// produced as they are read, so that a large commit holds no list of them:
// calling it calls fn for each in turn, stopping at fn's first error,
// which it returns. A Mutation's Key and Val are valid only during fn.
type Mutations func(fn func(Mutation) error) error

// Mutation is one committed write: a key set to Val, or deleted.
type Mutation struct {
	Key, Val []byte
	Delete   bool
}

// Backend holds one job's committed state. Keys are a table's prefix
// followed by the key within the table.
type Backend interface {
	// Get returns a copy of the committed value of key.
	Get(key []byte) (val []byte, ok bool, err error)
	// Scan calls fn for the committed keys in [lo, hi) in order, over a
	// snapshot; k and v are valid only during fn. Errors from fn are
	// returned as they are.
	Scan(lo, hi []byte, fn func(k, v []byte) error) error
	// Commit atomically applies muts (in key order, each key once) and
	// records epoch as the last committed epoch.
	Commit(ctx context.Context, muts Mutations, epoch uint64) error
	// Epoch returns the last committed epoch, 0 if none.
	Epoch() (uint64, error)
	// Rollback makes the checkpoint before the last the last one and
	// returns its epoch, or fails with storage.ErrNoPrevious.
	Rollback() (uint64, error)
	// Size returns the bytes of the committed keys and values as the
	// backend holds them (as Commit was given them, without the backend's
	// framing): a backend that keeps replaced values or deletions until
	// it compacts them counts those too. It is cheap: Store calls it on
	// every Bytes.
	Size() (int64, error)
	// Close releases the job's state so that it can be opened again.
	Close() error
}

// Store implements storage.StateStore over a Backend.
type Store struct {
	job string
	b   Backend
	g   *guard.Guard // the DB's

	commitMu sync.Mutex // serializes Commit, Recover and Close

	mu     sync.Mutex // guards the fields below
	closed bool
	live   *overlay // writes since the last commit began
	frozen *overlay // writes being committed, nil between commits
	// sortFrozen sorts frozen once (sync.OnceFunc): Commit calls it
	// without s.mu, so writers do not wait for the sort, and a reader of
	// frozen calls it first.
	sortFrozen func()
	epoch      uint64 // the last committed epoch
	tables     map[string]*table
}

var _ storage.StateStore = (*Store)(nil)

// New returns the store of job over b, whose operations g guards.
func New(job string, b Backend, g *guard.Guard) (*Store, error) {
	epoch, err := b.Epoch()
	if err != nil {
		return nil, fmt.Errorf("storage: opening state of job %q: %w", job, err)
	}
	return &Store{job: job, b: b, g: g, live: newOverlay(), epoch: epoch, tables: map[string]*table{}}, nil
}

// enter starts an operation on the store; exit ends it.
func (s *Store) enter() error {
	if err := s.g.Enter(); err != nil {
		return err
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		s.g.Exit()
		return fmt.Errorf("storage: state of job %q: %w", s.job, storage.ErrClosed)
	}
	return nil
}

func (s *Store) exit() { s.g.Exit() }

// Table implements storage.StateStore.
func (s *Store) Table(name string, _ storage.TableOptions) (storage.StateTable, error) {
	if err := s.enter(); err != nil {
		return nil, err
	}
	defer s.exit()
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tables[name]
	if !ok {
		prefix := storage.AppendString(nil, name)
		t = &table{s: s, prefix: prefix, end: storage.PrefixEnd(prefix)}
		s.tables[name] = t
	}
	return t, nil
}

// Commit implements storage.StateStore.
func (s *Store) Commit(ctx context.Context, epoch uint64) error {
	if err := s.enter(); err != nil {
		return err
	}
	defer s.exit()
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return fmt.Errorf("storage: state of job %q: %w", s.job, storage.ErrClosed)
	}
	if epoch <= s.epoch {
		last := s.epoch
		s.mu.Unlock()
		return fmt.Errorf("%w: job %q cannot commit epoch %d after epoch %d", storage.ErrStaleEpoch, s.job, epoch, last)
	}
	frozen := s.live
	frozen.pace = new(giveway.Pacer)
	s.frozen, s.live = frozen, newOverlay()
	s.sortFrozen = sync.OnceFunc(func() { frozen.sorted() })
	s.mu.Unlock()
	s.sortFrozen() // from now on frozen is only read, also without s.mu

	muts, err := s.mutations(frozen)
	if err == nil {
		err = s.b.Commit(ctx, muts, epoch)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	s.frozen, s.sortFrozen = nil, nil
	frozen.pace = nil // sorted; a failed commit's writes go back under the live ones, whose reads are not paced
	if err != nil {
		s.live = under(frozen, s.live)
		return fmt.Errorf("storage: committing epoch %d of job %q: %w", epoch, s.job, err)
	}
	s.epoch = epoch
	frozen.retire()
	return nil
}

// mutations turns the frozen overlay o into the backend's mutations, in
// key order: its writes, and deletions of the committed keys its spans
// cover that it wrote nothing to since (found up front, by a scan of the
// committed keys in the spans).
func (s *Store) mutations(o *overlay) (Mutations, error) {
	order := o.sorted()
	var gone [][]byte // in key order: the spans are disjoint, in order
	for _, sp := range disjoint(o.spans) {
		err := s.b.Scan(sp.lo, sp.hi, func(k, _ []byte) error {
			if _, ok := o.find(k); !ok {
				gone = append(gone, bytes.Clone(k))
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return func(fn func(Mutation) error) error {
		gone := gone
		emit := func(k, v []byte, del bool) error {
			for len(gone) > 0 && bytes.Compare(gone[0], k) < 0 {
				if err := fn(Mutation{Key: gone[0], Delete: true}); err != nil {
					return err
				}
				gone = gone[1:]
			}
			return fn(Mutation{Key: k, Val: v, Delete: del})
		}
		var g *gathered
		if len(order) >= gatherMin {
			g = gather(o, order)
		}
		if g != nil {
			err := g.each(emit)
			g.release()
			if err != nil {
				return err
			}
		} else {
			var touched byte
			for i, r := range order {
				if i%touchAhead == 0 {
					touched += touchRecords(o, order[i:min(i+touchAhead, len(order))])
				}
				v, ok := o.val(r)
				if err := emit(o.key(r), v, !ok); err != nil {
					return err
				}
			}
			o.touched += touched
		}
		for _, k := range gone {
			if err := fn(Mutation{Key: k, Delete: true}); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// touchAhead is how many records mutations reads ahead of handing them
// on.
const touchAhead = 32

// touchRecords reads the first byte of the keys of records rs and returns
// a value depending on them. In key order, the records are spread over
// the log, each a cache miss (its slot, then its bytes) when the log is
// larger than the caches; this loop, whose loads do not wait on each
// other, lets the processor wait for many of them at once, where handing
// them on one after the other (the run builder compares each key with the
// last) waits for each in turn.
func touchRecords(o *overlay, rs []int32) byte {
	var sum byte
	for _, r := range rs {
		if k := o.key(r); len(k) > 0 {
			sum += k[0]
		}
	}
	return sum
}

// Bytes implements storage.StateStore with the backend's Size.
func (s *Store) Bytes() (int64, error) {
	if err := s.enter(); err != nil {
		return 0, err
	}
	defer s.exit()
	size, err := s.b.Size()
	if err != nil {
		return 0, fmt.Errorf("storage: sizing state of job %q: %w", s.job, err)
	}
	return size, nil
}

// Recover implements storage.StateStore.
func (s *Store) Recover(ctx context.Context) (uint64, error) {
	return s.reset(ctx, "recovering", s.b.Epoch)
}

// Rollback implements storage.StateStore.
func (s *Store) Rollback(ctx context.Context) (uint64, error) {
	return s.reset(ctx, "rolling back", s.b.Rollback)
}

// reset discards the writes since the last commit and makes the epoch
// to returns (the backend's last committed one, or the one before after a
// rollback) the store's last committed epoch; doing names it in errors.
func (s *Store) reset(ctx context.Context, doing string, to func() (uint64, error)) (uint64, error) {
	if err := s.enter(); err != nil {
		return 0, err
	}
	defer s.exit()
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	epoch, err := to()
	if err != nil {
		return 0, fmt.Errorf("storage: %s the state of job %q: %w", doing, s.job, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.live = newOverlay()
	s.epoch = epoch
	return epoch, nil
}

// Close implements storage.StateStore.
func (s *Store) Close() error {
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.live = nil
	s.mu.Unlock()
	return s.b.Close()
}

// Backend returns the backend the store commits to (for its package's
// tests, which look inside it).
func (s *Store) Backend() Backend { return s.b }
