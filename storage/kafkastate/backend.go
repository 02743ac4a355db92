package kafkastate

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/internal/statecore"
)

// backend is the statecore.Backend of a Store: the committed image in
// memory, loaded from the partition and kept up to date by the commits
// it writes there.
type backend struct {
	job string // names the store in errors: topic[partition]
	cl  *kgo.Client
	p   *partition

	img    atomic.Pointer[snapshot] // the committed state; readers take it without a lock
	fenced atomic.Bool              // a newer owner fenced the producer: the store is unusable

	mu         sync.Mutex        // serializes commits, resolving and closing; guards the fields below
	next       int64             // the offset after the last record the image has
	chunked    map[string]uint32 // the committed values written in more than one record, by key
	unresolved bool              // a transaction may be open, or committed without the image knowing
	closed     bool
}

var _ statecore.Backend = (*backend)(nil)

// load reads the partition from its log start offset into an empty
// image.
func (b *backend) load(ctx context.Context) error {
	b.img.Store(&snapshot{})
	b.chunked = map[string]uint32{}
	start, err := b.p.listOffset(ctx, 0, -2)
	if err != nil {
		return err
	}
	b.next = start
	_, err = b.catchUp(ctx)
	return err
}

// catchUp reads what was committed to the partition after the image's
// last record into the image, up to the end as of now once it is
// settled (see partition.settledEnd), and returns the offset of the last
// epoch marker it read, -1 if none. The caller holds b.mu, or has not
// published b yet.
func (b *backend) catchUp(ctx context.Context) (int64, error) {
	end, err := b.p.settledEnd(ctx)
	if err != nil {
		return -1, err
	}
	d := newDecoder(b.p.topic, b.p.part)
	if err := b.p.read(ctx, b.next, end, d.add); err != nil {
		return -1, err
	}
	chs, err := d.finish()
	if err != nil {
		return -1, err
	}
	epoch := b.img.Load().epoch
	if d.marker >= 0 {
		epoch = d.epoch
	}
	b.install(chs, epoch)
	b.next = end
	return d.marker, nil
}

// install makes chs (in key order, each key once) committed as of epoch.
func (b *backend) install(chs []change, epoch uint64) {
	b.img.Store(b.img.Load().apply(chs, epoch))
	for _, c := range chs {
		if c.chunks > 1 {
			b.chunked[string(c.key)] = c.chunks
		} else {
			delete(b.chunked, string(c.key))
		}
	}
}

// fence marks the store fenced by cause and returns the error to report.
func (b *backend) fence(cause error) error {
	b.fenced.Store(true)
	return fmt.Errorf("%w (%s): %w", ErrFenced, b.job, cause)
}

// errFenced returns the error for an operation on a fenced store.
func (b *backend) errFenced() error {
	return fmt.Errorf("%w (%s) earlier; reopen the store", ErrFenced, b.job)
}

// Get implements statecore.Backend.
func (b *backend) Get(key []byte) ([]byte, bool, error) {
	v, ok := b.img.Load().get(key)
	return bytes.Clone(v), ok, nil
}

// Scan implements statecore.Backend over the snapshot committed when it
// starts; a commit during the scan publishes a new one.
func (b *backend) Scan(lo, hi []byte, fn func(k, v []byte) error) error {
	return b.img.Load().ascend(lo, hi, fn)
}

// Epoch implements statecore.Backend.
func (b *backend) Epoch() (uint64, error) {
	if b.fenced.Load() {
		return 0, b.errFenced()
	}
	return b.img.Load().epoch, nil
}

// Rollback implements statecore.Backend: the topic is compacted, so no
// earlier checkpoint is kept.
func (b *backend) Rollback() (uint64, error) {
	return 0, fmt.Errorf("%w: a compacted Kafka topic keeps only each key's latest value", storage.ErrNoPrevious)
}

// Size implements statecore.Backend: the bytes of the image's keys and
// values.
func (b *backend) Size() (int64, error) { return b.img.Load().size, nil }

// Close implements statecore.Backend. Between commits the producer has no
// transaction open; one left by a failed commit is aborted by the next
// owner's fence, or by the broker when it times out.
func (b *backend) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		b.closed = true
		b.cl.Close()
	}
	return nil
}
