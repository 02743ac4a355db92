package cluster

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// commandVersion is the version of the record encoding written to the
// command topic. A record with another version does not decode.
const commandVersion = 1

// openTimeout bounds the broker round trips of OpenCommandLog (creating the
// topic, listing its end offset): long enough for a broker that is starting
// or a topic whose metadata is still spreading, short enough that a wrong
// address fails the start of the member rather than hanging it.
const openTimeout = 30 * time.Second

// openRetryInterval is the pause between attempts to list the end offset
// of a topic just created, whose leader the brokers may not know yet.
const openRetryInterval = 100 * time.Millisecond

// ErrClosed is returned by Ready and Submit once the log has been closed.
var ErrClosed = errors.New("cluster: command log closed")

// Command is one DDL statement as the cluster applies it.
type Command struct {
	ID       string            `json:"id"`                 // unique per submission (member id, incarnation, sequence), so the issuer finds its own
	Member   string            `json:"member"`             // the issuing member's id
	SQL      string            `json:"sql"`                // the statement's text
	Settings map[string]string `json:"settings,omitempty"` // the issuing session's settings that shape the statement (SET name -> value)
}

// wireCommand is a Command as it is stored in the command topic.
type wireCommand struct {
	Version int `json:"v"`
	Command
}

// encodeCommand returns the record value of cmd.
func encodeCommand(cmd Command) ([]byte, error) {
	return json.Marshal(wireCommand{Version: commandVersion, Command: cmd})
}

// decodeCommand returns the command a record value holds, or an error if
// the value is not JSON, has another version, or lacks an ID or SQL.
func decodeCommand(b []byte) (Command, error) {
	var w wireCommand
	if err := json.Unmarshal(b, &w); err != nil {
		return Command{}, fmt.Errorf("decoding command: %w", err)
	}
	switch {
	case w.Version != commandVersion:
		return Command{}, fmt.Errorf("decoding command: version %d, want %d", w.Version, commandVersion)
	case w.ID == "" || w.SQL == "":
		return Command{}, errors.New("decoding command: missing id or sql")
	}
	return w.Command, nil
}

// ApplyFunc applies one command on this member; offset is its place in the
// topic (stable across members and restarts — callers use it to name
// things). ctx is done when the log closes.
type ApplyFunc func(ctx context.Context, offset int64, cmd Command) (result any, err error)

// CommandLogConfig says where the command topic is and who this member is.
type CommandLogConfig struct {
	Brokers []string
	Topic   string
	Member  string
	// OnError, if set, is told of records the applier skipped because they
	// did not decode (with their offset) and of errors reading the topic
	// that the client retries (with offset -1). It is called from the
	// applier goroutine and must not block for long.
	OnError func(offset int64, err error)
}

// outcome is what applying one command returned.
type outcome struct {
	result any
	err    error
}

// CommandLog is this member's view of the command topic: it appends the
// statements submitted here and applies every command of the topic, in its
// order, one at a time.
type CommandLog struct {
	cfg         CommandLogConfig
	apply       ApplyFunc
	cl          *kgo.Client
	end         int64  // the topic's end offset when the log opened
	incarnation string // tells this process's command IDs from a restarted member's
	seq         atomic.Uint64
	applied     atomic.Int64
	skipped     atomic.Int64

	mu      sync.Mutex
	waiters map[string]chan outcome // by command ID, this member's pending submissions

	cancel    context.CancelFunc
	ready     chan struct{} // closed once the commands present at open are applied
	replayed  bool          // whether ready is closed; owned by the applier
	done      chan struct{} // closed when the applier has returned
	err       error         // why the applier stopped, if it failed; set before done closes
	closeOnce sync.Once
}

