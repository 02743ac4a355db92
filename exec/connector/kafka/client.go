package kafka

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// metadataTimeout bounds the broker round trips of CREATE and of opening a
// query (the topic's partitions, their offsets): long enough for a broker
// that is starting, short enough that a wrong address fails the statement
// rather than hanging it.
const metadataTimeout = 10 * time.Second

// TopicError reports a topic that does not exist or could not be
// described. CREATE refuses a stream or sink whose topic does not exist
// (eddy does not create topics), pointing at the topic option.
type TopicError struct {
	Topic string
	Err   error
}

// Error returns "kafka connector: option topic: ...".
func (e *TopicError) Error() string {
	if errors.Is(e.Err, kerr.UnknownTopicOrPartition) {
		return fmt.Sprintf("kafka connector: option topic: topic %q does not exist (create it first: eddy does not create topics)", e.Topic)
	}
	return fmt.Sprintf("kafka connector: option topic: describing topic %q: %v", e.Topic, e.Err)
}

// Unwrap returns the cause.
func (e *TopicError) Unwrap() error { return e.Err }

// OptionName implements connector.OptionError.
func (e *TopicError) OptionName() string { return "topic" }

// BrokerError reports brokers that could not be reached.
type BrokerError struct {
	Brokers []string
	Err     error
}

// Error returns "kafka connector: option brokers: ...".
func (e *BrokerError) Error() string {
	return fmt.Sprintf("kafka connector: option brokers: cannot reach %s: %v", strings.Join(e.Brokers, ","), e.Err)
}

// Unwrap returns the cause.
func (e *BrokerError) Unwrap() error { return e.Err }

// OptionName implements connector.OptionError.
func (e *BrokerError) OptionName() string { return "brokers" }

// newAdmin returns a client for metadata and offsets (no consuming or
// producing) and its admin wrapper; the caller closes the client.
func newAdmin(brokers []string) (*kgo.Client, *kadm.Client, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.DialTimeout(5*time.Second))
	if err != nil {
		return nil, nil, &BrokerError{Brokers: brokers, Err: err}
	}
	return cl, kadm.NewClient(cl), nil
}

// partitionCount returns how many partitions topic has.
func partitionCount(ctx context.Context, adm *kadm.Client, brokers []string, topic string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, metadataTimeout)
	defer cancel()
	td, err := adm.ListTopics(ctx, topic)
	if err != nil {
		return 0, &BrokerError{Brokers: brokers, Err: err}
	}
	d, ok := td[topic]
	if !ok {
		return 0, &TopicError{Topic: topic, Err: kerr.UnknownTopicOrPartition}
	}
	if d.Err != nil {
		return 0, &TopicError{Topic: topic, Err: d.Err}
	}
	return len(d.Partitions), nil
}

// checkTopic checks that topic exists on brokers, for CREATE.
func checkTopic(brokers []string, topic string) error {
	cl, adm, err := newAdmin(brokers)
	if err != nil {
		return err
	}
	defer cl.Close()
	_, err = partitionCount(context.Background(), adm, brokers, topic)
	return err
}

// listOffsets lists, per partition, the offsets which says: the first
// ("start"), the end ("end": the high watermark, or with committed the
// last stable offset, before any open transaction), or the first at or
// after ms ("time", the end offset where there is none).
func listOffsets(ctx context.Context, adm *kadm.Client, topic, which string, committed bool, ms int64) (map[int32]int64, error) {
	ctx, cancel := context.WithTimeout(ctx, metadataTimeout)
	defer cancel()
	var l kadm.ListedOffsets
	var err error
	switch {
	case which == "start":
		l, err = adm.ListStartOffsets(ctx, topic)
	case which == "time":
		l, err = adm.ListOffsetsAfterMilli(ctx, ms, topic)
	case committed:
		l, err = adm.ListCommittedOffsets(ctx, topic)
	default:
		l, err = adm.ListEndOffsets(ctx, topic)
	}
	if err == nil {
		err = l.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("kafka connector: listing the offsets of topic %q: %w", topic, err)
	}
	out := make(map[int32]int64)
	var ends map[int32]int64
	for p, o := range l[topic] {
		if o.Offset < 0 && which == "time" {
			if ends == nil {
				if ends, err = listOffsets(ctx, adm, topic, "end", committed, 0); err != nil {
					return nil, err
				}
			}
			o.Offset = ends[p]
		}
		out[p] = o.Offset
	}
	return out, nil
}
