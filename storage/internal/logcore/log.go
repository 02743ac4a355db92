package logcore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/internal/guard"
)

// Backend stores a Log's entry frames. The Log never calls Put or Drop
// concurrently for one stream, but calls Iter and End concurrently with
// them and with everything else.
type Backend interface {
	// End returns one past the highest sequence number stored for stream,
	// 0 if there is none. The Log calls it once per stream, before any
	// write to it.
	End(stream uint64) (uint64, error)
	// Put durably stores frame as stream's entry seq, replacing any
	// leftovers of an earlier failed Put of seq, and, when mark is not nil,
	// sets the key-value store's mark.Key to mark.Val in the same atomic
	// write. It must not keep frame or mark.
	Put(stream, seq uint64, frame []byte, mark *Mark) error
	// Iter returns an iterator over stream's stored entries with
	// from <= seq < to, in order.
	Iter(stream, from, to uint64) Iterator
	// Drop deletes all of stream's entries.
	Drop(stream uint64) error
}

// Mark is a key-value store entry written with a log entry
// (storage.Log's AppendMarked).
type Mark struct {
	Key, Val []byte
}

// Iterator walks a stream's entries. It is used by one goroutine.
type Iterator interface {
	// Next moves to the next entry and returns its seq; ok is false at the
	// end or after an error (see Err).
	Next() (seq uint64, ok bool)
	// Frame calls fn with the current entry's frame, which is valid only
	// during fn. fn must not block: the backend may hold locks meanwhile.
	// Damage to the backend's own structures is an error (which the Log
	// reports as the entry's corruption); errors from fn are returned as
	// they are.
	Frame(fn func(frame []byte) error) error
	// Err returns the error that ended the iteration, if any.
	Err() error
	// Close releases the iterator.
	Close()
}

// Log implements storage.Log over a Backend.
type Log struct {
	b Backend
	g *guard.Guard

	mu      sync.Mutex
	streams map[uint64]*stream

	bufs sync.Pool // *[]byte frame buffers reused by Append
}

var _ storage.Log = (*Log)(nil)

// maxPooledBuf is the largest frame buffer Append keeps for reuse; larger
// ones (from batches far above the usual 1–8K rows) go to the collector
// rather than pinning memory.
const maxPooledBuf = 4 << 20

// New returns a Log over b whose operations g guards.
func New(b Backend, g *guard.Guard) *Log {
	return &Log{b: b, g: g, streams: map[uint64]*stream{}}
}

// stream is the in-memory state of one stream's log.
type stream struct {
	// wmu serializes the writers, Append and Drop.
	wmu sync.Mutex

	// mu guards the published state below.
	mu      sync.Mutex
	end     uint64        // the next seq; entries below it are readable
	gen     uint64        // incremented by every Drop
	changed chan struct{} // closed and replaced whenever end changes
}

func (s *stream) state() (end, gen uint64, changed <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.end, s.gen, s.changed
}

// publish sets end and wakes the waiters; dropped says a Drop did it.
func (s *stream) publish(end uint64, dropped bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.end = end
	if dropped {
		s.gen++
	}
	close(s.changed)
	s.changed = make(chan struct{})
}

// enter starts an operation on stream id and returns the stream: unless
// it fails, the DB stays open until the caller calls l.g.Exit.
func (l *Log) enter(id uint64) (*stream, error) {
	if err := l.g.Enter(); err != nil {
		return nil, err
	}
	s, err := l.stream(id)
	if err != nil {
		l.g.Exit()
		return nil, err
	}
	return s, nil
}

// stream returns id's state, loading its high-water mark on first use.
func (l *Log) stream(id uint64) (*stream, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s, ok := l.streams[id]; ok {
		return s, nil
	}
	end, err := l.b.End(id)
	if err != nil {
		return nil, fmt.Errorf("storage: loading stream %d: %w", id, err)
	}
	s := &stream{end: end, changed: make(chan struct{})}
	l.streams[id] = s
	return s, nil
}

// Append implements storage.Log.
func (l *Log) Append(id uint64, batch arrow.RecordBatch) (uint64, error) {
	return l.append(id, batch, nil)
}

// AppendMarked implements storage.Log.
func (l *Log) AppendMarked(id uint64, batch arrow.RecordBatch, key, val []byte) (uint64, error) {
	return l.append(id, batch, &Mark{Key: key, Val: val})
}

