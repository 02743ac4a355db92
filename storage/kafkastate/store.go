package kafkastate

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/internal/guard"
	"github.com/eddysql/eddy/storage/internal/statecore"
)

// ErrFenced is returned (wrapped) by a Store whose partition another
// Store has since opened with the same transactional id: the task lost
// its partition. The store is unusable afterwards; close it.
var ErrFenced = errors.New("kafkastate: fenced by a newer owner of the partition")

// DefaultTxnTimeout is Config.TxnTimeout when it is zero: how long the
// broker lets a transaction stay open before aborting it, which bounds
// how long a crashed owner's open transaction holds up readers of the
// partition (the next owner's Open aborts it at once).
const DefaultTxnTimeout = 60 * time.Second

// Config says where a Store keeps its state.
type Config struct {
	// Brokers are the Kafka seed brokers.
	Brokers []string
	// Topic is the state topic, compacted (see CreateTopic).
	Topic string
	// Partition is the topic's partition that holds this store's state.
	Partition int32
	// TransactionalID identifies the partition's owner. Every owner of
	// the partition, in every process, must use the same id: opening a
	// store fences the earlier owner through it.
	TransactionalID string
	// TxnTimeout is the producer's transaction timeout; zero means
	// DefaultTxnTimeout.
	TxnTimeout time.Duration
}

// Store is a storage.StateStore whose committed state is one partition of
// a compacted Kafka topic. It is safe for concurrent use.
type Store struct {
	st *statecore.Store
	b  *backend
}

var _ storage.StateStore = (*Store)(nil)

// Open fences any earlier owner of cfg's partition (a Store opened with
// the same transactional id, which aborts its open transaction and
// refuses its commits from then on), then reads the partition's
// committed state. An empty partition is a store at epoch 0.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	switch {
	case len(cfg.Brokers) == 0:
		return nil, errors.New("kafkastate: no brokers")
	case cfg.Topic == "":
		return nil, errors.New("kafkastate: no topic")
	case cfg.Partition < 0:
		return nil, fmt.Errorf("kafkastate: negative partition %d", cfg.Partition)
	case cfg.TransactionalID == "":
		return nil, errors.New("kafkastate: no transactional id")
	}
	if cfg.TxnTimeout == 0 {
		cfg.TxnTimeout = DefaultTxnTimeout
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(cfg.Brokers...), kgo.TransactionalID(cfg.TransactionalID),
		kgo.TransactionTimeout(cfg.TxnTimeout), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		return nil, fmt.Errorf("kafkastate: %w", err)
	}
	job := fmt.Sprintf("%s[%d]", cfg.Topic, cfg.Partition)
	b := &backend{job: job, cl: cl, p: &partition{cl: cl, topic: cfg.Topic, part: cfg.Partition}}
	if err := b.open(ctx, cfg.TransactionalID); err != nil {
		cl.Close()
		return nil, err
	}
	st, err := statecore.New(job, b, guard.New())
	if err != nil {
		cl.Close()
		return nil, err
	}
	return &Store{st: st, b: b}, nil
}

// open fences the earlier owners and then loads the partition: only
// after the fence can no commit of theirs land after the load.
func (b *backend) open(ctx context.Context, txnID string) error {
	if _, _, err := b.cl.ProducerID(ctx); err != nil {
		return fmt.Errorf("kafkastate: %s: initializing transactional id %q: %w", b.job, txnID, err)
	}
	if err := b.p.locate(ctx); err != nil {
		return err
	}
	return b.load(ctx)
}

// Table implements storage.StateStore.
func (s *Store) Table(name string, opts storage.TableOptions) (storage.StateTable, error) {
	if s.b.fenced.Load() {
		return nil, s.b.errFenced()
	}
	t, err := s.st.Table(name, opts)
	if err != nil {
		return nil, err
	}
	return &table{t: t, b: s.b, prefix: len(storage.AppendString(nil, name))}, nil
}

// Commit implements storage.StateStore. After a fence it fails with an
// error wrapping ErrFenced.
func (s *Store) Commit(ctx context.Context, epoch uint64) error {
	return s.st.Commit(ctx, epoch)
}

// Recover implements storage.StateStore. If the last Commit failed without
// learning whether its transaction committed, Recover finds out first.
func (s *Store) Recover(ctx context.Context) (uint64, error) {
	if err := s.b.recover(ctx); err != nil {
		return 0, err
	}
	return s.st.Recover(ctx)
}

// Rollback implements storage.StateStore. It always fails with an error
// wrapping storage.ErrNoPrevious: compaction keeps only each key's latest
// value, so no earlier checkpoint exists. Kafka's CRC on every record
// batch is what guards the last one against damage.
func (s *Store) Rollback(ctx context.Context) (uint64, error) {
	return s.st.Rollback(ctx)
}

// Bytes implements storage.StateStore: the bytes of the committed keys
// (each with its table's encoded name) and values, as the store holds
// them in memory; the superseded records compaction has not removed yet
// are not counted.
func (s *Store) Bytes() (int64, error) {
	return s.st.Bytes()
}

// Close implements storage.StateStore: it discards the uncommitted writes
// and closes the Kafka client. It is idempotent.
func (s *Store) Close() error {
	return s.st.Close()
}
