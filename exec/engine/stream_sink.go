package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector"
	"github.com/eddysql/eddy/storage"
)

// insertSinkName is the connector of the sink behind a continuous INSERT
// INTO t SELECT ..., whose "stream" option names t (and "columns", when
// given, the columns the insert lists), as the catalog stores it.
const insertSinkName = "stream"

// insertSink is the engine's own sink connector: a continuous insert
// appends its query's rows to the durable log of its target stream. The
// engine registers it with the connectors (connector.Registry's
// AddInternalSink), so that a stored continuous insert is found, checked
// and started as any sink is; INSERT INTO ... SELECT names it, and CREATE
// SINK may not.
type insertSink struct{ e *Engine }

var _ connector.Sink = insertSink{}

// Name returns insertSinkName.
func (insertSink) Name() string { return insertSinkName }

// Check checks that the target stream exists. The stream's log records
// every change as it comes.
func (s insertSink) Check(opts map[string]string, _ connector.Env) (connector.SinkTraits, error) {
	if _, err := s.target(opts); err != nil {
		return connector.SinkTraits{}, err
	}
	return connector.SinkTraits{AppendOnly: true, Observed: true}, nil
}

// New returns the streamSink appending to the target's log. The sink
// records how many rows it appended under insertKey, with each append,
// and skips that many when its query is replayed after a restart.
func (s insertSink) New(spec connector.SinkSpec, _ connector.Env) (exec.Operator, error) {
	target, err := s.target(spec.Options)
	if err != nil {
		return nil, err
	}
	obj, ok := s.e.cat.Get(spec.Object)
	if !ok {
		return nil, fmt.Errorf("the sink '%s' no longer exists", spec.Object)
	}
	key := insertKey(obj.ID)
	return &streamSink{log: s.e.db.Log(), kv: s.e.db.KV(), stream: target.ID, schema: target.Schema(),
		mark: func(int) []byte { return key }}, nil
}

// target returns the stream the insert appends to.
func (s insertSink) target(opts map[string]string) (*catalog.Object, error) {
	target, ok := s.e.cat.Get(opts["stream"])
	if !ok {
		return nil, fmt.Errorf("the target stream '%s' no longer exists", opts["stream"])
	}
	return target, nil
}

// insertObjectOptions are the options of the sink behind a continuous
// insert into target: cols are the columns the insert lists, if any.
func insertObjectOptions(target string, cols []string) map[string]string {
	opts := map[string]string{"connector": insertSinkName, "stream": target}
	if len(cols) > 0 {
		opts["columns"] = strings.Join(cols, ",")
	}
	return opts
}

// insertTarget returns the name of the stream obj appends to when obj is
// the sink of a continuous insert: a sink whose connector is insertSink.
func (e *Engine) insertTarget(obj *catalog.Object) (string, bool) {
	if obj.Kind != catalog.Sink {
		return "", false
	}
	c, err := e.conns.Sink(obj.Connector())
	if _, ok := c.(insertSink); err != nil || !ok {
		return "", false
	}
	return obj.Options["stream"], true
}

func insertKey(sinkID uint64) []byte { return []byte("insert/" + strconv.FormatUint(sinkID, 10)) }

// derivedKey is where instance of a checkpointed derived stream's query
// records how many rows it appended to the stream's log.
func derivedKey(streamID uint64, instance int) []byte {
	return []byte("derived/" + strconv.FormatUint(streamID, 10) + "/" + strconv.Itoa(instance))
}

// dropDerivedKeys deletes the appended-row counts of derived stream id's
// query, whose log is dropped.
func (e *Engine) dropDerivedKeys(id uint64) error {
	var keys [][]byte
	prefix := []byte("derived/" + strconv.FormatUint(id, 10) + "/")
	err := e.db.KV().Scan(prefix, func(key, _ []byte) error {
		keys = append(keys, bytes.Clone(key))
		return nil
	})
	for _, k := range keys {
		if err == nil {
			err = e.db.KV().Delete(k)
		}
	}
	return err
}

// appendedRows reads a stream writer's count of appended rows from kv.
func appendedRows(kv storage.KV, key []byte) (uint64, error) {
	v, ok, err := kv.Get(key)
	switch {
	case err != nil:
		return 0, err
	case !ok:
		return 0, nil
	case len(v) != 8:
		return 0, fmt.Errorf("damaged record of the rows appended (%q: %d bytes, want 8)", key, len(v))
	}
	return binary.BigEndian.Uint64(v), nil
}

// streamSink appends a continuous query's rows to a stream's durable log:
// the log of a derived stream, or of the target of INSERT INTO ... SELECT.
//
// A continuous insert, and every instance of a checkpointed derived
// stream's query, records with each append (atomically:
// storage.Log.AppendMarked) how many rows it has appended, under the key
// mark gives. When its query is not checkpointed and is replayed after a
// restart, it skips that many rows (a continuous insert runs at
// parallelism 1, so the replay produces the same rows in the same order).
// In a job that takes checkpoints the sink appends in two phases
// (stream_stage.go).
type streamSink struct {
	log    storage.Log
	kv     storage.KV
	stream uint64
	schema *arrow.Schema
	mark   func(instance int) []byte // nil: no record (a derived stream that is not checkpointed)

	key      []byte // mark's key for this instance
	skip     int64  // rows still to skip (already appended before a restart)
	appended uint64 // rows appended, as recorded under key
	metrics  *exec.OperatorMetrics

	stage *logStage // the two-phase state, in a job that takes checkpoints
}

var _ exec.Committer = (*streamSink)(nil)

// Open reads how far the sink appended before; the query replays from
// its sources' beginning unless a checkpoint restores it.
func (s *streamSink) Open(ctx context.Context, env *exec.Env) error {
	if s.mark != nil {
		s.key = s.mark(env.Instance)
		n, err := appendedRows(s.kv, s.key)
		if err != nil {
			return err
		}
		s.appended, s.skip = n, int64(n)
	}
	s.metrics = env.Metrics
	if env.Checkpointing {
		s.stage = &logStage{group: env.KeyGroups.Lo, alloc: env.Alloc, next: s.appended}
		if s.stage.alloc == nil {
			s.stage.alloc = memory.DefaultAllocator
		}
	}
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
	if rec.NumRows() == 0 {
		return nil
	}
	if s.stage != nil {
		return s.stageBatch(rec)
	}
	// The log decodes with the stream's own schema; give the batch its
	// names (the types match by construction).
	batch := array.NewRecordBatch(s.schema, rec.Columns(), rec.NumRows())
	defer batch.Release()
	return s.appendBatch(batch)
}

// appendBatch appends batch to the log, with the count of rows appended
// when the sink keeps one.
func (s *streamSink) appendBatch(batch arrow.RecordBatch) error {
	if s.key == nil {
		_, err := s.log.Append(s.stream, batch)
		return err
	}
	n := s.appended + uint64(batch.NumRows())
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], n)
	if _, err := s.log.AppendMarked(s.stream, batch, s.key, b[:]); err != nil {
		return err
	}
	s.appended = n
	return nil
}

// OnControl publishes, at the end of a bounded input, what a two-phase
// sink holds: no later checkpoint would.
func (s *streamSink) OnControl(ctx context.Context, m exec.Control, out exec.Emitter) error {
	if m.Kind != exec.EndOfInput || s.stage == nil {
		return nil
	}
	return s.publishAll()
}

func (s *streamSink) Close() error { return nil }
