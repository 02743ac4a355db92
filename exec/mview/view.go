package mview

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/rowset"
)

// View holds the current result of a query — the integral of its changes —
// and streams those changes to subscribers (views over views, push queries
// over views). It is safe for concurrent use: one writer (the query's sink)
// and any number of readers.
type View struct {
	names  []string
	types  []types.T
	key    []int // a unique key of the rows, if the query has one
	upsert bool  // Upsert was called

	mu    sync.Mutex
	rows  *rowset.Set
	subs  map[*Subscription]struct{}
	ended bool
	err   error // set by Fail: the query maintaining the view failed
}

// New returns an empty view of rows with the given columns. key lists the
// ordinals of a unique key of the rows, if the query has one.
func New(names []string, ts []types.T, key []int) *View {
	return &View{names: names, types: ts, key: key, rows: rowset.New(ts, key), subs: map[*Subscription]struct{}{}}
}

// Upsert makes a keyed view replace the row of a key it holds when its
// query inserts that key again: a query with a state TTL forgets an idle
// key without retracting its row, and a later row of the key makes a new
// one. Subscribers see the replacement as an update (-U of the old row,
// +U of the new), so that their own integrals stay consistent. A view
// without a key is unaffected.
func (m *View) Upsert() {
	m.mu.Lock()
	m.upsert = true
	m.rows.SetUpsert()
	m.mu.Unlock()
}

// newSet returns an empty set of rows like the view's: same columns, key
// and upsert behaviour.
func (m *View) newSet() *rowset.Set {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := rowset.New(m.types, m.key)
	if m.upsert {
		s.SetUpsert()
	}
	return s
}

// Size returns the number of distinct rows held and their estimated
// memory.
func (m *View) Size() (rows int, bytes int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rows.Len(), m.rows.Bytes()
}

// Names returns the column names.
func (m *View) Names() []string { return m.names }

// Types returns the column types.
func (m *View) Types() []types.T { return m.types }

// Len returns the number of distinct rows held.
func (m *View) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rows.Len()
}

// Apply integrates a chunk of changes and forwards it to the subscribers.
// A retraction of a row the view does not hold is a broken invariant of
// the query that feeds it and is reported as an error.
func (m *View) Apply(ctx context.Context, c exec.Chunk) error {
	if c.NumRows() == 0 {
		return nil
	}
	m.mu.Lock()
	err := m.rows.Apply(c)
	subs := m.subscribers()
	var fixed exec.Chunk
	if rep := m.rows.Replaced(); err == nil && len(rep) > 0 && len(subs) > 0 {
		fixed = m.withReplaced(c, rep)
		c = fixed
	}
	m.mu.Unlock()
	if fixed.Batch != nil {
		defer fixed.Batch.Release()
	}
	if err != nil {
		return err
	}
	for _, s := range subs {
		if err := s.pushApplied(ctx, subMessage{chunk: c.Keep()}); err != nil {
			return err
		}
	}
	return nil
}

// appliedGrace is how long a change already applied to a view's rows is
// still offered to a subscriber after the applying query was stopped.
const appliedGrace = 10 * time.Second

// pushApplied delivers a change the view's rows already hold. Unlike a
// control message, it must not be dropped when the applying query stops
// (a rescale stops it, and the next query reconciles the view's rows with
// what it computed): a subscriber that missed it would later receive the
// retraction of a row it never got. So a stop only ends the wait after
// appliedGrace, and then the subscriber fails with an error saying why,
// rather than going on inconsistent.
func (s *Subscription) pushApplied(ctx context.Context, m subMessage) error {
	err := s.push(ctx, m)
	if err == nil || ctx.Err() == nil {
		if err != nil {
			m.chunk.Batch.Release()
		}
		return err
	}
	grace := time.NewTimer(appliedGrace)
	defer grace.Stop()
	select {
	case s.ch <- m:
		return nil
	case <-s.closed:
		m.chunk.Batch.Release()
		return nil
	case <-grace.C:
		m.chunk.Batch.Release()
		s.fail(fmt.Errorf("the materialized view it reads changed while it was more than %s behind, and the change could not be delivered: it must be rebuilt", appliedGrace))
		return err
	}
}

func (m *View) subscribers() []*Subscription {
	out := make([]*Subscription, 0, len(m.subs))
	for s := range m.subs {
		out = append(out, s)
	}
	return out
}

