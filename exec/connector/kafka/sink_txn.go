package kafka

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/eddysql/eddy/exec"
)

// Exactly-once Kafka sinks. A sink in a checkpointed query writes in
// Kafka transactions, one per checkpoint epoch, with two transactional
// producers that take turns: <prefix>-<instance>-0 and -1. Rows go to the
// current producer's open transaction. When a checkpoint's barrier
// reaches the sink (Snapshot), that transaction is flushed — every
// message is in the log, uncommitted — and the checkpoint records its
// producer id and epoch (the pre-commit); rows after the barrier go to
// the other producer's transaction. When the checkpoint has committed
// (Commit), the transaction commits, and read_committed consumers see its
// messages. A producer begins its next transaction only once its last
// one has committed.
//
// After a crash, the query resumes from its last committed checkpoint
// (Restore): the transaction it recorded is committed, if it was not
// yet, by an EndTxn request with the recorded producer id and epoch
// (committing a committed transaction again succeeds: Kafka treats it as
// a retry). Then both producers initialize, which fences the crashed
// run's producers and aborts the transaction of the epoch after the
// checkpoint, whose rows the resumed query computes again. Because the
// two producers alternate, the transaction a checkpoint records is never
// confused with a later one of the same producer.
//
// At the end of a bounded input the sink commits everything it wrote, as
// no later checkpoint would.

// txnKey is the key of a sink's entry in its checkpoint state.
var txnKey = []byte("kafka-txn")

// TxnConfig configures a TxnProducer.
type TxnConfig struct {
	Brokers []string
	// Topic is where records without a topic of their own go.
	Topic string
	// Prefix names the two producers' transactional ids: Prefix-0 and
	// Prefix-1. No other writer may use them.
	Prefix  string
	Timeout time.Duration // the transactions' timeout (0: a minute)
	// Group is the key group of the producer's entry in its operator's
	// checkpoint state.
	Group int
	// What names the writer in errors ("kafka sink").
	What string
	// Manual sends each record to the partition it names (Record.Partition)
	// instead of by its key.
	Manual bool
}

// TxnProducer writes records in Kafka transactions, one per checkpoint
// epoch, as described above; an operator that publishes to Kafka exactly
// once (the sink, and a cluster's repartitioning writer) drives it from
// its Open, Process, OnControl, Snapshot, Restore, Commit and Close.
type TxnProducer struct {
	cfg TxnConfig
	cls [2]*kgo.Client

	mu      sync.Mutex
	seq     uint64 // the sequence number of the current transaction: producer seq%2
	open    bool   // the current transaction has begun
	pending *staged

	errMu sync.Mutex
	perr  error // the first failed produce

	// inflight counts, per producer, the records produced and not yet
	// acknowledged. A transaction is flushed by waiting for them, not by
	// the client's Flush, which can return before a record to a
	// partition the transaction has not written yet is even sent — and
	// EndTransaction then commits a transaction without it (found by
	// storage/kafkastate's tests).
	inflight [2]unacked
}

// unacked counts records produced and not yet acknowledged.
type unacked struct {
	mu   sync.Mutex
	n    int
	zero chan struct{} // closed when n drops to 0
}

func (u *unacked) add(k int) {
	u.mu.Lock()
	if u.n == 0 {
		u.zero = make(chan struct{})
	}
	u.n += k
	u.mu.Unlock()
}

func (u *unacked) done() {
	u.mu.Lock()
	if u.n--; u.n == 0 {
		close(u.zero)
	}
	u.mu.Unlock()
}

