package exec

import (
	"context"
	"fmt"
	"io"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/internal/rowkey"
)

// MView holds the current result of a query — the integral of its changes —
// and streams those changes to subscribers (views over views, push queries
// over views). It is safe for concurrent use: one writer (the query's sink)
// and any number of readers.
type MView struct {
	names []string
	types []types.T
	key   []int // ordinals of a unique key; nil: rows form a multiset

	mu     sync.Mutex
	rows   map[string]*mvRow
	bytes  int64 // estimated memory of rows
	subs   map[*Subscription]struct{}
	ended  bool
	err    error // set by Fail: the query maintaining the view failed
	keyBuf []byte
}

type mvRow struct {
	vals  []types.Datum
	count int64
}

// NewMView returns an empty view of rows with the given columns. key lists
// the ordinals of a unique key of the rows, if the query has one.
func NewMView(names []string, ts []types.T, key []int) *MView {
	return &MView{names: names, types: ts, key: key, rows: map[string]*mvRow{}, subs: map[*Subscription]struct{}{}}
}

// mvRowOverhead estimates the memory of a row besides its key's bytes and
// its values: the map entry (the key's string header, the pointer, and the
// map's load factor), the mvRow and the allocations' rounding.
const mvRowOverhead = 96

// datumSize is the size of a types.Datum.
var datumSize = int64(unsafe.Sizeof(types.Datum{}))

// datumsBytes estimates the memory of a row's values.
func datumsBytes(vals []types.Datum) int64 {
	n := datumSize * int64(len(vals))
	for i := range vals {
		n += int64(len(vals[i].S))
	}
	return n
}

// Size returns the number of distinct rows held and their estimated
// memory.
func (m *MView) Size() (rows int, bytes int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.rows), m.bytes
}

// Names returns the column names.
func (m *MView) Names() []string { return m.names }

// Types returns the column types.
func (m *MView) Types() []types.T { return m.types }

// Len returns the number of distinct rows held.
func (m *MView) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.rows)
}

// Apply integrates a chunk of changes and forwards it to the subscribers.
// A retraction of a row the view does not hold is a broken invariant of
// the query that feeds it and is reported as an error.
func (m *MView) Apply(ctx context.Context, c Chunk) error {
	n := c.NumRows()
	if n == 0 {
		return nil
	}
	cols := c.Batch.Columns()
	keyCols := cols
	if m.key != nil {
		keyCols = make([]arrow.Array, len(m.key))
		for i, k := range m.key {
			keyCols[i] = cols[k]
		}
	}
	m.mu.Lock()
	for i := 0; i < n; i++ {
		m.keyBuf = rowkey.Append(m.keyBuf[:0], keyCols, i)
		w := c.Op(i).Weight()
		r, ok := m.rows[string(m.keyBuf)]
		if !ok {
			if w < 0 {
				m.mu.Unlock()
				return fmt.Errorf("exec: retraction of a row the result does not hold: %v", m.rowAt(cols, i))
			}
			r = &mvRow{}
			m.rows[string(m.keyBuf)] = r
			m.bytes += mvRowOverhead + int64(len(m.keyBuf))
		}
		r.count += w
		switch {
		case r.count == 0:
			delete(m.rows, string(m.keyBuf))
			m.bytes -= mvRowOverhead + int64(len(m.keyBuf)) + datumsBytes(r.vals)
		case w > 0:
			m.bytes -= datumsBytes(r.vals)
			r.vals = m.rowAt(cols, i)
			m.bytes += datumsBytes(r.vals)
		}
	}
	subs := m.subscribers()
	m.mu.Unlock()
	for _, s := range subs {
		kept := c.Keep()
		if err := s.push(ctx, subMessage{chunk: kept}); err != nil {
			kept.Batch.Release()
			return err
		}
	}
	return nil
}

func (m *MView) rowAt(cols []arrow.Array, i int) []types.Datum {
	vals := make([]types.Datum, len(cols))
	for j, col := range cols {
		vals[j] = types.DatumAt(col, i, m.types[j])
	}
	return vals
}

func (m *MView) subscribers() []*Subscription {
	out := make([]*Subscription, 0, len(m.subs))
	for s := range m.subs {
		out = append(out, s)
	}
	return out
}

// Control forwards flush markers and end of input to the subscribers.
func (m *MView) Control(ctx context.Context, c Control) error {
	if c.Kind != Flush && c.Kind != EndOfInput {
		return nil
	}
	m.mu.Lock()
	if c.Kind == EndOfInput {
		m.ended = true
	}
	subs := m.subscribers()
	m.mu.Unlock()
	for _, s := range subs {
		if err := s.push(ctx, subMessage{ctrl: c}); err != nil {
			return err
		}
	}
	return nil
}

