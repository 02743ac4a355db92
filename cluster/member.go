package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Config is a member's view of its cluster.
type Config struct {
	// Name is the cluster's name: members with the same name and
	// brokers share their catalog and their queries' work.
	Name    string
	Brokers []string
	// Member identifies this process among the cluster's members.
	Member string
	// Partitions is the partition count of the topics keyed work is
	// repartitioned through: how many tasks a keyed fragment has, the
	// most members it can spread over (default 12).
	Partitions int
	// SessionTimeout is how long a member may go silent before the
	// others take over its tasks, and how long a rebalance waits for the
	// members to rejoin (default 10s).
	SessionTimeout time.Duration
	// Logger receives task starts, stops and failures (nil: slog's
	// default).
	Logger *slog.Logger
}

// DefaultPartitions is Config.Partitions' default.
const DefaultPartitions = 12

// Member is one process's membership in a cluster: it runs its share of
// the cluster's queries (Start).
type Member struct {
	cfg         Config
	incarnation string // tells this process from others under its name (watchdog.go)
	admCl       *kgo.Client
	adm         *kadm.Client
	log         *slog.Logger

	mu      sync.Mutex
	queries map[*Query]struct{} // the running queries, which the watchdog looks at

	stopWatch context.CancelFunc
	watched   chan struct{} // closed when the watchdog has ended
}

// NewMember connects to the cluster's brokers.
func NewMember(cfg Config) (*Member, error) {
	switch {
	case cfg.Name == "":
		return nil, errors.New("cluster: a cluster needs a name")
	case len(cfg.Brokers) == 0:
		return nil, errors.New("cluster: a cluster needs brokers")
	case cfg.Member == "":
		return nil, errors.New("cluster: a member needs an id")
	}
	if cfg.Partitions <= 0 {
		cfg.Partitions = DefaultPartitions
	}
	if cfg.SessionTimeout <= 0 {
		cfg.SessionTimeout = 10 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(cfg.Brokers...))
	if err != nil {
		return nil, fmt.Errorf("cluster: connecting to %v: %w", cfg.Brokers, err)
	}
	m := &Member{cfg: cfg, incarnation: newIncarnation(), admCl: cl, adm: kadm.NewClient(cl),
		log: cfg.Logger.With("cluster", cfg.Name, "member", cfg.Member), queries: map[*Query]struct{}{}, watched: make(chan struct{})}
	var ctx context.Context
	ctx, m.stopWatch = context.WithCancel(context.Background())
	go func() {
		defer close(m.watched)
		m.watch(ctx)
	}()
	return m, nil
}

// Config returns the member's configuration, defaults filled in.
func (m *Member) Config() Config { return m.cfg }

// Close stops the member's watchdog and releases its connection. Queries
// must be stopped first.
func (m *Member) Close() {
	m.stopWatch()
	<-m.watched
	m.admCl.Close()
}

// prefix starts the names of everything the cluster keeps in Kafka for
// the query of id: topics, consumer groups and transactional ids.
func (m *Member) prefix(id uint64) string { return fmt.Sprintf("_eddy-%s-q%d", m.cfg.Name, id) }

// The kinds of topics a query keeps in Kafka.
type topicKind int

const (
	// edgeTopic carries rows between fragments: the brokers' retention
	// applies (a task down longer than that loses its input).
	edgeTopic topicKind = iota
	// changesTopic is a view's changes, which a replica reads from the
	// start: kept forever.
	changesTopic
)

// ensureTopic creates topic with partitions, configured for its kind,
// unless it exists with that many partitions; members race to create the
// same topics, and all but one find it made.
func (m *Member) ensureTopic(ctx context.Context, topic string, partitions int, kind topicKind) error {
	var cfgs map[string]*string
	switch kind {
	case changesTopic:
		cfgs = map[string]*string{"retention.ms": ptr("-1")}
	}
	resp, err := m.adm.CreateTopic(ctx, int32(partitions), -1, cfgs, topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
		return fmt.Errorf("cluster: creating topic %s: %w", topic, err)
	}
	td, err := m.adm.ListTopics(ctx, topic)
	if err != nil {
		return fmt.Errorf("cluster: topic %s: %w", topic, err)
	}
	d, ok := td[topic]
	switch {
	case !ok || d.Err != nil:
		return fmt.Errorf("cluster: topic %s does not exist after creating it: %v", topic, d.Err)
	case len(d.Partitions) != partitions:
		return fmt.Errorf("cluster: topic %s has %d partitions, and the query needs %d (was the cluster's partition count changed?)", topic, len(d.Partitions), partitions)
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

// NotSupportedError is a query the cluster cannot run, whatever the
// brokers do: callers tell it from a failure to reach them, which may
// pass.
type NotSupportedError struct {
	Feature string
}

func (e *NotSupportedError) Error() string { return "not supported yet in cluster mode: " + e.Feature }

func notSupported(format string, args ...any) error {
	return &NotSupportedError{Feature: fmt.Sprintf(format, args...)}
}
