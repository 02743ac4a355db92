package engine

import (
	"context"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector"
	"github.com/eddysql/eddy/exec/dataflow"
	"github.com/eddysql/eddy/exec/internal/rowset"
	"github.com/eddysql/eddy/optimizer/physical"
	"github.com/eddysql/eddy/planner/plan"
	"github.com/eddysql/eddy/storage"
)

// sourceFor creates the runtime source of a physical Source node.
func (e *Engine) sourceFor(src *physical.Source, instance int) (exec.Source, error) {
	obj := src.Object
	snap := src.Mode == plan.ScanSnapshot
	switch {
	case obj.Kind == catalog.View:
		e.mu.Lock()
		q, broken := e.queries[lower(obj.Name)], e.broken[lower(obj.Name)]
		if d := e.detached[obj.ID]; d != nil && (q == nil || q.obj.ID != obj.ID) {
			// A view dropped since that runs on for its readers
			// (share.go).
			q, broken = d, nil
		}
		e.mu.Unlock()
		if broken != nil {
			return nil, fmt.Errorf("materialized view '%s' could not resume: %w", obj.Name, broken)
		}
		if q == nil {
			return nil, fmt.Errorf("materialized view '%s' is not running", obj.Name)
		}
		if err := q.mv.Err(); err != nil {
			return nil, err
		}
		if state, err := q.job.State(); state == dataflow.JobFailed {
			return nil, fmt.Errorf("materialized view '%s' failed: %w", obj.Name, err)
		}
		if snap {
			ranges := make([]rowset.Range, len(src.Prune))
			for i, r := range src.Prune {
				ranges[i] = rowset.Range{Col: src.Ords[r.Ord], Lo: r.Lo, Hi: r.Hi, LoF: r.LoF, HiF: r.HiF}
			}
			return &batchesSource{batches: q.mv.Batches(schemaOf(src), src.Ords, ranges...)}, nil
		}
		return projectingMessages{&projecting{inner: q.mv.Subscribe(e.alloc), ords: src.Ords, schema: schemaOf(src)}}, nil
	case obj.Connector() == "":
		return &logSource{log: e.db.Log(), stream: obj.ID, obj: obj, full: obj.LogSchema(), ords: src.Ords,
			schema: schemaOf(src), snapshot: snap}, nil
	}
	conn, err := e.conns.Source(obj.Connector())
	if err != nil {
		return nil, err
	}
	read := connector.Continuous
	if snap {
		read = connector.Snapshot
	}
	spec := connector.Spec{Object: obj.Name, Options: connectorOptions(obj.Options), Columns: obj.Columns, PrimaryKey: primaryKeyNames(obj)}
	ords := src.Ords
	if cr, ok := conn.(connector.ColumnReader); ok && cr.ReadsColumns(spec.Options) {
		spec.Columns, ords = readColumns(obj.Columns, src.Ords)
	}
	inner, err := conn.Open(spec, read, e.connEnv())
	if err != nil {
		return nil, err
	}
	return project(inner, ords, schemaOf(src)), nil
}

// readColumns returns the columns of cols that ords (ordinals into cols,
// in the order a scan reads them, perhaps repeated) name, in cols' order
// and each once — the first column when ords names none, as a source
// makes at least one — and ords as ordinals into them.
func readColumns(cols []catalog.Column, ords []int) ([]catalog.Column, []int) {
	at := make([]int, len(cols))
	for i := range at {
		at[i] = -1
	}
	for _, o := range ords {
		at[o] = 0
	}
	var read []catalog.Column
	for i, c := range cols {
		if at[i] == 0 || (len(ords) == 0 && i == 0) {
			at[i] = len(read)
			read = append(read, c)
		}
	}
	out := make([]int, len(ords))
	for i, o := range ords {
		out[i] = at[o]
	}
	return read, out
}

// project narrows inner's chunks to the columns ords, as a source that is
// an exec.Generator (FLUSH need not wait for it) and an exec.Positioned
// exactly when inner is.
func project(inner exec.Source, ords []int, schema *arrow.Schema) exec.Source {
	p := &projecting{inner: inner, ords: ords, schema: schema}
	_, gen := inner.(exec.Generator)
	_, pos := inner.(exec.Positioned)
	switch {
	case gen && pos:
		return positionedGenerating{positioned{p}}
	case gen:
		return generating{p}
	case pos:
		return positioned{p}
	}
	return p
}

