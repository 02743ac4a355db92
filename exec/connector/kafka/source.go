package kafka

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector/file"
)

// maxReported is how many bad messages a source reports one by one; later
// ones are only counted (bad_rows), as the file source does.
const maxReported = 5

// pollRecords is the most records one poll takes from the client's
// buffers: a few batches' worth, so the fetch goroutine stays ahead of
// the decoder without holding much memory.
const pollRecords = 4 * file.DefaultBatchSize

// fetchPartitionBytes is the most bytes one fetch takes from a partition
// (the client's default is 1 MiB): larger fetches halve the round trips
// per row on a busy topic, and the fetch goroutine keeps at most two
// polls ahead.
const fetchPartitionBytes = 8 << 20

// RowError describes a message the source could not read: where it is
// (topic, partition, offset) and what was wrong.
type RowError struct {
	Topic     string
	Partition int32
	Offset    int64
	Err       *file.DecodeError
}

// Error returns "topic[partition]@offset: column c: msg".
func (e *RowError) Error() string {
	return e.Topic + "[" + strconv.Itoa(int(e.Partition)) + "]@" + strconv.FormatInt(e.Offset, 10) + ": " + e.Err.Error()
}

// Source reads the partitions of a topic that are its instance's
// (partition p is read by instance p mod parallelism) into chunks. It
// implements exec.Source and exec.Positioned; the runtime calls it from
// one goroutine. A snapshot source reads up to the partitions' end
// offsets as of Open and then ends.
type Source struct {
	cfg      Config
	snapshot bool

	env      *exec.Env
	instance int
	par      int
	admCl    *kgo.Client
	adm      *kadm.Client
	parts    []int32 // the partitions read, ascending
	only     []int32 // ReadPartitions' partitions (nil: by instance)
	slot     []int   // by partition number: its index in parts, or -1
	next     []int64 // per part: the offset of the next message to return
	end      []int64 // snapshot: per part, the offset to stop at
	known    []int64 // per part: the latest end offset heard of (progress)
	first    []int64 // per part: the offset reading started at (progress)
	rows     *rows
	started  bool
	// exhausted says Seek found nothing past the position (Exhausted).
	exhausted bool
	closed    bool
	reported  int
	err       error // sticky: a failed source keeps failing
	et        eventTimes
	grp       *groupReporter // nil without a group option
	now       time.Time      // processing time, taken once per Next

	cl      *kgo.Client
	cancel  context.CancelFunc
	fetched chan kgo.Fetches
	buf     []*kgo.Record // records taken from the client but not yet returned
	bufAt   int
}

var (
	_ exec.Source     = (*Source)(nil)
	_ exec.Positioned = (*Source)(nil)
	_ exec.Exhausted  = (*Source)(nil)
)

// New returns a source for cfg; snapshot reads to the end offsets as of
// Open and then ends.
func New(cfg Config, snapshot bool) *Source {
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = file.DefaultBatchSize
	}
	return &Source{cfg: cfg, snapshot: snapshot}
}

// ReadPartitions makes the source read exactly the partitions ps,
// whatever its instance and parallelism: a cluster member's task reads
// the partitions the consumer group assigned it. It is called before
// Open; a partition the topic does not have fails Open.
func (s *Source) ReadPartitions(ps []int32) {
	s.only = slices.Sorted(slices.Values(ps))
}

// Topic returns the topic the source reads.
func (s *Source) Topic() string { return s.cfg.Topic }

// TopicPartitions returns the number of partitions of the source's
// topic; it connects to the brokers for it and needs no Open.
func (s *Source) TopicPartitions(ctx context.Context) (int, error) {
	cl, adm, err := newAdmin(s.cfg.Brokers)
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	return partitionCount(ctx, adm, s.cfg.Brokers, s.cfg.Topic)
}

