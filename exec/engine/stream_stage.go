package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/storage"
)

// Exactly-once appends to a stream's log. In a job that takes checkpoints
// (a checkpointed derived stream or continuous insert), a streamSink
// appends in two phases, as the file sink does (sink.TwoPhase), so that
// its readers see only committed rows (read-committed, as Flink's
// exactly-once Kafka sink) and the log is never rewritten. Between
// checkpoints it keeps the batches it receives, encoded with storage's
// batch codec. At a checkpoint's barrier (Snapshot) it writes them as
// entries of its own state — durable with the epoch, committed atomically
// with the sources' positions — each keyed by its position: how many rows
// this writer had appended or staged before it. Once the epoch has
// committed (Commit) it appends them to the log, in order; each append
// records, in the same atomic write (storage.Log.AppendMarked), how many
// rows the writer has appended, and the next snapshot deletes their
// entries.
//
// After a crash, the query resumes from its last committed checkpoint
// (Restore): the batches it holds that the log does not (a position at or
// past the recorded count) are appended, the others are left alone, so a
// restore appends nothing twice. At the end of a bounded input the sink
// appends everything it holds at once, as no later checkpoint would;
// should eddy crash before the next checkpoint, the rows the restore
// finds appended beyond the checkpoint's record are the ones its
// recomputation yields again, and the sink skips that many.

// Entry keys: stagedKey + position (8 bytes, big-endian) for a staged
// batch, its value the encoded batch; nextKey for the position after the
// checkpoint's batches (8 bytes, big-endian).
const (
	stagedKey = 'b'
	nextKey   = 'n'
)

func stagedEntry(pos uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{stagedKey}, pos)
}

// stagedBatch is a batch a two-phase streamSink holds: rows rows at
// position pos, encoded.
type stagedBatch struct {
	epoch uint64 // of the snapshot that staged it; 0 until then
	pos   uint64
	rows  int64
	data  []byte
}

// logStage is a two-phase streamSink's record of its batches.
type logStage struct {
	group int // the key group of the sink's entries
	alloc memory.Allocator
	next  uint64 // the position of the next batch

	pending []stagedBatch // received since the last snapshot
	lastN   uint64        // the nextKey entry last written; ^0 before the first
	written bool          // a snapshot wrote nextKey

	publish sync.Mutex    // held while batches are appended
	mu      sync.Mutex    // guards staged, done and bytes: Commit runs on another goroutine
	staged  []stagedBatch // staged by a snapshot, not yet appended, by position
	done    []uint64      // positions appended since the last snapshot: their entries go
	bytes   int64         // of pending and staged batches
	held    int64         // pending and staged batches
}

// stageBatch keeps batch, to be staged at the next checkpoint.
func (s *streamSink) stageBatch(batch arrow.RecordBatch) error {
	data, err := storage.EncodeBatch(nil, batch)
	if err != nil {
		return err
	}
	st := s.stage
	st.pending = append(st.pending, stagedBatch{pos: st.next, rows: batch.NumRows(), data: data})
	st.next += uint64(batch.NumRows())
	s.addBytes(int64(len(data)), 1)
	return nil
}

// addBytes counts n more bytes and batches more batches held (fewer when
// negative) in the state metrics. Commit calls it from another goroutine
// than the task's, which owns pending: the counts are kept under mu.
func (s *streamSink) addBytes(n, batches int64) {
	st := s.stage
	st.mu.Lock()
	st.bytes += n
	st.held += batches
	b, k := st.bytes, st.held
	st.mu.Unlock()
	if s.metrics != nil {
		s.metrics.StateBytes.Store(b)
		s.metrics.StateKeys.Store(k)
	}
}

// Snapshot stages the batches received since the last checkpoint: it
// writes each as an entry, with the position after them, and deletes
// the entries of the batches appended since.
func (s *streamSink) Snapshot(ctx context.Context, epoch uint64, w exec.StateWriter) error {
	st := s.stage
	if st == nil {
		return nil
	}
	st.mu.Lock()
	done := st.done
	st.done = nil
	st.mu.Unlock()
	for _, pos := range done {
		if err := w.Delete(st.group, stagedEntry(pos)); err != nil {
			return err
		}
	}
	for i := range st.pending {
		st.pending[i].epoch = epoch
		if err := w.Put(st.group, stagedEntry(st.pending[i].pos), st.pending[i].data); err != nil {
			return err
		}
	}
	if !st.written || st.lastN != st.next {
		if err := w.Put(st.group, []byte{nextKey}, binary.BigEndian.AppendUint64(nil, st.next)); err != nil {
			return err
		}
		st.lastN, st.written = st.next, true
	}
	st.mu.Lock()
	st.staged = append(st.staged, st.pending...)
	st.mu.Unlock()
	st.pending = nil
	return nil
}