// OpenCommandLog creates the topic if missing (1 partition, retention
// forever: retention.ms=-1, cleanup.policy=delete), and starts the applier
// goroutine, which reads the topic from offset 0 and calls apply for every
// command in order, one at a time. ctx bounds the opening only; the applier
// runs until Close. An existing topic with more than one partition is
// refused, since it has no single order.
//
// The applier assumes the topic holds no transactions (only this package
// writes to it, without them): Ready waits for the offset before the end,
// which a transaction marker would never deliver.
func OpenCommandLog(ctx context.Context, cfg CommandLogConfig, apply ApplyFunc) (*CommandLog, error) {
	if len(cfg.Brokers) == 0 || cfg.Topic == "" || cfg.Member == "" || apply == nil {
		return nil, errors.New("cluster: opening command log: brokers, topic, member and apply are required")
	}
	end, err := prepareTopic(ctx, cfg)
	if err != nil {
		return nil, err
	}
	// kgo's producer defaults are the ones a command log needs: idempotent
	// writes acknowledged by all in-sync replicas.
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(cfg.Brokers...),
		kgo.DefaultProduceTopic(cfg.Topic),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{cfg.Topic: {0: kgo.NewOffset().At(0)}}),
		// Retention is forever: an offset out of range means commands were
		// lost, which must stop the log rather than skip them.
		kgo.ConsumeResetOffset(kgo.NoResetOffset()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
	)
	if err != nil {
		return nil, fmt.Errorf("cluster: opening command log %q: %w", cfg.Topic, err)
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	l := &CommandLog{
		cfg:         cfg,
		apply:       apply,
		cl:          cl,
		end:         end,
		incarnation: rand.Text()[:10],
		waiters:     make(map[string]chan outcome),
		cancel:      cancel,
		ready:       make(chan struct{}),
		done:        make(chan struct{}),
	}
	l.applied.Store(-1)
	if end == 0 {
		l.replayed = true
		close(l.ready)
	}
	go func() {
		l.err = l.run(runCtx)
		close(l.done)
	}()
	return l, nil
}

// prepareTopic creates cfg.Topic if missing and returns its end offset.
func prepareTopic(ctx context.Context, cfg CommandLogConfig) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, openTimeout)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(cfg.Brokers...))
	if err != nil {
		return 0, fmt.Errorf("cluster: opening command log %q: %w", cfg.Topic, err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	forever, deletes := "-1", "delete"
	configs := map[string]*string{"retention.ms": &forever, "cleanup.policy": &deletes}
	if _, err := adm.CreateTopic(ctx, 1, -1, configs, cfg.Topic); err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
		return 0, fmt.Errorf("cluster: creating command topic %q: %w", cfg.Topic, err)
	}
	for {
		l, err := adm.ListEndOffsets(ctx, cfg.Topic)
		if err == nil {
			err = l.Error()
		}
		if err == nil {
			if n := len(l[cfg.Topic]); n != 1 {
				return 0, fmt.Errorf("cluster: command topic %q has %d partitions, want 1", cfg.Topic, n)
			}
			if o, ok := l.Lookup(cfg.Topic, 0); ok {
				return o.Offset, nil
			}
			err = kerr.UnknownTopicOrPartition
		}
		if !kerr.IsRetriable(err) {
			return 0, fmt.Errorf("cluster: listing the end offset of command topic %q: %w", cfg.Topic, err)
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("cluster: listing the end offset of command topic %q: %w (last: %w)", cfg.Topic, ctx.Err(), err)
		case <-time.After(openRetryInterval):
		}
	}
}

// run is the applier: it polls the topic and handles its records in order
// until ctx is done (it returns nil) or the topic lost commands.
func (l *CommandLog) run(ctx context.Context) error {
	for {
		fs := l.cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return nil
		}
		for _, fe := range fs.Errors() {
			var loss *kgo.ErrDataLoss
			switch {
			case errors.Is(fe.Err, kgo.ErrClientClosed):
				return nil
			case errors.As(fe.Err, &loss) || errors.Is(fe.Err, kerr.OffsetOutOfRange):
				return fmt.Errorf("cluster: command topic %q lost commands after offset %d: %w", l.cfg.Topic, l.applied.Load(), fe.Err)
			default:
				l.report(-1, fmt.Errorf("cluster: reading command topic %q: %w", l.cfg.Topic, fe.Err))
			}
		}
		for it := fs.RecordIter(); !it.Done() && ctx.Err() == nil; {
			l.handle(ctx, it.Next())
		}
	}
}