// Control forwards flush markers and end of input to the subscribers.
func (m *View) Control(ctx context.Context, c exec.Control) error {
	if c.Kind != exec.Flush && c.Kind != exec.EndOfInput {
		return nil
	}
	m.mu.Lock()
	if c.Kind == exec.EndOfInput {
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
func (m *View) Fail(err error) {
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
func (m *View) Err() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err
}

// Snapshot returns a copy of the rows held now (a row held k times appears
// k times), in no particular order.
func (m *View) Snapshot() [][]types.Datum {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.snapshotLocked()
}

func (m *View) snapshotLocked() [][]types.Datum { return m.rows.Rows() }

// Batches returns the rows held now, columns ords of the view's, as record
// batches of the given schema (a row held k times appears k times),
// skipping stored segments whose rows lie outside one of ranges (ranges
// over the view's columns; the batches may still hold rows outside
// them). Most share the view's memory rather than copy it; all stay valid
// however the view changes. The caller releases them.
func (m *View) Batches(schema *arrow.Schema, ords []int, ranges ...rowset.Range) []arrow.RecordBatch {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rows.Batches(schema, ords, ranges...)
}

// schema returns the schema of the view's rows.
func (m *View) schema() *arrow.Schema {
	fields := make([]arrow.Field, len(m.types))
	for i, t := range m.types {
		fields[i] = types.Field(m.names[i], t, true)
	}
	return arrow.NewSchema(fields, nil)
}

// allColumns returns the ordinals of every column.
func (m *View) allColumns() []int {
	ords := make([]int, len(m.types))
	for i := range ords {
		ords[i] = i
	}
	return ords
}

// Subscribe returns a subscription that first delivers the rows held now as
// inserts and then every later change, in order. If the view's input has
// already ended, end of input follows the snapshot.
func (m *View) Subscribe(alloc memory.Allocator) *Subscription {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := &Subscription{mv: m, alloc: alloc, ch: make(chan subMessage, subscriptionCapacity),
		closed: make(chan struct{}), failed: make(chan struct{}), initial: m.rows.Batches(m.schema(), m.allColumns()), ended: m.ended}
	switch {
	case m.err != nil:
		s.fail(m.err)
	case !m.ended:
		m.subs[s] = struct{}{}
	}
	return s
}

func (m *View) unsubscribe(s *Subscription) {
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
	chunk exec.Chunk
	ctrl  exec.Control
}

// Subscription is a MessageSource reading a view's changes.
type Subscription struct {
	mv      *View
	alloc   memory.Allocator
	ch      chan subMessage
	closed  chan struct{}
	once    sync.Once
	failed  chan struct{} // closed by fail, after err is set
	err     error
	fonce   sync.Once
	initial []arrow.RecordBatch // the rows held when subscribed, not yet read
	ended   bool                // the view had ended when subscribed
	done    bool
}

var _ exec.MessageSource = (*Subscription)(nil)

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
func (s *Subscription) Open(ctx context.Context, env *exec.Env) error {
	if env != nil && env.Alloc != nil {
		s.alloc = env.Alloc
	}
	return nil
}

// Next implements Source; subscriptions are read with NextMessage.
func (s *Subscription) Next(ctx context.Context) (exec.Chunk, error) {
	return exec.Chunk{}, fmt.Errorf("exec: a subscription is read with NextMessage")
}

// Wait implements Source.
func (s *Subscription) Wait(ctx context.Context) error { return nil }

// NextMessage implements MessageSource.
func (s *Subscription) NextMessage(ctx context.Context) (exec.Chunk, exec.Control, error) {
	select {
	case <-s.failed:
		return exec.Chunk{}, exec.Control{}, s.err
	default:
	}
	if len(s.initial) > 0 {
		rec := s.initial[0]
		s.initial = s.initial[1:]
		return exec.Chunk{Batch: rec}, exec.Control{}, nil
	}
	if s.ended {
		if s.done {
			return exec.Chunk{}, exec.Control{}, io.EOF
		}
		s.done = true
		return exec.Chunk{}, exec.Control{Kind: exec.EndOfInput}, nil
	}
	select {
	case m := <-s.ch:
		return m.chunk, m.ctrl, nil
	case <-s.failed:
		return exec.Chunk{}, exec.Control{}, s.err
	case <-ctx.Done():
		return exec.Chunk{}, exec.Control{}, ctx.Err()
	}
}

// Close implements Source: it unsubscribes and drops queued changes.
func (s *Subscription) Close() error {
	s.once.Do(func() {
		close(s.closed)
		s.mv.unsubscribe(s)
		for _, rec := range s.initial {
			rec.Release()
		}
		s.initial = nil
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
