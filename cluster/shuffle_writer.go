package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector/kafka"
	"github.com/eddysql/eddy/exec/dataflow"
)

// WriterConfig configures a shuffle writer: the operator that ends a
// task's fragment where the query's dataflow had an exchange, writing
// the rows to the exchange's topic instead of to local inboxes.
type WriterConfig struct {
	Brokers []string
	Topic   string
	// Partitions is the topic's partition count: the tasks of the
	// fragment that reads it.
	Partitions int
	// Dist and Keys are the exchange's: hash rows by Keys (input
	// ordinals) to the partition owning their key group, send every row
	// to every partition (broadcast), spread them (round robin), or send
	// all to partition 0 (single, forward).
	Dist dataflow.Distribution
	Keys []int
	// Producer is the writing task's index among the fragment's tasks,
	// which readers combine watermarks over.
	Producer int
	// TxnPrefix names the task's transactional producers; no other task
	// may use it.
	TxnPrefix  string
	TxnTimeout time.Duration
}

// Writer is a shuffle writer (WriterConfig). It writes in Kafka
// transactions committed with its task's checkpoints (kafka.TxnProducer),
// so the fragments reading the topic, read_committed, see every row once
// and only rows whose effects on the writing task's state are
// checkpointed.
type Writer struct {
	cfg    WriterConfig
	txn    *kafka.TxnProducer
	env    *exec.Env
	hashes []uint64
	sels   [][]int32
	next   int // round robin: the partition of the next chunk
	wm     int64
	idle   bool
	sentWm bool
	closed bool
}

var _ exec.Committer = (*Writer)(nil)

// NewWriter returns a shuffle writer of cfg.
func NewWriter(cfg WriterConfig) *Writer { return &Writer{cfg: cfg} }

// Open connects the writer's producers; a resumed task's are connected by
// Restore. A writer runs only in a checkpointed task.
func (w *Writer) Open(ctx context.Context, env *exec.Env) error {
	if !env.Checkpointing {
		return errors.New("cluster: a shuffle writer runs only in a checkpointed task")
	}
	w.env = env
	w.txn = kafka.NewTxnProducer(kafka.TxnConfig{Brokers: w.cfg.Brokers, Topic: w.cfg.Topic, Prefix: w.cfg.TxnPrefix,
		Timeout: w.cfg.TxnTimeout, Group: env.KeyGroups.Lo, What: "shuffle to " + w.cfg.Topic, Manual: true})
	if env.Resuming {
		return nil
	}
	return w.txn.Init(ctx)
}

// Process writes c's rows to the partitions the distribution chooses.
func (w *Writer) Process(ctx context.Context, _ int, c exec.Chunk, _ exec.Emitter) error {
	if err := w.txn.Failed(); err != nil {
		return err
	}
	rows := c.NumRows()
	if rows == 0 {
		return nil
	}
	switch w.cfg.Dist {
	case dataflow.DistHash:
		return w.hashed(ctx, c)
	case dataflow.DistBroadcast:
		for p := range w.cfg.Partitions {
			if err := w.write(ctx, int32(p), c); err != nil {
				return err
			}
		}
		return nil
	case dataflow.DistRoundRobin:
		p := w.next
		w.next = (w.next + 1) % w.cfg.Partitions
		return w.write(ctx, int32(p), c)
	}
	return w.write(ctx, 0, c)
}

// hashed writes each row of c to the partition owning its key group, as
// the hash exchange routes it to an instance.
func (w *Writer) hashed(ctx context.Context, c exec.Chunk) error {
	rows := c.NumRows()
	w.hashes = slices.Grow(w.hashes[:0], rows)[:rows]
	cols := make([]arrow.Array, len(w.cfg.Keys))
	for i, k := range w.cfg.Keys {
		cols[i] = c.Batch.Column(k)
	}
	if err := exec.HashRows(cols, w.hashes); err != nil {
		return err
	}
	if len(w.sels) != w.cfg.Partitions {
		w.sels = make([][]int32, w.cfg.Partitions)
	}
	for i := range w.sels {
		w.sels[i] = w.sels[i][:0]
	}
	for r, h := range w.hashes {
		p := exec.InstanceForKeyGroup(exec.KeyGroup(h), w.cfg.Partitions)
		w.sels[p] = append(w.sels[p], int32(r))
	}
	for p, sel := range w.sels {
		switch len(sel) {
		case 0:
			continue
		case rows:
			if err := w.write(ctx, int32(p), c); err != nil {
				return err
			}
			continue
		}
		part, err := exec.TakeRows(w.env.Alloc, c, sel)
		if err != nil {
			return err
		}
		err = w.write(ctx, int32(p), part)
		part.Batch.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// write encodes c as records of partition p, splitting it until every
// record is under maxRecordBytes.
func (w *Writer) write(ctx context.Context, p int32, c exec.Chunk) error {
	b, err := appendData(nil, w.cfg.Producer, c)
	if err != nil {
		return fmt.Errorf("cluster: shuffle to %s: %w", w.cfg.Topic, err)
	}
	if rows := c.NumRows(); len(b) > maxRecordBytes && rows > 1 {
		for _, half := range [][2]int{{0, rows / 2}, {rows / 2, rows}} {
			h := exec.Chunk{Batch: c.Batch.NewSlice(int64(half[0]), int64(half[1]))}
			if c.Ops != nil {
				h.Ops = c.Ops[half[0]:half[1]]
			}
			err := w.write(ctx, p, h)
			h.Batch.Release()
			if err != nil {
				return err
			}
		}
		return nil
	}
	return w.txn.Produce(ctx, []*kgo.Record{{Topic: w.cfg.Topic, Partition: p, Value: b}})
}

// OnControl sends a changed watermark to every partition, and waits on a
// barrier or flush marker until the brokers have every record written
// so far; the end of input publishes everything.
func (w *Writer) OnControl(ctx context.Context, m exec.Control, _ exec.Emitter) error {
	switch m.Kind {
	case exec.Watermark:
		if w.sentWm && m.Watermark == w.wm && m.Idle == w.idle {
			return nil
		}
		w.wm, w.idle, w.sentWm = m.Watermark, m.Idle, true
		recs := make([]*kgo.Record, w.cfg.Partitions)
		for p := range recs {
			recs[p] = &kgo.Record{Topic: w.cfg.Topic, Partition: int32(p), Value: appendWatermark(nil, w.cfg.Producer, m.Watermark, m.Idle)}
		}
		return w.txn.Produce(ctx, recs)
	case exec.EndOfInput:
		return w.txn.PublishAll(ctx)
	case exec.Barrier, exec.Flush:
		return w.txn.Flush(ctx)
	}
	return nil
}

// Snapshot pre-commits the epoch's transaction.
func (w *Writer) Snapshot(ctx context.Context, epoch uint64, sw exec.StateWriter) error {
	return w.txn.Snapshot(ctx, epoch, sw)
}

// Restore commits the transaction the checkpoint pre-committed, if it
// was not, and fences what a crashed or moved task left open.
func (w *Writer) Restore(ctx context.Context, r exec.StateReader, groups exec.KeyGroupRange) error {
	return w.txn.Restore(ctx, r, groups)
}

// Commit publishes the transactions pre-committed up to epoch.
func (w *Writer) Commit(ctx context.Context, epoch uint64) error { return w.txn.Commit(ctx, epoch) }

// Close closes the producers, aborting the transaction no checkpoint
// staged.
func (w *Writer) Close() error {
	if w.closed || w.txn == nil {
		return nil
	}
	w.closed = true
	w.txn.Close()
	return nil
}
