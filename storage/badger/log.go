package badger

import (
	"errors"
	"fmt"

	bdg "github.com/dgraph-io/badger/v4"
	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/internal/logcore"
)

// logBackend stores log entry frames as blobs under
// l <stream> <seq> <chunk>.
type logBackend struct{ db *DB }

var _ logcore.Backend = logBackend{}

// End finds the last entry's chunk 0 from the end of the stream's keys;
// chunks without a chunk 0 are leftovers of an append that failed.
func (b logBackend) End(stream uint64) (uint64, error) {
	var end uint64
	err := b.db.bdb.View(func(txn *bdg.Txn) error {
		it := txn.NewIterator(bdg.IteratorOptions{Prefix: logPrefix(stream), Reverse: true})
		defer it.Close()
		for it.Seek(logKey(stream, ^uint64(0), ^uint32(0))); it.Valid(); it.Next() {
			if seq, chunk, ok := parseLogKey(it.Item().Key()); ok && chunk == 0 {
				end = seq + 1
				return nil
			}
		}
		return nil
	})
	return end, err
}

// Put writes the frame's chunk 0 and the mark, if any, in one
// transaction: until chunk 0 is there, the entry does not exist.
func (b logBackend) Put(stream, seq uint64, frame []byte, mark *logcore.Mark) error {
	var with func(txn *bdg.Txn) error
	if mark != nil {
		if err := b.db.checkEntry(1+len(mark.Key), mark.Val); err != nil {
			return wrap("writing", mark.Key, err)
		}
		with = func(txn *bdg.Txn) error { return txn.Set(kvKey(mark.Key), mark.Val) }
	}
	return b.db.write(func() error {
		return b.db.putBlobWith(func(chunk uint32) []byte { return logKey(stream, seq, chunk) }, frame, with)
	})
}

// smallDrop is the most keys Drop deletes in one transaction. Larger logs
// are dropped with DropPrefix, which frees their space at once but pauses
// every write while it flushes the memtables (hundreds of milliseconds on
// disk), too slow for the small streams tests create and drop by the
// dozen.
const smallDrop = 10_000

// Drop deletes the stream's keys in one transaction when they are few, and
// with DropPrefix otherwise; either way the log disappears atomically.
func (b logBackend) Drop(stream uint64) error {
	if done, err := b.db.dropSmall(logPrefix(stream), smallDrop); done || err != nil {
		return err
	}
	b.db.dropMu.Lock()
	defer b.db.dropMu.Unlock()
	return b.db.bdb.DropPrefix(logPrefix(stream))
}

// dropSmall deletes the keys with prefix in one transaction when there are
// at most limit of them, and reports whether it did (or found none). A
// larger set is left to the caller's DropPrefix.
func (db *DB) dropSmall(prefix []byte, limit int) (done bool, err error) {
	var keys [][]byte
	err = db.bdb.View(func(txn *bdg.Txn) error {
		it := txn.NewIterator(bdg.IteratorOptions{Prefix: prefix})
		defer it.Close()
		for it.Rewind(); it.Valid() && len(keys) <= limit; it.Next() {
			keys = append(keys, it.Item().KeyCopy(nil))
		}
		return nil
	})
	if err != nil || len(keys) == 0 {
		return true, err
	}
	if len(keys) > limit {
		return false, nil
	}
	err = db.write(func() error {
		return db.bdb.Update(func(txn *bdg.Txn) error {
			for _, k := range keys {
				if err := txn.Delete(k); err != nil {
					return err
				}
			}
			return nil
		})
	})
	if errors.Is(err, bdg.ErrTxnTooBig) {
		return false, nil
	}
	return true, err
}

func (b logBackend) Iter(stream, from, to uint64) logcore.Iterator {
	txn := b.db.bdb.NewTransaction(false)
	it := txn.NewIterator(bdg.IteratorOptions{Prefix: logPrefix(stream)})
	return &logIter{stream: stream, to: to, txn: txn, it: it, start: logKey(stream, from, 0)}
}

// logIter walks a stream's entries over one read transaction.
type logIter struct {
	stream, to uint64
	txn        *bdg.Txn
	it         *bdg.Iterator
	start      []byte // the key to seek to on the first Next, then nil
	seq        uint64
	blobs      blobReader
	err        error
}

func (l *logIter) Next() (uint64, bool) {
	if l.start != nil {
		l.it.Seek(l.start)
		l.start = nil
	} else {
		l.it.Next()
	}
	// Skip chunks that no chunk 0 claims: leftovers of failed appends.
	for ; l.it.Valid(); l.it.Next() {
		seq, chunk, ok := parseLogKey(l.it.Item().Key())
		if !ok {
			l.err = fmt.Errorf("%w: malformed log key %s", storage.ErrCorrupt, shownKey(l.it.Item().Key()))
			return 0, false
		}
		if seq >= l.to {
			return 0, false
		}
		if chunk == 0 {
			l.seq = seq
			return seq, true
		}
	}
	return 0, false
}

func (l *logIter) Frame(fn func(frame []byte) error) error {
	return l.blobs.read(l.it, logKey(l.stream, l.seq, 0)[:logKeyLen-4], fn)
}

func (l *logIter) Err() error { return l.err }

func (l *logIter) Close() {
	l.it.Close()
	l.txn.Discard()
}