// schemaOf returns the schema of the chunks src's runtime source reads:
// its columns but the keep probability, which the source's task appends
// (dataflow.StageSpec.Keep).
func schemaOf(src *physical.Source) *arrow.Schema {
	cols := src.Cols
	if src.Keep {
		cols = cols[:len(cols)-1]
	}
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = types.Field(c.Name, c.Type, c.Nullable)
	}
	return arrow.NewSchema(fields, nil)
}

// projectBatch returns a new batch holding rec's columns ords (zero-copy).
func projectBatch(rec arrow.RecordBatch, ords []int, schema *arrow.Schema) arrow.RecordBatch {
	cols := make([]arrow.Array, len(ords))
	for i, o := range ords {
		cols[i] = rec.Column(o)
	}
	return array.NewRecordBatch(schema, cols, rec.NumRows())
}

// generating is a projecting exec.Generator: FLUSH need not wait for it.
type generating struct{ *projecting }

func (generating) GeneratesRows() {}

var _ exec.Generator = generating{}

// positioned is a projecting exec.Positioned: its position is its inner
// source's, as the projection neither drops nor adds rows.
type positioned struct{ *projecting }

var _ exec.Positioned = positioned{}

// Position implements exec.Positioned for the source it wraps.
func (p positioned) Position() ([]byte, error) { return p.inner.(exec.Positioned).Position() }

// Seek implements exec.Positioned for the source it wraps.
func (p positioned) Seek(ctx context.Context, pos []byte) error {
	return p.inner.(exec.Positioned).Seek(ctx, pos)
}

// Exhausted implements exec.Exhausted for the source it wraps: false
// when that one cannot tell.
func (p positioned) Exhausted() bool {
	ex, ok := p.inner.(exec.Exhausted)
	return ok && ex.Exhausted()
}

// positionedGenerating is a positioned exec.Generator.
type positionedGenerating struct{ positioned }

func (positionedGenerating) GeneratesRows() {}

var _ interface {
	exec.Generator
	exec.Positioned
} = positionedGenerating{}

// projecting narrows another source's chunks to the columns a query reads.
type projecting struct {
	inner  exec.Source
	ords   []int
	schema *arrow.Schema
}

// Unwrap returns the source whose columns p narrows: a cluster's task
// tells a Kafka source which partitions to read.
func (p *projecting) Unwrap() exec.Source { return p.inner }

var _ exec.MessageSource = (*projectingMessages)(nil)

func (p *projecting) Open(ctx context.Context, env *exec.Env) error { return p.inner.Open(ctx, env) }
func (p *projecting) Wait(ctx context.Context) error                { return p.inner.Wait(ctx) }
func (p *projecting) Close() error                                  { return p.inner.Close() }

// Bounded implements exec.BoundedSource for the source it wraps.
func (p *projecting) Bounded() bool {
	bs, ok := p.inner.(exec.BoundedSource)
	return ok && bs.Bounded()
}

// Finite implements exec.FiniteSource for the source it wraps.
func (p *projecting) Finite() bool {
	fs, ok := p.inner.(exec.FiniteSource)
	return ok && fs.Finite()
}

// TrackEventTime implements exec.PartitionedEventTime for a source that
// does: col, an ordinal of the projected chunks, is the inner source's
// column ords[col].
func (p *projecting) TrackEventTime(col int, idle time.Duration) bool {
	pe, ok := p.inner.(exec.PartitionedEventTime)
	return ok && col >= 0 && col < len(p.ords) && pe.TrackEventTime(p.ords[col], idle)
}

// EventTimeBound implements exec.PartitionedEventTime for the source it
// wraps (called only when TrackEventTime reported true).
func (p *projecting) EventTimeBound(now time.Time) (int64, bool) {
	return p.inner.(exec.PartitionedEventTime).EventTimeBound(now)
}

func (p *projecting) Next(ctx context.Context) (exec.Chunk, error) {
	c, err := p.inner.Next(ctx)
	if err != nil {
		return c, err
	}
	return p.project(c), nil
}

func (p *projecting) project(c exec.Chunk) exec.Chunk {
	out := exec.Chunk{Batch: projectBatch(c.Batch, p.ords, p.schema), Ops: c.Ops}
	c.Batch.Release()
	return out
}

// projectingMessages is projecting over a MessageSource.
type projectingMessages struct{ *projecting }

func (p projectingMessages) NextMessage(ctx context.Context) (exec.Chunk, exec.Control, error) {
	c, ctl, err := p.inner.(exec.MessageSource).NextMessage(ctx)
	if err != nil || ctl.Kind != 0 {
		return c, ctl, err
	}
	return p.project(c), ctl, nil
}

