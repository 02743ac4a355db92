package kafka

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector"
	"github.com/eddysql/eddy/exec/connector/sink"
)

// SinkConnector is the Kafka sink connector (connector.Sink).
type SinkConnector struct{}

var _ connector.Sink = SinkConnector{}

// Name returns "kafka".
func (SinkConnector) Name() string { return Name }

// Check validates a sink's options and that its topic exists. Its output
// is observed message by message, and published exactly once when its
// query is checkpointed.
func (SinkConnector) Check(opts map[string]string, _ connector.Env) (connector.SinkTraits, error) {
	cfg, err := SinkFromOptions("", opts)
	if err != nil {
		return connector.SinkTraits{}, err
	}
	if err := checkTopic(cfg.Brokers, cfg.Topic); err != nil {
		return connector.SinkTraits{}, err
	}
	return connector.SinkTraits{AppendOnly: cfg.ForceAppendOnly, Observed: true, ExactlyOnce: true, Shared: true}, nil
}

// New returns the sink operator of one instance of the sink's query: a
// *Sink, which writes in transactions committed with the query's
// checkpoints when the query is checkpointed.
func (SinkConnector) New(spec connector.SinkSpec, _ connector.Env) (exec.Operator, error) {
	cfg, err := SinkFromOptions(spec.Object, spec.Options)
	if err != nil {
		return nil, err
	}
	if spec.Task != "" {
		if cfg.TxnID != "" {
			cfg.TxnID += "-" + spec.Task
		} else {
			cfg.TxnID = spec.Task
		}
	}
	return NewSink(cfg, spec.Names, spec.Types, spec.AppendOnly, spec.Checkpointed)
}

// Sink writes each row it receives as a message of its topic: the value
// is the row in the sink's format, the key the key column's text. An
// append-only query's rows are plain messages; an updating query's
// inserts and updates are upserts of their key, and its deletes
// tombstones (a message with the key and no value). In a checkpointed
// query it writes in Kafka transactions that commit when the query's
// checkpoints do (sink_txn.go), so a read_committed consumer sees every
// row once.
type Sink struct {
	cfg        SinkConfig
	names      []string
	types      []types.T
	appendOnly bool
	twoPhase   bool
	key        int // the key column's index, or -1
	keySchema  *arrow.Schema

	enc    *sink.RowEncoder
	keyEnc *sink.RowEncoder
	env    *exec.Env
	cl     *kgo.Client  // the producer of a sink that is not transactional
	txn    *TxnProducer // a transactional sink's producers and what they staged

	errMu  sync.Mutex
	perr   error // the first failed produce
	opened bool
	closed bool
}

var _ exec.Committer = (*Sink)(nil)

// NewSink returns the sink of cfg for rows of the given columns.
// twoPhase says the query is checkpointed.
func NewSink(cfg SinkConfig, names []string, ts []types.T, appendOnly, twoPhase bool) (*Sink, error) {
	s := &Sink{cfg: cfg, names: names, types: ts, appendOnly: appendOnly, twoPhase: twoPhase, key: -1}
	if cfg.KeyColumn != "" {
		s.key = slices.IndexFunc(names, func(n string) bool { return strings.EqualFold(n, cfg.KeyColumn) })
		if s.key < 0 {
			return nil, &OptionError{Option: "key_column", Msg: fmt.Sprintf("no column %s among the query's (%s)", connector.Quote(cfg.KeyColumn), strings.Join(names, ", "))}
		}
		s.keySchema = arrow.NewSchema([]arrow.Field{types.Field(names[s.key], ts[s.key], true)}, nil)
	} else if !appendOnly {
		return nil, &OptionError{Option: "key_column", Msg: "is required for an updating query: its changes are written as upserts and tombstones of a key"}
	}
	if cfg.Format == FormatRaw && len(names) != 1 {
		return nil, &OptionError{Option: "format", Msg: fmt.Sprintf("'raw' writes one column as the message, and the query has %d", len(names))}
	}
	return s, nil
}

// Open connects the producer. A transactional sink's producers are made
// ready (which aborts what an earlier run left open) here, or by Restore
// when the query resumes from a checkpoint.
func (s *Sink) Open(ctx context.Context, env *exec.Env) error {
	if s.opened || s.closed {
		return errors.New("kafka sink: opened twice")
	}
	s.opened, s.env = true, env
	format := s.cfg.Format
	if format == FormatRaw {
		format = sink.FormatText
	}
	s.enc = sink.NewRowEncoder(format, s.names, s.types)
	if s.key >= 0 {
		s.keyEnc = sink.NewRowEncoder(sink.FormatText, s.names[s.key:s.key+1], s.types[s.key:s.key+1])
	}
	if s.twoPhase && env.Checkpointing {
		s.txn = NewTxnProducer(TxnConfig{Brokers: s.cfg.Brokers, Topic: s.cfg.Topic, Prefix: s.cfg.txnPrefix() + "-" + strconv.Itoa(env.Instance),
			Timeout: s.cfg.TxnTimeout, Group: env.KeyGroups.Lo, What: "kafka sink"})
		if !env.Resuming {
			return s.txn.Init(ctx)
		}
		return nil
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(s.cfg.Brokers...), kgo.DefaultProduceTopic(s.cfg.Topic))
	if err != nil {
		return &BrokerError{Brokers: s.cfg.Brokers, Err: err}
	}
	s.cl = cl
	return nil
}