// Fail records that the query maintaining the view failed: readers get err,
// and subscribers stop with it instead of waiting for changes.
func (m *MView) Fail(err error) {
	m.mu.Lock()
	m.err = err
	subs := m.subscribers()
	m.subs = map[*Subscription]struct{}{}
	m.mu.Unlock()
	for _, s := range subs {
		s.fail(err)
	}
}

// Err returns the error the view failed with, if any.
func (m *MView) Err() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err
}

// Snapshot returns a copy of the rows held now (a row held k times appears
// k times), in no particular order.
func (m *MView) Snapshot() [][]types.Datum {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.snapshotLocked()
}

func (m *MView) snapshotLocked() [][]types.Datum {
	out := make([][]types.Datum, 0, len(m.rows))
	for _, r := range m.rows {
		for k := int64(0); k < r.count; k++ {
			out = append(out, r.vals)
		}
	}
	return out
}

// Subscribe returns a subscription that first delivers the rows held now as
// inserts and then every later change, in order. If the view's input has
// already ended, end of input follows the snapshot.
func (m *MView) Subscribe(alloc memory.Allocator) *Subscription {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := &Subscription{mv: m, alloc: alloc, ch: make(chan subMessage, subscriptionCapacity),
		closed: make(chan struct{}), failed: make(chan struct{}), initial: m.snapshotLocked(), ended: m.ended}
	switch {
	case m.err != nil:
		s.fail(m.err)
	case !m.ended:
		m.subs[s] = struct{}{}
	}
	return s
}

func (m *MView) unsubscribe(s *Subscription) {
	m.mu.Lock()
	delete(m.subs, s)
	m.mu.Unlock()
}

// subscriptionCapacity is the number of messages a view subscription
// queues. It is bounded so a slow subscriber back-pressures its view.
const subscriptionCapacity = 16

// subMessage is what a subscription queues: a chunk of changes or a
// control message.
type subMessage struct {
	chunk Chunk
	ctrl  Control
}

// Subscription is a MessageSource reading a view's changes.
type Subscription struct {
	mv      *MView
	alloc   memory.Allocator
	ch      chan subMessage
	closed  chan struct{}
	once    sync.Once
	failed  chan struct{} // closed by fail, after err is set
	err     error
	fonce   sync.Once
	initial [][]types.Datum
	ended   bool // the view had ended when subscribed
	done    bool
}

var _ MessageSource = (*Subscription)(nil)

func (s *Subscription) fail(err error) {
	s.fonce.Do(func() {
		s.err = err
		close(s.failed)
	})
}

func (s *Subscription) push(ctx context.Context, m subMessage) error {
	select {
	case s.ch <- m:
		return nil
	case <-s.closed:
		if m.chunk.Batch != nil {
			m.chunk.Batch.Release()
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Open implements Source.
func (s *Subscription) Open(ctx context.Context, env *Env) error {
	if env != nil && env.Alloc != nil {
		s.alloc = env.Alloc
	}
	return nil
}

// Next implements Source; subscriptions are read with NextMessage.
func (s *Subscription) Next(ctx context.Context) (Chunk, error) {
	return Chunk{}, fmt.Errorf("exec: a subscription is read with NextMessage")
}

// Wait implements Source.
func (s *Subscription) Wait(ctx context.Context) error { return nil }

// NextMessage implements MessageSource.
func (s *Subscription) NextMessage(ctx context.Context) (Chunk, Control, error) {
	select {
	case <-s.failed:
		return Chunk{}, Control{}, s.err
	default:
	}
	if len(s.initial) > 0 {
		n := min(len(s.initial), BatchRows)
		rec := types.BuildRecord(s.alloc, s.mv.names, s.mv.types, s.initial[:n])
		s.initial = s.initial[n:]
		return Chunk{Batch: rec}, Control{}, nil
	}
	if s.ended {
		if s.done {
			return Chunk{}, Control{}, io.EOF
		}
		s.done = true
		return Chunk{}, Control{Kind: EndOfInput}, nil
	}
	select {
	case m := <-s.ch:
		return m.chunk, m.ctrl, nil
	case <-s.failed:
		return Chunk{}, Control{}, s.err
	case <-ctx.Done():
		return Chunk{}, Control{}, ctx.Err()
	}
}

// Close implements Source: it unsubscribes and drops queued changes.
func (s *Subscription) Close() error {
	s.once.Do(func() {
		close(s.closed)
		s.mv.unsubscribe(s)
		for {
			select {
			case m := <-s.ch:
				if m.chunk.Batch != nil {
					m.chunk.Batch.Release()
				}
				continue
			default:
			}
			return
		}
	})
	return nil
}