// wait waits until n is 0, or ctx is done.
func (u *unacked) wait(ctx context.Context) error {
	u.mu.Lock()
	if u.n == 0 {
		u.mu.Unlock()
		return nil
	}
	zero := u.zero
	u.mu.Unlock()
	select {
	case <-zero:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// staged is a transaction pre-committed by a snapshot and not committed
// yet.
type staged struct {
	epoch, seq uint64
	pid        int64
	pepoch     int16
}

// NewTxnProducer returns a producer of cfg; Init or Restore connects it.
func NewTxnProducer(cfg TxnConfig) *TxnProducer {
	if cfg.Timeout <= 0 {
		cfg.Timeout = defaultTxnTimeout
	}
	if cfg.What == "" {
		cfg.What = "kafka producer"
	}
	return &TxnProducer{cfg: cfg}
}

// Init makes both producers and initializes their producer ids, which
// aborts any transaction an earlier run left open. A writer that starts
// without a checkpoint calls it from Open; Restore calls it otherwise.
func (t *TxnProducer) Init(ctx context.Context) error {
	for i := range t.cls {
		opts := []kgo.Opt{kgo.SeedBrokers(t.cfg.Brokers...), kgo.DefaultProduceTopic(t.cfg.Topic),
			kgo.TransactionalID(t.cfg.Prefix + "-" + strconv.Itoa(i)), kgo.TransactionTimeout(t.cfg.Timeout)}
		if t.cfg.Manual {
			opts = append(opts, kgo.RecordPartitioner(kgo.ManualPartitioner()))
		}
		cl, err := kgo.NewClient(opts...)
		if err != nil {
			return &BrokerError{Brokers: t.cfg.Brokers, Err: err}
		}
		t.cls[i] = cl
		if _, _, err := cl.ProducerID(ctx); err != nil {
			return fmt.Errorf("%s: initializing transactional producer %s-%d: %w", t.cfg.What, t.cfg.Prefix, i, err)
		}
	}
	return nil
}

// promise records the first failed produce.
func (t *TxnProducer) promise(_ *kgo.Record, err error) {
	if err == nil {
		return
	}
	t.errMu.Lock()
	if t.perr == nil {
		t.perr = fmt.Errorf("%s: writing to topic %s: %w", t.cfg.What, t.cfg.Topic, err)
	}
	t.errMu.Unlock()
}

// Failed returns the first failed produce, if any.
func (t *TxnProducer) Failed() error {
	t.errMu.Lock()
	defer t.errMu.Unlock()
	return t.perr
}

// Produce writes recs in the current transaction, beginning it if
// needed. The producers take turns, and the checkpoint coordinator
// commits a checkpoint before it begins the next, so the producer whose
// turn it is has no transaction left to commit.
func (t *TxnProducer) Produce(ctx context.Context, recs []*kgo.Record) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.open {
		if t.cls[t.seq%2] == nil {
			return fmt.Errorf("%s: producing after Close", t.cfg.What)
		}
		if t.pending != nil && t.pending.seq%2 == t.seq%2 {
			// Cannot happen: a snapshot refuses to stage a second
			// transaction before the first commits.
			return fmt.Errorf("%s: the transaction of checkpoint %d has not committed yet", t.cfg.What, t.pending.epoch)
		}
		if err := t.cls[t.seq%2].BeginTransaction(); err != nil {
			return fmt.Errorf("%s: beginning a transaction: %w", t.cfg.What, err)
		}
		t.open = true
	}
	slot := t.seq % 2
	cl, inflight := t.cls[slot], &t.inflight[slot]
	inflight.add(len(recs))
	done := func(r *kgo.Record, err error) {
		t.promise(r, err)
		inflight.done()
	}
	for _, r := range recs {
		cl.Produce(ctx, r, done)
	}
	return nil
}

// acked waits until the brokers have acknowledged (or refused) every
// record producer slot has produced.
func (t *TxnProducer) acked(ctx context.Context, slot uint64) error {
	if err := t.inflight[slot].wait(ctx); err != nil {
		return fmt.Errorf("%s: %w", t.cfg.What, err)
	}
	return nil
}

// Flush waits until the brokers have every message of the open
// transaction.
func (t *TxnProducer) Flush(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.open {
		if err := t.acked(ctx, t.seq%2); err != nil {
			return fmt.Errorf("%s: %w", t.cfg.What, err)
		}
	}
	return t.Failed()
}

// Snapshot pre-commits the current transaction for epoch and records it.
func (t *TxnProducer) Snapshot(ctx context.Context, epoch uint64, w exec.StateWriter) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.open {
		return w.Put(t.cfg.Group, txnKey, encodeStaged(t.pending))
	}
	cl := t.cls[t.seq%2]
	if err := t.acked(ctx, t.seq%2); err != nil {
		return err
	}
	if err := t.Failed(); err != nil {
		return err
	}
	pid, pepoch, err := cl.ProducerID(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", t.cfg.What, err)
	}
	if t.pending != nil {
		return fmt.Errorf("%s: checkpoint %d: the transaction of checkpoint %d has not committed yet", t.cfg.What, epoch, t.pending.epoch)
	}
	t.pending = &staged{epoch: epoch, seq: t.seq, pid: pid, pepoch: pepoch}
	t.seq++
	t.open = false
	return w.Put(t.cfg.Group, txnKey, encodeStaged(t.pending))
}

// Commit commits the transaction pre-committed for an epoch up to epoch.
func (t *TxnProducer) Commit(ctx context.Context, epoch uint64) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.pending
	if p == nil || p.epoch > epoch || t.cls[p.seq%2] == nil {
		return nil
	}
	if err := t.cls[p.seq%2].EndTransaction(ctx, kgo.TryCommit); err != nil {
		return fmt.Errorf("%s: committing the transaction of checkpoint %d: %w", t.cfg.What, p.epoch, err)
	}
	t.pending = nil
	return nil
}

// PublishAll commits the pre-committed transaction and then the current
// one: the end of a bounded input.
func (t *TxnProducer) PublishAll(ctx context.Context) error {
	if err := t.Commit(ctx, ^uint64(0)); err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.open {
		return t.Failed()
	}
	cl := t.cls[t.seq%2]
	if err := t.acked(ctx, t.seq%2); err != nil {
		return err
	}
	if err := t.Failed(); err != nil {
		return err
	}
	if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
		return fmt.Errorf("%s: committing at the end of input: %w", t.cfg.What, err)
	}
	t.open = false
	t.seq++
	return nil
}