// Commit appends the batches staged for epochs up to epoch to the log.
func (s *streamSink) Commit(ctx context.Context, epoch uint64) error {
	if s.stage == nil {
		return nil
	}
	return s.appendStaged(epoch, false)
}

// appendStaged appends the staged batches of epochs up to epoch (all of
// them when all is set), in order.
func (s *streamSink) appendStaged(epoch uint64, all bool) error {
	st := s.stage
	st.publish.Lock()
	defer st.publish.Unlock()
	st.mu.Lock()
	n := 0
	for n < len(st.staged) && (all || st.staged[n].epoch <= epoch) {
		n++
	}
	batches := append([]stagedBatch(nil), st.staged[:n]...)
	st.mu.Unlock()
	for i, b := range batches {
		if err := s.appendEncoded(b); err != nil {
			s.appendedStaged(batches[:i])
			return err
		}
	}
	s.appendedStaged(batches)
	return nil
}

// appendedStaged moves the first len(batches) staged batches, appended,
// to done.
func (s *streamSink) appendedStaged(batches []stagedBatch) {
	st := s.stage
	var freed int64
	st.mu.Lock()
	st.staged = append(st.staged[:0], st.staged[len(batches):]...)
	for _, b := range batches {
		st.done = append(st.done, b.pos)
		freed += int64(len(b.data))
	}
	st.mu.Unlock()
	s.addBytes(-freed, -int64(len(batches)))
}

// appendEncoded appends b, which must start where the writer's appended
// rows end, to the log, recording the rows appended after it.
func (s *streamSink) appendEncoded(b stagedBatch) error {
	if b.pos != s.appended {
		return fmt.Errorf("appending rows %d to %d of this query's output: the log holds %d of them", b.pos, b.pos+uint64(b.rows), s.appended)
	}
	batch, err := storage.DecodeBatch(b.data, s.schema, s.stage.alloc)
	if err != nil {
		return err
	}
	defer batch.Release()
	return s.appendBatch(batch)
}

// publishAll appends everything the sink holds: the staged batches, then
// those received since the last checkpoint.
func (s *streamSink) publishAll() error {
	if err := s.appendStaged(0, true); err != nil {
		return err
	}
	st := s.stage
	st.publish.Lock()
	defer st.publish.Unlock()
	for len(st.pending) > 0 {
		b := st.pending[0]
		if err := s.appendEncoded(b); err != nil {
			return err
		}
		st.pending = st.pending[1:]
		s.addBytes(-int64(len(b.data)), -1)
	}
	st.pending = nil
	return nil
}

// Restore appends the batches the restored checkpoint staged that the log
// does not hold yet, and skips the rows appended beyond the checkpoint
// (at the end of a bounded input), which the query computes again.
func (s *streamSink) Restore(ctx context.Context, r exec.StateReader, groups exec.KeyGroupRange) error {
	st := s.stage
	if st == nil {
		return nil
	}
	var batches []stagedBatch
	var next uint64
	found := false
	err := r.Scan(ctx, groups, func(_ int, key, value []byte) error {
		switch {
		case len(key) == 9 && key[0] == stagedKey:
			batch, err := storage.DecodeBatch(value, s.schema, st.alloc)
			if err != nil {
				return fmt.Errorf("bad staged batch at row %d: %w", binary.BigEndian.Uint64(key[1:]), err)
			}
			rows := batch.NumRows()
			batch.Release()
			batches = append(batches, stagedBatch{pos: binary.BigEndian.Uint64(key[1:]), rows: rows, data: append([]byte(nil), value...)})
		case len(key) == 1 && key[0] == nextKey:
			if len(value) != 8 {
				return fmt.Errorf("bad position entry: %d bytes", len(value))
			}
			next, found = binary.BigEndian.Uint64(value), true
		default:
			return fmt.Errorf("unknown entry key %q", key)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("restoring the appends to the stream's log: %w", err)
	}
	if !found {
		return errors.New("restoring the appends to the stream's log: the checkpoint has no record of their position")
	}
	for _, b := range batches { // in order of position: the order of their keys
		switch {
		case b.pos+uint64(b.rows) <= s.appended: // appended before the crash
		case b.pos == s.appended:
			if err := s.appendEncoded(b); err != nil {
				return fmt.Errorf("restoring the appends to the stream's log: %w", err)
			}
		default:
			return fmt.Errorf("restoring the appends to the stream's log: the checkpoint's rows %d to %d do not follow the %d rows appended",
				b.pos, b.pos+uint64(b.rows), s.appended)
		}
		st.done = append(st.done, b.pos)
	}
	if s.appended < next {
		return fmt.Errorf("restoring the appends to the stream's log: it holds %d rows of this query's output, fewer than the %d its checkpoint recorded",
			s.appended, next)
	}
	st.next, st.lastN, st.written = s.appended, next, true
	s.skip = int64(s.appended - next)
	return nil
}