// handle applies or skips one record and marks it done.
func (l *CommandLog) handle(ctx context.Context, r *kgo.Record) {
	if r.Offset <= l.applied.Load() {
		return // delivered again after the client reset its position
	}
	cmd, err := decodeCommand(r.Value)
	if err != nil {
		l.skipped.Add(1)
		l.report(r.Offset, fmt.Errorf("cluster: command topic %q offset %d skipped: %w", l.cfg.Topic, r.Offset, err))
	} else {
		res, err := l.safeApply(ctx, r.Offset, cmd)
		if cmd.Member == l.cfg.Member {
			l.mu.Lock()
			ch := l.waiters[cmd.ID]
			l.mu.Unlock()
			if ch != nil {
				ch <- outcome{result: res, err: err} // buffered, one send per ID
			}
		}
	}
	l.applied.Store(r.Offset)
	if !l.replayed && r.Offset >= l.end-1 {
		l.replayed = true
		close(l.ready)
	}
}

// safeApply calls apply, turning a panic into the command's error: a
// statement that panics would otherwise stop every member, and again at
// every replay.
func (l *CommandLog) safeApply(ctx context.Context, offset int64, cmd Command) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			result, err = nil, fmt.Errorf("cluster: applying command at offset %d panicked: %v", offset, p)
		}
	}()
	return l.apply(ctx, offset, cmd)
}

// report passes err to the configured OnError, if any.
func (l *CommandLog) report(offset int64, err error) {
	if l.cfg.OnError != nil {
		l.cfg.OnError(offset, err)
	}
}

// stopErr returns why the applier stopped: its failure, or ErrClosed. It
// is called only after done is closed.
func (l *CommandLog) stopErr() error {
	if l.err != nil {
		return l.err
	}
	return ErrClosed
}

// Ready blocks until the applier has applied every command the topic held
// when OpenCommandLog was called (replaying the catalog), or ctx is done,
// or the log closed or failed.
func (l *CommandLog) Ready(ctx context.Context) error {
	select {
	case <-l.ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-l.done:
		select {
		case <-l.ready:
			return nil
		default:
			return l.stopErr()
		}
	}
}

// Submit appends a command of sql and settings (filling ID and Member),
// waits until this member's applier has applied it, and returns what apply
// returned for it. An empty sql is refused. When ctx is done first, Submit
// returns ctx.Err(); when the log closes or fails first, it returns that
// error. In both cases the command may already be in the topic, and then
// every member still applies it (a closing member at its next start).
func (l *CommandLog) Submit(ctx context.Context, sql string, settings map[string]string) (result any, err error) {
	if sql == "" {
		// Every applier would skip it as malformed, and Submit would wait forever.
		return nil, errors.New("cluster: submitting an empty statement")
	}
	select {
	case <-l.done:
		return nil, l.stopErr()
	default:
	}
	cmd := Command{
		ID:       fmt.Sprintf("%s/%s/%d", l.cfg.Member, l.incarnation, l.seq.Add(1)),
		Member:   l.cfg.Member,
		SQL:      sql,
		Settings: maps.Clone(settings),
	}
	val, err := encodeCommand(cmd)
	if err != nil {
		return nil, fmt.Errorf("cluster: encoding command: %w", err)
	}
	ch := make(chan outcome, 1)
	l.mu.Lock()
	l.waiters[cmd.ID] = ch
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		delete(l.waiters, cmd.ID)
		l.mu.Unlock()
	}()
	rec := &kgo.Record{Topic: l.cfg.Topic, Partition: 0, Value: val}
	if err := l.cl.ProduceSync(ctx, rec).FirstErr(); err != nil {
		return nil, fmt.Errorf("cluster: appending to command topic %q: %w", l.cfg.Topic, err)
	}
	select {
	case o := <-ch:
		return o.result, o.err
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-l.done:
		select {
		case o := <-ch:
			return o.result, o.err
		default:
			return nil, l.stopErr()
		}
	}
}

// Applied returns the offset of the last record the applier has finished
// with, applied or skipped as malformed (-1 none).
func (l *CommandLog) Applied() int64 { return l.applied.Load() }

// Skipped returns how many records the applier skipped because they did
// not decode.
func (l *CommandLog) Skipped() int64 { return l.skipped.Load() }

// Close stops the applier (cancelling the context of an apply under way),
// waits for it and closes the client. It is idempotent. It returns the
// error that had stopped the applier before, if it failed, and nil
// otherwise.
func (l *CommandLog) Close() error {
	l.closeOnce.Do(func() {
		l.cancel()
		<-l.done
		l.cl.Close()
	})
	return l.err
}
