package kafkastate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/eddysql/eddy/storage"
)

// Reading a partition. The store reads with bare Fetch requests rather
// than franz-go's consumer, because it must know when it has read
// everything committed up to an offset, and the consumer does not say
// how far it got past control records and aborted transactions, which it
// drops. kgo.ProcessFetchPartition decodes a response (checking each
// batch's CRC, dropping aborted transactions) and returns the offset to
// fetch next, past whatever it dropped.

const (
	// fetchMaxBytes bounds one fetch response. A few chunks' worth
	// amortizes the round trips of a large load; Kafka returns a batch
	// larger than this whole anyway.
	fetchMaxBytes = 8 << 20
	// fetchMaxWait is how long a broker holds a fetch for data.
	fetchMaxWait = 500 * time.Millisecond
	// minBackoff and maxBackoff bound the waits between retries of a
	// transient error and between polls of the last stable offset.
	minBackoff = 10 * time.Millisecond
	maxBackoff = time.Second
)

// partition is the state partition as the store reads it.
type partition struct {
	cl    *kgo.Client
	topic string
	part  int32

	located bool // leader and id are known
	leader  int32
	id      [16]byte // the topic's id, which Fetch v13+ names it by
}

// corruptErr returns the error for what is wrong with the record of
// topic's partition part at offset.
func corruptErr(topic string, part int32, offset int64, what string) error {
	return fmt.Errorf("kafkastate: topic %q partition %d offset %d: %w: %s", topic, part, offset, storage.ErrCorrupt, what)
}

// sortChanges sorts chs by key.
func sortChanges(chs []change) {
	slices.SortFunc(chs, func(a, b change) int { return bytes.Compare(a.key, b.key) })
}

// sleep waits for d or until ctx is done, and doubles *d up to maxBackoff.
func sleep(ctx context.Context, d *time.Duration) error {
	t := time.NewTimer(*d)
	defer t.Stop()
	*d = min(2**d, maxBackoff)
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// locate finds the partition's leader and the topic's id.
func (p *partition) locate(ctx context.Context) error {
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr(p.topic)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, p.cl)
	if err != nil {
		return fmt.Errorf("kafkastate: metadata of topic %q: %w", p.topic, err)
	}
	if len(resp.Topics) != 1 {
		return fmt.Errorf("kafkastate: metadata of topic %q: %d topics in the response", p.topic, len(resp.Topics))
	}
	t := resp.Topics[0]
	if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
		return fmt.Errorf("kafkastate: metadata of topic %q: %w", p.topic, err)
	}
	for _, tp := range t.Partitions {
		if tp.Partition != p.part {
			continue
		}
		if tp.Leader < 0 {
			err := kerr.ErrorForCode(tp.ErrorCode)
			if err == nil {
				err = kerr.LeaderNotAvailable
			}
			return fmt.Errorf("kafkastate: metadata of topic %q partition %d: %w", p.topic, p.part, err)
		}
		p.located, p.leader, p.id = true, tp.Leader, t.TopicID
		return nil
	}
	return fmt.Errorf("kafkastate: topic %q has no partition %d (it has %d)", p.topic, p.part, len(t.Partitions))
}

// listOffset returns the partition's offset for timestamp (-2 the log
// start, -1 the end) as a consumer of isolation level (0
// read_uncommitted, whose end is the high watermark; 1 read_committed,
// whose end is the last stable offset) sees it.
func (p *partition) listOffset(ctx context.Context, isolation int8, timestamp int64) (int64, error) {
	backoff := minBackoff
	for {
		req := kmsg.NewPtrListOffsetsRequest()
		req.IsolationLevel = isolation
		rt := kmsg.NewListOffsetsRequestTopic()
		rt.Topic = p.topic
		rp := kmsg.NewListOffsetsRequestTopicPartition()
		rp.Partition, rp.Timestamp = p.part, timestamp
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
		resp, err := req.RequestWith(ctx, p.cl)
		if err == nil {
			if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
				return 0, fmt.Errorf("kafkastate: listing offsets of topic %q partition %d: a response of the wrong shape", p.topic, p.part)
			}
			got := resp.Topics[0].Partitions[0]
			if err = kerr.ErrorForCode(got.ErrorCode); err == nil {
				return got.Offset, nil
			}
		}
		if !kerr.IsRetriable(err) {
			return 0, fmt.Errorf("kafkastate: listing offsets of topic %q partition %d: %w", p.topic, p.part, err)
		}
		if e := sleep(ctx, &backoff); e != nil {
			return 0, fmt.Errorf("kafkastate: listing offsets of topic %q partition %d: %w (after %w)", p.topic, p.part, e, err)
		}
	}
}

// settledEnd returns the partition's high watermark once every
// transaction with records before it is decided: once the last stable
// offset has reached it. The store's own producer has no transaction
// open when this is called, so the wait is for a transaction that a fence
// or an abort has just ended, whose markers the coordinator may still be
// writing (or, if some other producer writes to the partition, for that
// producer's transaction to end).
func (p *partition) settledEnd(ctx context.Context) (int64, error) {
	hwm, err := p.listOffset(ctx, 0, -1)
	if err != nil {
		return 0, err
	}
	backoff := minBackoff
	for {
		lso, err := p.listOffset(ctx, 1, -1)
		if err != nil {
			return 0, err
		}
		if lso >= hwm {
			return hwm, nil
		}
		if err := sleep(ctx, &backoff); err != nil {
			return 0, fmt.Errorf("kafkastate: waiting for the transactions before offset %d of topic %q partition %d to end (stable up to %d): %w",
				hwm, p.topic, p.part, lso, err)
		}
	}
}