// Open connects to the brokers, finds the instance's partitions and where
// each starts (the startup option), and for a snapshot where each ends.
// A topic that does not exist is an error.
func (s *Source) Open(ctx context.Context, env *exec.Env) error {
	if s.closed {
		return errors.New("kafka connector: source is closed")
	}
	s.env, s.instance, s.par = env, env.Instance, max(env.Parallelism, 1)
	var err error
	if s.admCl, s.adm, err = newAdmin(s.cfg.Brokers); err != nil {
		return err
	}
	n, err := partitionCount(ctx, s.adm, s.cfg.Brokers, s.cfg.Topic)
	if err != nil {
		return err
	}
	s.slot = make([]int, n)
	for p := range n {
		s.slot[p] = -1
		if s.only == nil && p%s.par == s.instance || s.only != nil && slices.Contains(s.only, int32(p)) {
			s.slot[p] = len(s.parts)
			s.parts = append(s.parts, int32(p))
		}
	}
	if len(s.only) != len(s.parts) && s.only != nil {
		return fmt.Errorf("kafka connector: topic %s has %d partitions, and the source was asked to read %v", s.cfg.Topic, n, s.only)
	}
	which := map[string]string{StartEarliest: "start", StartLatest: "end", StartTimestamp: "time"}[s.cfg.Startup]
	starts, err := listOffsets(ctx, s.adm, s.cfg.Topic, which, s.cfg.ReadCommitted, s.cfg.StartMs)
	if err != nil {
		return err
	}
	s.next, s.known = make([]int64, len(s.parts)), make([]int64, len(s.parts))
	for i, p := range s.parts {
		s.next[i] = starts[p]
	}
	if s.snapshot {
		ends, err := listOffsets(ctx, s.adm, s.cfg.Topic, "end", s.cfg.ReadCommitted, 0)
		if err != nil {
			return err
		}
		s.end = make([]int64, len(s.parts))
		for i, p := range s.parts {
			s.end[i], s.known[i] = ends[p], ends[p]
		}
	}
	if s.rows, err = newRows(&s.cfg, env.Alloc, s.cfg.BatchSize); err != nil {
		return err
	}
	s.et.open(len(s.parts), env.Now())
	if s.cfg.Group != "" && !s.snapshot {
		s.grp = &groupReporter{group: s.cfg.Group, failures: env.Metrics.Counter("group_commit_failures")}
	}
	return nil
}

