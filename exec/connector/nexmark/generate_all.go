package nexmark

import (
	"context"
	"io"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector"
)

// walkPerNext bounds the events one Next walks without finding one of
// its table's: about what a batch of bids takes, so that a split with
// none of its table's events left still returns to the runtime (with
// exec.ErrCaughtUp) as often as one that has them.
const walkPerNext = DefaultBatchSize * totalProportion

// dropped builds the events of another table than the source's, every
// column, into record batches as an emitted chunk is built, and releases
// them: the work of the whole generator (generate = 'all'), of which the
// stream keeps only its table's rows.
type dropped struct {
	gen    *generator
	outs   []outColumn // every column of the table
	schema *arrow.Schema
	alloc  memory.Allocator
	b      *batch // the batch being built; nil between batches
}

// droppedRows is the size of a dropped table's batches: the default batch
// size, whatever batch_size says, so that building them costs what
// building the table's own stream does by default.
const droppedRows = DefaultBatchSize

// setupGenerate prepares the work cfg.Generate asks for: every column of
// the table's own events, and a generator of each other table listed.
func (s *Source) setupGenerate() {
	if len(s.cfg.Generate) == 0 {
		return
	}
	s.build, _ = bindColumns(s.kind, s.cfg.Table, nil)
	for _, t := range s.cfg.Generate {
		k, _ := tableKind(t)
		if k == s.kind || s.drop[k] != nil {
			continue
		}
		outs, _ := bindColumns(k, t, nil)
		fields := make([]arrow.Field, len(outs))
		for i, o := range outs {
			fields[i] = types.Field(o.col.Name, o.col.Type, o.col.Nullable)
		}
		s.drop[k] = &dropped{gen: newGenerator(k, &s.cfg), outs: outs, schema: arrow.NewSchema(fields, nil)}
		s.walk = true
	}
}

// openDropped gives the dropped tables the source's allocator.
func (s *Source) openDropped() {
	for _, d := range s.drop {
		if d != nil {
			d.alloc = s.alloc
		}
	}
}

// closeDropped releases the batches the dropped tables were building; it
// is idempotent.
func (s *Source) closeDropped() {
	for _, d := range s.drop {
		if d != nil && d.b != nil {
			d.b.release()
			d.b = nil
		}
	}
}

// build builds event n into the batch being built, which becomes a record
// batch and is released when it is full.
func (d *dropped) build(n uint64) {
	if d.b == nil {
		d.b = newBatch(d.alloc, fieldsOf(d.gen.kind), d.outs, droppedRows)
	}
	d.gen.event(n, d.b)
	if d.b.rows == droppedRows {
		d.b.finish(d.schema, d.outs).Release()
		d.b = nil
	}
}

// nextWalking is Next when the source builds other tables' events too:
// it walks every event of its split in order, building each of its table
// into the chunk and each of a listed table into that table's batch. After its table's last event it walks the rest of the split
// (bounded: the events up to the end are built before io.EOF), at most
// walkPerNext events per call, returning exec.ErrCaughtUp until it is
// done. An unbounded split that never meets an event of its table builds
// nothing: it would build forever and return nothing.
func (s *Source) nextWalking() (exec.Chunk, error) {
	limit := uint64(math.MaxUint64)
	if s.thr.Rate > 0 {
		limit = s.thr.LastDue(s.now())
	}
	next := s.cur
	if has := next.seek(); !has || next.n > limit {
		if !has && s.cfg.Events == 0 {
			return exec.Chunk{}, exec.ErrCaughtUp
		}
		if s.dropUpTo(limit) {
			return exec.Chunk{}, io.EOF
		}
		return exec.Chunk{}, exec.ErrCaughtUp
	}
	rows := s.batchSize
	if s.cfg.Events > 0 || s.thr.Rate > 0 {
		rows = s.cur.count(limit, rows)
	}
	b := newBatch(s.alloc, s.fields, s.build, rows)
	// count found rows events of the table up to limit, so the walk ends.
	for b.rows < rows && s.cur.n < s.cur.end {
		n := s.cur.n
		if k := kindOf(n); k == s.kind {
			s.gen.event(n, b)
		} else if d := s.drop[k]; d != nil {
			d.build(n)
		}
		s.cur.advance()
	}
	return exec.Chunk{Batch: b.finish(s.schema, s.outs)}, nil
}

// dropUpTo walks the split's events up to limit (none of them the
// table's), at most walkPerNext of them, building those of the listed
// tables, and reports whether it reached the end of the split.
func (s *Source) dropUpTo(limit uint64) bool {
	for i := 0; i < walkPerNext && s.cur.n < s.cur.end && s.cur.n <= limit; i++ {
		if d := s.drop[kindOf(s.cur.n)]; d != nil {
			d.build(s.cur.n)
		}
		s.cur.advance()
	}
	return s.cur.n >= s.cur.end
}

// waitWalking is Wait when the source builds other tables' events: the
// next event to walk is due at once without a rate, else at its time. An
// unbounded split without events of its table waits for ctx, as it
// builds nothing.
func (s *Source) waitWalking(ctx context.Context) error {
	next := s.cur
	if s.cur.n < s.cur.end && (s.cfg.Events > 0 || next.seek()) {
		if s.thr.Rate == 0 {
			return nil
		}
		return connector.SleepUntil(ctx, s.thr.Due(s.cur.n))
	}
	if s.cfg.Events > 0 {
		return nil // Next returns io.EOF
	}
	<-ctx.Done()
	return ctx.Err()
}
