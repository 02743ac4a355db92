package engine

import (
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

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

// New returns the streamSink appending to the target's log, which skips
// the rows the insert appended before a restart.
func (s insertSink) New(spec connector.SinkSpec, _ connector.Env) (exec.Operator, error) {
	target, err := s.target(spec.Options)
	if err != nil {
		return nil, err
	}
	obj, ok := s.e.cat.Get(spec.Object)
	if !ok {
		return nil, fmt.Errorf("the sink '%s' no longer exists", spec.Object)
	}
	done, err := s.e.insertProgress(obj.ID)
	if err != nil {
		return nil, err
	}
	return &streamSink{log: s.e.db.Log(), stream: target.ID, schema: target.Schema(),
		kv: s.e.db.KV(), progressKey: insertKey(obj.ID), skip: done}, nil
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