// start begins consuming the instance's partitions from their next
// offsets, fetching in a goroutine of its own.
func (s *Source) start() error {
	s.started = true
	s.first = slices.Clone(s.next)
	if len(s.parts) == 0 {
		return nil
	}
	offs := make(map[int32]kgo.Offset, len(s.parts))
	for i, p := range s.parts {
		offs[p] = kgo.NewOffset().At(s.next[i])
	}
	iso := kgo.ReadUncommitted()
	if s.cfg.ReadCommitted {
		iso = kgo.ReadCommitted()
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(s.cfg.Brokers...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{s.cfg.Topic: offs}),
		kgo.FetchIsolationLevel(iso), kgo.KeepControlRecords(), kgo.FetchMaxPartitionBytes(fetchPartitionBytes),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.WithPools(records, buffers))
	if err != nil {
		return &BrokerError{Brokers: s.cfg.Brokers, Err: err}
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.cl, s.cancel, s.fetched = cl, cancel, make(chan kgo.Fetches, 2)
	go s.fetch(ctx)
	return nil
}

// fetch polls the client until ctx is done, handing each poll's fetches
// to Next.
func (s *Source) fetch(ctx context.Context) {
	for {
		fs := s.cl.PollFetches(ctx)
		if ctx.Err() != nil || fs.IsClientClosed() {
			return
		}
		select {
		case s.fetched <- fs:
		case <-ctx.Done():
			return
		}
	}
}

// Next returns the next chunk of rows. A snapshot returns io.EOF once
// every partition is read to its end offset; a continuous source returns
// exec.ErrCaughtUp only when it has returned every message up to the end
// offsets the brokers report at that moment, so that FLUSH (which waits
// for it) covers what the topic held when it was asked.
func (s *Source) Next(ctx context.Context) (exec.Chunk, error) {
	switch {
	case s.err != nil:
		return exec.Chunk{}, s.err
	case s.rows == nil:
		return exec.Chunk{}, errors.New("kafka connector: source is not open")
	}
	if !s.started {
		if err := s.start(); err != nil {
			s.err = err
			return exec.Chunk{}, err
		}
	}
	defer s.reportInput()
	s.now = s.env.Now()
	for !s.rows.full() {
		if s.bufAt == len(s.buf) {
			got, err := s.take(ctx, s.rows.n == 0)
			if err != nil {
				s.err = err
				return exec.Chunk{}, err
			}
			if !got {
				break
			}
			continue
		}
		m := s.buf[s.bufAt]
		if err := s.read(m); err != nil {
			if s.rows.n > 0 {
				break // deliver the rows before the bad one; the error follows
			}
			s.err = err
			return exec.Chunk{}, err
		}
		m.Recycle() // its bytes are copied into the batch
		s.buf[s.bufAt] = nil
		s.bufAt++
	}
	if c := s.rows.finish(); c.Batch != nil {
		s.et.batch(c.Batch)
		return c, nil
	}
	if s.done() {
		return exec.Chunk{}, io.EOF
	}
	return exec.Chunk{}, exec.ErrCaughtUp
}

// read handles message m: a control record or a message beyond a
// snapshot's end only moves the partition on; any other is appended as a
// row, or counted as bad. It returns an error only for a bad message with
// on_error = 'fail', leaving the partition before it.
func (s *Source) read(m *kgo.Record) error {
	i := s.slotOf(m.Partition)
	if i < 0 || m.Offset < s.next[i] {
		return nil // not ours, or read before a seek moved on
	}
	if (s.snapshot && m.Offset >= s.end[i]) || m.Attrs.IsControl() {
		s.next[i] = m.Offset + 1
		return nil
	}
	if derr := s.rows.add(m); derr != nil {
		e := &RowError{Topic: s.cfg.Topic, Partition: m.Partition, Offset: m.Offset, Err: derr}
		s.env.Metrics.BadRows.Add(1)
		if s.cfg.OnError == OnErrorFail {
			return e
		}
		switch {
		case s.reported < maxReported:
			s.env.Warnf("%s", e.Error())
		case s.reported == maxReported:
			s.env.Warnf("%s: more than %d bad messages; further bad messages are only counted (bad_rows)", s.cfg.Topic, maxReported)
		}
		s.reported++
	} else {
		s.et.row(i, s.now)
	}
	s.next[i] = m.Offset + 1
	return nil
}

// slotOf returns partition p's index in parts, or -1.
func (s *Source) slotOf(p int32) int {
	if p < 0 || int(p) >= len(s.slot) {
		return -1
	}
	return s.slot[p]
}

// take refills buf from the fetch goroutine. It waits for fetches only
// while the source has not read up to the end offsets, and only when wait
// is set (no rows are pending); it reports whether it refilled.
func (s *Source) take(ctx context.Context, wait bool) (bool, error) {
	s.buf, s.bufAt = s.buf[:0], 0
	if s.fetched == nil {
		return false, nil
	}
	var fs kgo.Fetches
	select {
	case fs = <-s.fetched:
	default:
		if !wait {
			return false, nil
		}
		// Behind the end offsets: the messages are coming, and ErrCaughtUp
		// would answer a FLUSH too early. The end offsets are asked again
		// every second (a retention policy may have deleted messages).
		for fs == nil {
			if s.snapshot {
				if s.done() {
					return false, nil
				}
			} else if caught, err := s.caughtUp(ctx); err != nil || caught {
				return false, err
			}
			t := time.NewTimer(time.Second)
			select {
			case fs = <-s.fetched:
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return false, ctx.Err()
			}
			t.Stop()
		}
	}
	return true, s.load(fs)
}

// load puts the records of fs in buf, or returns its first error.
func (s *Source) load(fs kgo.Fetches) error {
	var ferr error
	fs.EachError(func(topic string, p int32, err error) {
		if ferr == nil && !errors.Is(err, context.Canceled) {
			ferr = fmt.Errorf("kafka connector: fetching %s[%d]: %w", topic, p, err)
		}
	})
	if ferr != nil {
		return ferr
	}
	s.buf, s.bufAt = s.buf[:0], 0
	fs.EachPartition(func(p kgo.FetchTopicPartition) {
		if i := s.slotOf(p.Partition); i >= 0 {
			end := p.HighWatermark
			if s.cfg.ReadCommitted {
				end = p.LastStableOffset
			}
			s.known[i] = max(s.known[i], end)
		}
		p.EachRecord(func(r *kgo.Record) { s.buf = append(s.buf, r) })
	})
	return nil
}

// done reports whether a snapshot has read every partition to its end.
func (s *Source) done() bool {
	if !s.snapshot {
		return false
	}
	for i := range s.parts {
		if s.next[i] < s.end[i] {
			return false
		}
	}
	return true
}

// caughtUp asks the brokers for the partitions' end offsets and reports
// whether the source has returned everything before them.
func (s *Source) caughtUp(ctx context.Context) (bool, error) {
	ends, err := listOffsets(ctx, s.adm, s.cfg.Topic, "end", s.cfg.ReadCommitted, 0)
	if err != nil {
		return false, err
	}
	caught := true
	for i, p := range s.parts {
		s.known[i] = max(s.known[i], ends[p])
		if s.next[i] < ends[p] {
			caught = false
		}
	}
	return caught, nil
}

// reportInput records the source's progress in messages: those read
// since it started, and those known to follow them (up to the latest end
// offsets a fetch or a listing reported).
func (s *Source) reportInput() {
	var read, backlog int64
	for i := range s.first {
		read += s.next[i] - s.first[i]
		backlog += max(s.known[i]-s.next[i], 0)
	}
	s.env.Metrics.ReportInput(read, backlog)
}

// Wait blocks until fetched messages are ready or ctx is done.
func (s *Source) Wait(ctx context.Context) error {
	if s.bufAt < len(s.buf) || s.fetched == nil {
		if s.fetched == nil && s.started {
			<-ctx.Done() // no partitions: nothing ever comes
			return ctx.Err()
		}
		return nil
	}
	select {
	case fs := <-s.fetched:
		if err := s.load(fs); err != nil {
			s.err = err
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops consuming and frees the builders. It is safe without Open
// and idempotent.
func (s *Source) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	if s.cancel != nil {
		s.cancel()
	}
	if s.cl != nil {
		s.cl.Close()
	}
	if s.admCl != nil {
		s.admCl.Close()
	}
	if s.rows != nil {
		s.rows.release()
		s.rows = nil
	}
	return nil
}