// logSource reads an INSERT-fed stream's durable log: from the beginning,
// following new appends (continuous), or up to the end it had when opened
// (snapshot). It implements exec.Positioned (positions.go): its position
// is the sequence number of the next log entry it returns, with the
// stream's id.
type logSource struct {
	log      storage.Log
	stream   uint64
	obj      *catalog.Object // the stream or table, for errors
	full     *arrow.Schema   // the stream's schema, as logged
	ords     []int
	schema   *arrow.Schema
	snapshot bool

	alloc   memory.Allocator
	metrics *exec.OperatorMetrics // progress: entries read, entries known
	next    uint64
	first   uint64 // the entry the first Next read from
	end     uint64 // snapshot bound
	known   uint64 // the log's end when last read: entries known to exist
	pending []logEntry
	started bool // Next was called: Seek is too late
	// atEnd says Seek found no entry past its position (exec.Exhausted).
	atEnd bool
}

// logEntry is an entry of the log read but not returned yet.
type logEntry struct {
	seq   uint64
	batch arrow.RecordBatch
	ops   []exec.Op // nil: every row is an insert
}

// logOps returns the change ops of a log entry b of obj: nil (all
// inserts) unless obj's log records ops (catalog.Object.LogOps) and b
// holds a deletion.
func logOps(obj *catalog.Object, b arrow.RecordBatch) []exec.Op {
	if !obj.LogOps {
		return nil
	}
	col := b.Column(int(b.NumCols()) - 1).(*array.Int8).Int8Values()
	var ops []exec.Op
	for i, v := range col {
		if v == catalog.LogDelete {
			if ops == nil {
				ops = make([]exec.Op, len(col))
			}
			ops[i] = exec.Delete
		}
	}
	return ops
}

// logReadEntries bounds the entries read per Next, so a long log is
// delivered in steps instead of decoded all at once.
const logReadEntries = 64

func (s *logSource) Open(ctx context.Context, env *exec.Env) error {
	s.alloc, s.metrics = env.Alloc, env.Metrics
	if s.snapshot {
		end, err := s.log.End(s.stream)
		if err != nil {
			return err
		}
		s.end = end
	}
	return nil
}

func (s *logSource) Next(ctx context.Context) (exec.Chunk, error) {
	if !s.started {
		s.started, s.first = true, s.next
	}
	if len(s.pending) == 0 {
		to := uint64(math.MaxUint64)
		if s.snapshot {
			to = s.end
		}
		if s.next < to {
			to = min(to, s.next+logReadEntries)
			next, err := s.log.Read(ctx, s.stream, s.next, to, s.full, s.alloc, func(seq uint64, b arrow.RecordBatch) error {
				s.pending = append(s.pending, logEntry{seq, projectBatch(b, s.ords, s.schema), logOps(s.obj, b)})
				return nil
			})
			if err != nil {
				return exec.Chunk{}, fmt.Errorf("reading the log of %s %s: %w", s.obj.Kind, s.obj.Name, err)
			}
			s.next = next
			s.noteEnd()
		}
	}
	if len(s.pending) == 0 {
		if s.snapshot {
			return exec.Chunk{}, io.EOF
		}
		return exec.Chunk{}, exec.ErrCaughtUp
	}
	b, ops := s.pending[0].batch, s.pending[0].ops
	s.pending = s.pending[1:]
	if s.metrics != nil {
		// Progress counts the entries handed on, not those read ahead,
		// so that it matches the rows the runtime counted.
		at := s.next - uint64(len(s.pending))
		s.metrics.ReportInput(int64(at-s.first), int64(s.known)-int64(at))
	}
	return exec.Chunk{Batch: b, Ops: ops}, nil
}

// noteEnd records the entries known to exist, for progress reports: up to
// the snapshot's bound, or the log's end now.
func (s *logSource) noteEnd() {
	if s.metrics == nil {
		return
	}
	s.known = s.end
	if !s.snapshot {
		end, err := s.log.End(s.stream)
		if err != nil {
			return // progress is only a report; the next read finds the error
		}
		s.known = end
	}
}

func (s *logSource) Wait(ctx context.Context) error {
	return s.log.Wait(ctx, s.stream, s.next)
}

func (s *logSource) Close() error {
	for _, e := range s.pending {
		e.batch.Release()
	}
	s.pending = nil
	return nil
}

// primaryKeyNames returns the names of obj's primary key columns (nil for
// a stream), as connectors see them (connector.Spec).
func primaryKeyNames(obj *catalog.Object) []string {
	var names []string
	for _, i := range obj.PrimaryKey {
		names = append(names, obj.Columns[i].Name)
	}
	return names
}