// Restore commits the transaction the checkpoint recorded, then
// initializes the producers (aborting what later epochs left open).
func (t *TxnProducer) Restore(ctx context.Context, r exec.StateReader, groups exec.KeyGroupRange) error {
	var rec *staged
	var seq uint64
	err := r.Scan(ctx, groups, func(_ int, key, value []byte) error {
		if string(key) != string(txnKey) {
			return nil
		}
		var err error
		rec, seq, err = decodeStaged(value)
		return err
	})
	if err != nil {
		return err
	}
	if rec != nil {
		if err := t.endTxn(ctx, rec); err != nil {
			return err
		}
		seq = rec.seq + 1
	}
	t.seq = seq
	return t.Init(ctx)
}

// endTxn commits rec's transaction with a bare EndTxn request, as its
// producer is gone. A transaction committed already commits again
// without effect (Kafka takes it as a retry), or is refused as fenced
// when a restore from the same checkpoint committed it and initialized
// the producer since; one the broker aborted (its timeout passed while
// eddy was down) is an error: its rows are lost.
func (t *TxnProducer) endTxn(ctx context.Context, rec *staged) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(t.cfg.Brokers...))
	if err != nil {
		return &BrokerError{Brokers: t.cfg.Brokers, Err: err}
	}
	defer cl.Close()
	id := t.cfg.Prefix + "-" + strconv.Itoa(int(rec.seq%2))
	req := kmsg.NewPtrEndTxnRequest()
	req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit = id, rec.pid, rec.pepoch, true
	resp, err := req.RequestWith(ctx, cl)
	if err == nil {
		err = kerr.ErrorForCode(resp.ErrorCode)
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, kerr.ProducerFenced), errors.Is(err, kerr.InvalidProducerEpoch):
		// A producer of this id initialized since the transaction: an
		// earlier restore from this checkpoint committed it and went on
		// (a restore initializes the producers only once the commit
		// succeeded), and then crashed too.
		return nil
	case errors.Is(err, kerr.InvalidTxnState):
		return fmt.Errorf("%s: the transaction %s of checkpoint %d was aborted, not committed (did its transaction_timeout pass while eddy was down?): %w", t.cfg.What, id, rec.epoch, err)
	}
	return fmt.Errorf("%s: committing the transaction %s of checkpoint %d: %w", t.cfg.What, id, rec.epoch, err)
}

// closeAbortTimeout bounds how long closing a sink waits to abort its
// open transaction.
const closeAbortTimeout = 5 * time.Second

// Close aborts the open transaction, which no checkpoint staged (its rows
// are computed again after a restore, and a dropped sink wants none of
// them), so that read_committed consumers need not wait for its timeout;
// a staged one is left for Commit or the next restore. Then it closes
// the producers.
func (t *TxnProducer) Close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if cl := t.cls[t.seq%2]; t.open && cl != nil {
		ctx, cancel := context.WithTimeout(context.Background(), closeAbortTimeout)
		if err := cl.AbortBufferedRecords(ctx); err == nil {
			cl.EndTransaction(ctx, kgo.TryAbort) // on failure the broker's timeout aborts it
		}
		cancel()
		t.open = false
	}
	for i, cl := range t.cls {
		if cl != nil {
			cl.Close()
			t.cls[i] = nil
		}
	}
}

// encodeStaged encodes a checkpoint's entry: the staged transaction, or
// none (nil).
func encodeStaged(p *staged) []byte {
	b := []byte{1}
	if p == nil {
		return append(b, 0)
	}
	b = append(b, 1)
	b = binary.AppendUvarint(b, p.epoch)
	b = binary.AppendUvarint(b, p.seq)
	b = binary.AppendVarint(b, p.pid)
	return binary.AppendVarint(b, int64(p.pepoch))
}

// decodeStaged decodes encodeStaged's entry.
func decodeStaged(b []byte) (*staged, uint64, error) {
	bad := errors.New("kafka: damaged checkpoint entry of a transactional producer")
	if len(b) < 2 || b[0] != 1 {
		return nil, 0, bad
	}
	if b[1] == 0 {
		return nil, 0, nil
	}
	b = b[2:]
	var vals [4]int64
	for i := range vals {
		var n int
		if i < 2 {
			var u uint64
			u, n = binary.Uvarint(b)
			vals[i] = int64(u)
		} else {
			vals[i], n = binary.Varint(b)
		}
		if n <= 0 {
			return nil, 0, bad
		}
		b = b[n:]
	}
	return &staged{epoch: uint64(vals[0]), seq: uint64(vals[1]), pid: vals[2], pepoch: int16(vals[3])}, 0, nil
}