// errNotCommitted is confirm's error for a record that is not committed.
var errNotCommitted = errors.New("kafkastate: the transaction ended without committing")

// confirm returns nil once the record at offset is committed, and an
// error wrapping errNotCommitted if its transaction was aborted.
func (p *partition) confirm(ctx context.Context, offset int64) error {
	backoff := minBackoff
	for {
		lso, err := p.listOffset(ctx, 1, -1)
		if err != nil {
			return err
		}
		if lso > offset {
			break
		}
		if err := sleep(ctx, &backoff); err != nil {
			return fmt.Errorf("kafkastate: waiting for offset %d of topic %q partition %d to be stable: %w", offset, p.topic, p.part, err)
		}
	}
	found := false
	err := p.read(ctx, offset, offset+1, func(r *kgo.Record) error {
		found = r.Offset == offset
		return nil
	})
	if err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("%w: its epoch marker at offset %d of topic %q partition %d is not committed", errNotCommitted, offset, p.topic, p.part)
	}
	return nil
}

// read calls fn for the committed records at offsets in [from, to), in
// order. Every transaction with records before to must be decided (see
// settledEnd), so that read knows when it is done.
func (p *partition) read(ctx context.Context, from, to int64, fn func(*kgo.Record) error) error {
	backoff := minBackoff
	retry := func(err error) error {
		p.located = false
		if e := sleep(ctx, &backoff); e != nil {
			return fmt.Errorf("kafkastate: reading topic %q partition %d at offset %d: %w (after %w)", p.topic, p.part, from, e, err)
		}
		return nil
	}
	for from < to {
		rp, err := p.fetch(ctx, from)
		if err != nil {
			if !kerr.IsRetriable(err) && !errors.Is(err, errNotLeader) {
				return fmt.Errorf("kafkastate: reading topic %q partition %d at offset %d: %w", p.topic, p.part, from, err)
			}
			if err := retry(err); err != nil {
				return err
			}
			continue
		}
		fp, next := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{
			Offset: from, IsolationLevel: kgo.ReadCommitted(), Topic: p.topic, Partition: p.part,
		}, rp, kgo.DefaultDecompressor(), nil)
		for _, r := range fp.Records {
			if r.Offset >= to {
				break
			}
			if err := fn(r); err != nil {
				return err
			}
		}
		if fp.Err != nil {
			return corruptErr(p.topic, p.part, next, fp.Err.Error())
		}
		if next <= from {
			if err := sleep(ctx, &backoff); err != nil { // nothing yet: the broker's wait ran out
				return fmt.Errorf("kafkastate: reading topic %q partition %d at offset %d (of %d): %w", p.topic, p.part, from, to, err)
			}
			continue
		}
		from, backoff = next, minBackoff
	}
	return nil
}

// errNotLeader is fetch's error when the broker it asked is not the
// partition's leader (any more).
var errNotLeader = errors.New("kafkastate: not the leader")

// fetch sends one Fetch request for the partition at offset to its
// leader and returns the partition's part of the response.
func (p *partition) fetch(ctx context.Context, offset int64) (*kmsg.FetchResponseTopicPartition, error) {
	if !p.located {
		if err := p.locate(ctx); err != nil {
			return nil, err
		}
	}
	req := kmsg.NewPtrFetchRequest()
	req.MaxWaitMillis = int32(fetchMaxWait / time.Millisecond)
	req.MinBytes = 1
	req.MaxBytes = fetchMaxBytes
	req.IsolationLevel = 1
	rt := kmsg.NewFetchRequestTopic()
	rt.Topic, rt.TopicID = p.topic, p.id
	rp := kmsg.NewFetchRequestTopicPartition()
	rp.Partition, rp.FetchOffset, rp.PartitionMaxBytes = p.part, offset, fetchMaxBytes
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, p.cl.Broker(int(p.leader)))
	if err != nil {
		return nil, err
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return nil, err
	}
	if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
		return nil, fmt.Errorf("kafkastate: fetching topic %q partition %d: a response of the wrong shape", p.topic, p.part)
	}
	got := &resp.Topics[0].Partitions[0]
	if got.Partition != p.part {
		return nil, fmt.Errorf("kafkastate: fetching topic %q partition %d: a response for partition %d", p.topic, p.part, got.Partition)
	}
	switch err := kerr.ErrorForCode(got.ErrorCode); err {
	case nil:
		return got, nil
	case kerr.NotLeaderForPartition, kerr.FencedLeaderEpoch, kerr.UnknownLeaderEpoch, kerr.ReplicaNotAvailable:
		return nil, fmt.Errorf("%w: %w", errNotLeader, err)
	default:
		return nil, err
	}
}