// append appends batch to stream id, with mark when it is not nil.
func (l *Log) append(id uint64, batch arrow.RecordBatch, mark *Mark) (uint64, error) {
	s, err := l.enter(id)
	if err != nil {
		return 0, err
	}
	defer l.g.Exit()
	bp, _ := l.bufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	frame, err := encodeFrame((*bp)[:0], batch)
	if err != nil {
		return 0, fmt.Errorf("storage: appending to stream %d: %w", id, err)
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	seq, _, _ := s.state()
	if err := l.b.Put(id, seq, frame, mark); err != nil {
		return 0, fmt.Errorf("storage: appending to stream %d: %w", id, err)
	}
	s.publish(seq+1, false)
	if cap(frame) <= maxPooledBuf {
		*bp = frame
		l.bufs.Put(bp)
	}
	return seq, nil
}

// Read implements storage.Log.
func (l *Log) Read(ctx context.Context, id uint64, from, to uint64, schema *arrow.Schema,
	alloc memory.Allocator, fn func(seq uint64, batch arrow.RecordBatch) error) (uint64, error) {
	s, err := l.enter(id)
	if err != nil {
		return from, err
	}
	defer l.g.Exit()
	end, gen, _ := s.state()
	hi := min(to, end)
	if from >= hi {
		return from, nil
	}
	it := l.b.Iter(id, from, hi)
	defer it.Close()
	next := from
	for next < hi {
		seq, ok := it.Next()
		if !ok {
			break
		}
		if err := ctx.Err(); err != nil {
			return next, err
		}
		if seq != next {
			return next, l.readFailed(s, gen, &storage.CorruptEntryError{Stream: id, Seq: next, Err: errMissing})
		}
		var batch arrow.RecordBatch
		err := it.Frame(func(frame []byte) error {
			var err error
			batch, err = decodeFrame(frame, schema, alloc)
			return err
		})
		if err != nil {
			return next, l.readFailed(s, gen, &storage.CorruptEntryError{Stream: id, Seq: seq, Err: err})
		}
		err = fn(seq, batch)
		batch.Release()
		if err != nil {
			return next, err
		}
		next++
	}
	if err := it.Err(); err != nil {
		return next, l.readFailed(s, gen, fmt.Errorf("storage: reading stream %d: %w", id, err))
	}
	if next < hi {
		return next, l.readFailed(s, gen, &storage.CorruptEntryError{Stream: id, Seq: next, Err: errMissing})
	}
	return next, nil
}

// readFailed returns err, or ErrDropped if the stream was dropped since
// the read began (which explains the failure).
func (l *Log) readFailed(s *stream, gen uint64, err error) error {
	if _, g, _ := s.state(); g != gen {
		return fmt.Errorf("storage: reading stream: %w", storage.ErrDropped)
	}
	return err
}

var errMissing = fmt.Errorf("%w: entry is missing", storage.ErrCorrupt)

// End implements storage.Log.
func (l *Log) End(id uint64) (uint64, error) {
	s, err := l.enter(id)
	if err != nil {
		return 0, err
	}
	defer l.g.Exit()
	end, _, _ := s.state()
	return end, nil
}

// Wait implements storage.Log.
func (l *Log) Wait(ctx context.Context, id uint64, after uint64) error {
	s, err := l.enter(id)
	if err != nil {
		return err
	}
	l.g.Exit()
	for {
		end, _, changed := s.state()
		if end > after {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		case <-l.g.Done():
			return fmt.Errorf("storage: waiting on stream %d: %w", id, storage.ErrClosed)
		}
	}
}

// Drop implements storage.Log.
func (l *Log) Drop(id uint64) error {
	s, err := l.enter(id)
	if err != nil {
		return err
	}
	defer l.g.Exit()
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if err := l.b.Drop(id); err != nil {
		return fmt.Errorf("storage: dropping stream %d: %w", id, err)
	}
	s.publish(0, true)
	return nil
}

// An entry's frame is a format byte, the CRC-32C (Castagnoli, hardware
// accelerated on amd64 and arm64) of the payload, little-endian, and the
// payload: the batch as storage.EncodeBatch encodes it. The checksum
// catches damage the batch codec's structural checks cannot, such as a
// flipped bit inside a value.
const (
	frameFormat = 1
	frameHeader = 5
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// encodeFrame appends batch's frame to dst.
func encodeFrame(dst []byte, batch arrow.RecordBatch) ([]byte, error) {
	start := len(dst)
	dst = append(dst, frameFormat, 0, 0, 0, 0)
	dst, err := storage.EncodeBatch(dst, batch)
	if err != nil {
		return nil, err
	}
	sum := crc32.Checksum(dst[start+frameHeader:], castagnoli)
	binary.LittleEndian.PutUint32(dst[start+1:], sum)
	return dst, nil
}

var errShortFrame = errors.New("entry is shorter than its frame header")

// decodeFrame checks frame and decodes its batch.
func decodeFrame(frame []byte, schema *arrow.Schema, alloc memory.Allocator) (arrow.RecordBatch, error) {
	if len(frame) < frameHeader {
		return nil, errShortFrame
	}
	if frame[0] != frameFormat {
		return nil, fmt.Errorf("unknown entry format %d", frame[0])
	}
	want := binary.LittleEndian.Uint32(frame[1:])
	if got := crc32.Checksum(frame[frameHeader:], castagnoli); got != want {
		return nil, fmt.Errorf("checksum mismatch (stored %08x, computed %08x)", want, got)
	}
	return storage.DecodeBatch(frame[frameHeader:], schema, alloc)
}