// Process writes c's rows as messages.
func (s *Sink) Process(ctx context.Context, _ int, c exec.Chunk, _ exec.Emitter) error {
	if err := s.failed(); err != nil {
		return err
	}
	n := c.NumRows()
	if n == 0 {
		return nil
	}
	recs, err := s.records(c)
	if err != nil {
		return err
	}
	if s.txn != nil {
		return s.txn.Produce(ctx, recs)
	}
	for _, r := range recs {
		s.cl.Produce(ctx, r, s.promise)
	}
	return nil
}

// records encodes c's rows as messages; their bytes share one buffer.
func (s *Sink) records(c exec.Chunk) ([]*kgo.Record, error) {
	n := c.NumRows()
	if err := s.enc.Encode(c); err != nil {
		return nil, fmt.Errorf("kafka sink: %w", err)
	}
	var keyCol arrow.Array
	if s.key >= 0 {
		keyCol = c.Batch.Column(s.key)
		kc := array.NewRecordBatch(s.keySchema, []arrow.Array{keyCol}, int64(n))
		err := s.keyEnc.Encode(exec.Chunk{Batch: kc})
		kc.Release()
		if err != nil {
			return nil, fmt.Errorf("kafka sink: %w", err)
		}
	}
	slab := make([]kgo.Record, 0, n)
	recs := make([]*kgo.Record, 0, n)
	var buf []byte
	type span struct{ k0, k1, v0, v1 int }
	spans := make([]span, 0, n)
	for i := 0; i < n; i++ {
		op := c.Op(i)
		sp := span{k0: -1, v0: -1}
		if keyCol != nil && !keyCol.IsNull(i) {
			sp.k0 = len(buf)
			buf = append(buf, s.keyEnc.Value(0, i)...)
			sp.k1 = len(buf)
		}
		switch {
		case op == exec.UpdateBefore && i+1 < n && c.Op(i+1) == exec.UpdateAfter && keyCol != nil &&
			bytes.Equal(s.keyEnc.Value(0, i), s.keyEnc.Value(0, i+1)):
			continue // the update's new row replaces it under the same key
		case op.IsRetraction():
			if keyCol == nil {
				return nil, fmt.Errorf("kafka sink: row %d retracts a row, and the sink has no key_column", i+1)
			}
		case s.cfg.Format == FormatRaw && c.Batch.Column(0).IsNull(i):
		default:
			sp.v0 = len(buf)
			if s.cfg.Format == FormatRaw {
				buf = append(buf, s.enc.Value(0, i)...)
			} else {
				buf = s.enc.Row(buf, i)
			}
			sp.v1 = len(buf)
		}
		spans = append(spans, sp)
	}
	for _, sp := range spans {
		slab = append(slab, kgo.Record{Topic: s.cfg.Topic})
		r := &slab[len(slab)-1]
		if sp.k0 >= 0 {
			r.Key = buf[sp.k0:sp.k1:sp.k1]
		}
		if sp.v0 >= 0 {
			r.Value = buf[sp.v0:sp.v1:sp.v1]
		}
		recs = append(recs, r)
	}
	return recs, nil
}

// promise records the first failed produce.
func (s *Sink) promise(_ *kgo.Record, err error) {
	if err == nil {
		return
	}
	s.errMu.Lock()
	if s.perr == nil {
		s.perr = fmt.Errorf("kafka sink: writing to topic %s: %w", s.cfg.Topic, err)
	}
	s.errMu.Unlock()
}

// failed returns the first failed produce, if any.
func (s *Sink) failed() error {
	if s.txn != nil {
		if err := s.txn.Failed(); err != nil {
			return err
		}
	}
	s.errMu.Lock()
	defer s.errMu.Unlock()
	return s.perr
}

// OnControl waits, on a flush marker, a barrier or the end of input, until
// the brokers have every message written so far (a transactional sink's
// in its open transaction); a transactional sink publishes everything it
// wrote at the end of input.
func (s *Sink) OnControl(ctx context.Context, m exec.Control, _ exec.Emitter) error {
	switch m.Kind {
	case exec.Flush, exec.Barrier, exec.EndOfInput:
	default:
		return nil
	}
	if s.txn != nil {
		if m.Kind == exec.EndOfInput {
			return s.txn.PublishAll(ctx)
		}
		return s.txn.Flush(ctx)
	}
	if err := s.cl.Flush(ctx); err != nil {
		return fmt.Errorf("kafka sink: %w", err)
	}
	return s.failed()
}

// Snapshot pre-commits the transaction of the epoch (sink_txn.go).
func (s *Sink) Snapshot(ctx context.Context, epoch uint64, w exec.StateWriter) error {
	if s.txn == nil {
		return nil
	}
	return s.txn.Snapshot(ctx, epoch, w)
}

// Restore commits the transaction the checkpoint pre-committed, if it
// was not, and aborts any later one (sink_txn.go).
func (s *Sink) Restore(ctx context.Context, r exec.StateReader, groups exec.KeyGroupRange) error {
	if s.txn == nil {
		return nil
	}
	return s.txn.Restore(ctx, r, groups)
}

// Commit commits the transactions pre-committed up to epoch.
func (s *Sink) Commit(ctx context.Context, epoch uint64) error {
	if s.txn == nil {
		return nil
	}
	return s.txn.Commit(ctx, epoch)
}

// Close flushes and closes the producers; a transaction not committed is
// left to the next run (or the broker's timeout) to abort.
func (s *Sink) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	if s.cl != nil {
		err := s.cl.Flush(context.Background())
		s.cl.Close()
		if err != nil {
			return fmt.Errorf("kafka sink: %w", err)
		}
		return s.failed()
	}
	if s.txn != nil {
		s.txn.Close()
	}
	return nil
}
