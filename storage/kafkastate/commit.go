package kafkastate

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/internal/statecore"
)

// Commit implements statecore.Backend: one Kafka transaction holds the
// records of muts and, last, the epoch marker. The image takes the
// changes only once the transaction has committed, as reading its marker
// back confirms: the client's word alone is not trusted (see produce).
//
// A commit that fails leaves the store unresolved (see resolve): its
// transaction may still be open, or, when the EndTxn request itself
// failed, may have committed without the store hearing of it. Commit
// resolves it at once; if that fails too, the next Commit or Recover
// does, before anything else.
func (b *backend) Commit(ctx context.Context, muts statecore.Mutations, epoch uint64) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.fenced.Load() {
		return b.errFenced()
	}
	if err := b.resolve(ctx); err != nil {
		return err
	}
	e := encoder{topic: b.p.topic, part: b.p.part, epoch: epoch, chunked: b.chunked}
	err := muts(func(m statecore.Mutation) error {
		if 1+len(m.Key)+4 > maxKeyLen {
			return fmt.Errorf("kafkastate: %s: a key of %d bytes: %w", b.job, len(m.Key), storage.ErrTooLarge)
		}
		e.add(m)
		return nil
	})
	if err != nil {
		return err
	}
	e.marker()
	if err := b.cl.BeginTransaction(); err != nil {
		return b.failed(ctx, epoch, err, -1)
	}
	// The marker goes in a batch of its own, so that confirming the
	// commit reads only it back.
	last := len(e.recs) - 1
	if err := b.produce(ctx, e.recs[:last]); err != nil {
		return b.failed(ctx, epoch, err, -1)
	}
	if err := b.produce(ctx, e.recs[last:]); err != nil {
		return b.failed(ctx, epoch, err, -1)
	}
	marker := e.recs[last].Offset
	if err := b.cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
		return b.failed(ctx, epoch, err, marker)
	}
	if err := b.p.confirm(ctx, marker); err != nil {
		return b.failed(ctx, epoch, err, marker)
	}
	b.install(e.chs, epoch)
	b.next = marker + 1
	return nil
}

// produce writes recs in the open transaction, in order, and waits until
// the broker has them all. It waits for each record's promise rather
// than for Flush: franz-go's Flush can return before a record to a topic
// the client has not produced to yet is even sent, and EndTransaction
// then takes the transaction for empty and aborts it, reporting success.
func (b *backend) produce(ctx context.Context, recs []*kgo.Record) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	wg.Add(len(recs))
	promise := func(_ *kgo.Record, err error) {
		if err != nil {
			mu.Lock()
			if first == nil {
				first = err
			}
			mu.Unlock()
		}
		wg.Done()
	}
	for _, r := range recs {
		b.cl.Produce(ctx, r, promise)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		return ctx.Err() // the records still in flight are the resolve's to abort
	}
	mu.Lock()
	defer mu.Unlock()
	return first
}

// failed handles the failure cause of the commit of epoch: a fence makes
// the store unusable; anything else leaves it unresolved, and failed
// resolves it. marker is the offset the transaction's epoch marker got
// when the commit was attempted (EndTxn sent), -1 when it was not: if
// resolving reads that marker committed, the commit succeeded after all.
func (b *backend) failed(ctx context.Context, epoch uint64, cause error, marker int64) error {
	if isFencing(cause) {
		return b.fence(cause)
	}
	b.unresolved = true
	last, err := b.resolveLocked(ctx)
	if err != nil {
		return fmt.Errorf("kafkastate: %s: committing epoch %d: %w (and ending the transaction: %w)", b.job, epoch, cause, err)
	}
	if marker >= 0 && last == marker {
		return nil
	}
	return fmt.Errorf("kafkastate: %s: committing epoch %d: %w", b.job, epoch, cause)
}

// resolve resolves the store if it is unresolved. The caller holds b.mu.
func (b *backend) resolve(ctx context.Context) error {
	if !b.unresolved {
		return nil
	}
	_, err := b.resolveLocked(ctx)
	return err
}

// resolveLocked ends the producer's transaction, if it has one, by
// aborting it: after an unconfirmed commit franz-go aborts by initializing
// the producer id again, which bumps its epoch and aborts what is still
// open, but leaves a transaction that did commit committed. Then the
// outcome is settled either way, and catchUp reads what committed into
// the image. It returns the offset of the last epoch marker read, -1 if
// none. The caller holds b.mu.
func (b *backend) resolveLocked(ctx context.Context) (int64, error) {
	if err := b.cl.AbortBufferedRecords(ctx); err != nil {
		return -1, fmt.Errorf("kafkastate: %s: dropping unsent records: %w", b.job, err)
	}
	if err := b.cl.EndTransaction(ctx, kgo.TryAbort); err != nil {
		if isFencing(err) {
			return -1, b.fence(err)
		}
		return -1, fmt.Errorf("kafkastate: %s: aborting the transaction: %w", b.job, err)
	}
	marker, err := b.catchUp(ctx)
	if err != nil {
		return -1, err
	}
	b.unresolved = false
	return marker, nil
}

// recover resolves the store for Recover, so that the epoch it returns is
// the partition's.
func (b *backend) recover(ctx context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.fenced.Load() {
		return b.errFenced()
	}
	if b.closed {
		return nil // the store reports ErrClosed
	}
	return b.resolve(ctx)
}

// isFencing reports whether err says that a newer producer of the
// transactional id took over: the broker refuses this one's epoch, or
// its id.
func isFencing(err error) bool {
	return errors.Is(err, kerr.ProducerFenced) || errors.Is(err, kerr.InvalidProducerEpoch) ||
		errors.Is(err, kerr.InvalidProducerIDMapping)
}
