package engine

import (
	"context"
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/build"
	"github.com/eddysql/eddy/exec/connector/sink"
	"github.com/eddysql/eddy/exec/dataflow"
	"github.com/eddysql/eddy/exec/mview"
	"github.com/eddysql/eddy/storage"
)

// connectorStream is the sink connector of a continuous INSERT INTO ...
// SELECT: it appends to the stream named by the sink's "stream" option.
const connectorStream = "stream"

// startQuery starts the continuous query behind a view, a sink, a derived
// stream or a continuous insert, and registers it.
func (e *Engine) startQuery(obj *catalog.Object, cq *compiledQuery) error {
	var op func() (exec.Operator, error)
	var mv *mview.View
	name := "Materialize " + obj.Name
	switch {
	case obj.Kind == catalog.View:
		mv = mview.New(cq.names(), cq.types(), resultKey(cq.logical))
		op = func() (exec.Operator, error) { return &mview.Sink{MV: mv}, nil }
	case obj.Kind == catalog.Stream:
		// A derived stream's log is recomputed from its inputs when the
		// query (re)starts: until checkpoints exist a restarted query
		// replays them from their beginning.
		if err := e.db.Log().Drop(obj.ID); err != nil {
			return err
		}
		name = "AppendTo " + obj.Name
		op = func() (exec.Operator, error) {
			return &streamSink{log: e.db.Log(), stream: obj.ID, schema: obj.Schema()}, nil
		}
	case obj.Options["connector"] == connectorStream:
		target, ok := e.cat.Get(obj.Options["stream"])
		if !ok {
			return fmt.Errorf("the target stream '%s' no longer exists", obj.Options["stream"])
		}
		done, err := e.insertProgress(obj.ID)
		if err != nil {
			return err
		}
		name = "InsertInto " + target.Name
		op = func() (exec.Operator, error) {
			return &streamSink{log: e.db.Log(), stream: target.ID, schema: target.Schema(),
				kv: e.db.KV(), progressKey: insertKey(obj.ID), skip: done}, nil
		}
	default:
		cfg, err := sink.FromOptions(obj.Options, e.root)
		if err != nil {
			return err
		}
		cfg.Names, cfg.Types, cfg.AppendOnly = cq.names(), cq.types(), cq.logical.Props().AppendOnly
		if cfg.Stdout = e.cfg.Stdout; cfg.Stdout == nil {
			cfg.Stdout = discardWriter{}
		}
		name = "Sink " + obj.Name + " (" + cfg.Connector + ")"
		op = func() (exec.Operator, error) { return sink.New(cfg) }
	}
	g, err := build.Graph(cq.phys, e.services(), dataflow.OpSpec{Name: name, New: func(int) (exec.Operator, error) { return op() }})
	if err != nil {
		return err
	}
	label := obj.Kind.String() + " " + obj.Name
	// A view's result and a blackhole sink show no change history, so
	// their exchanges may coalesce small batches (coarser changelogs,
	// same results); push queries, file and print sinks and streams
	// record every change, batch by batch.
	coalesce := mv != nil || obj.Options["connector"] == "blackhole"
	opts := e.jobOptions(label, label)
	opts.Coalesce = coalesce
	job, err := dataflow.StartJob(e.ctx, g, opts)
	if err != nil {
		return err
	}
	e.mu.Lock()
	e.queries[lower(obj.Name)] = &runningQuery{obj: obj, job: job, mv: mv, plan: cq.phys, graph: g}
	e.mu.Unlock()
	if mv != nil {
		go func() {
			// A failed query fails the queries reading its view, so nothing
			// waits forever for changes that will not come.
			<-job.Done()
			if state, err := job.State(); state == dataflow.JobFailed {
				mv.Fail(fmt.Errorf("materialized view '%s' failed: %w", obj.Name, err))
			}
		}()
	}
	return nil
}

type discardWriter struct{}

func (discardWriter) Write(p []byte) (int, error) { return len(p), nil }

func insertKey(sinkID uint64) []byte { return []byte("insert/" + strconv.FormatUint(sinkID, 10)) }

// insertProgress returns how many rows a continuous insert has appended.
func (e *Engine) insertProgress(sinkID uint64) (int64, error) {
	v, ok, err := e.db.KV().Get(insertKey(sinkID))
	if err != nil || !ok || len(v) != 8 {
		return 0, err
	}
	return int64(binary.BigEndian.Uint64(v)), nil
}

// streamSink appends a continuous query's rows to a stream's durable log:
// the log of a derived stream, or of the target of INSERT INTO ... SELECT.
// A continuous insert remembers, durably, how many rows it appended and
// skips that many when its query is replayed after a restart (its query
// runs at parallelism 1, so the replay produces the same rows in the same
// order).
type streamSink struct {
	log         storage.Log
	stream      uint64
	schema      *arrow.Schema
	kv          storage.KV // nil for derived streams
	progressKey []byte
	skip        int64 // rows still to skip (already appended before a restart)
	appended    int64
}

var _ exec.Operator = (*streamSink)(nil)

func (s *streamSink) Open(ctx context.Context, env *exec.Env) error {
	s.appended = s.skip
	return nil
}

func (s *streamSink) Process(ctx context.Context, in int, c exec.Chunk, out exec.Emitter) error {
	if !c.AppendOnly() {
		return fmt.Errorf("a stream only appends: its query emitted a retraction")
	}
	rec := c.Batch
	n := rec.NumRows()
	if s.skip > 0 {
		if s.skip >= n {
			s.skip -= n
			return nil
		}
		rec = rec.NewSlice(s.skip, n)
		defer rec.Release()
		s.skip = 0
	}
	// The log decodes with the stream's own schema; give the batch its
	// names (the types match by construction).
	batch := array.NewRecordBatch(s.schema, rec.Columns(), rec.NumRows())
	defer batch.Release()
	if _, err := s.log.Append(s.stream, batch); err != nil {
		return err
	}
	s.appended += batch.NumRows()
	if s.kv == nil {
		return nil
	}
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(s.appended))
	return s.kv.Put(s.progressKey, b[:])
}

func (s *streamSink) OnControl(ctx context.Context, m exec.Control, out exec.Emitter) error {
	return nil
}
func (s *streamSink) Close() error { return nil }
