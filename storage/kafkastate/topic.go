package kafkastate

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
)

// CreateTopic creates the state topic of partitions partitions (one per
// task), compacted, with the brokers' default replication factor. A topic
// that exists already is success if it has as many partitions and is
// compacted, an error otherwise: with fewer partitions tasks would share
// them, and a topic that also deletes by retention would lose state.
func CreateTopic(ctx context.Context, adm *kadm.Client, topic string, partitions int32) error {
	if partitions <= 0 {
		return fmt.Errorf("kafkastate: creating topic %q of %d partitions", topic, partitions)
	}
	compact := "compact"
	_, err := adm.CreateTopic(ctx, partitions, -1, map[string]*string{"cleanup.policy": &compact}, topic)
	if err == nil {
		return nil
	}
	if !errors.Is(err, kerr.TopicAlreadyExists) {
		return fmt.Errorf("kafkastate: creating topic %q: %w", topic, err)
	}
	topics, err := adm.ListTopics(ctx, topic)
	if err != nil {
		return fmt.Errorf("kafkastate: describing topic %q: %w", topic, err)
	}
	td, ok := topics[topic]
	if !ok || td.Err != nil {
		return fmt.Errorf("kafkastate: describing topic %q: %w", topic, errors.Join(td.Err, kerr.UnknownTopicOrPartition))
	}
	if n := int32(len(td.Partitions)); n != partitions {
		return fmt.Errorf("kafkastate: topic %q exists with %d partitions, not %d", topic, n, partitions)
	}
	cfgs, err := adm.DescribeTopicConfigs(ctx, topic)
	if err != nil {
		return fmt.Errorf("kafkastate: describing the configuration of topic %q: %w", topic, err)
	}
	rc, err := cfgs.On(topic, nil)
	if err == nil {
		err = rc.Err
	}
	if err != nil {
		return fmt.Errorf("kafkastate: describing the configuration of topic %q: %w", topic, err)
	}
	for _, c := range rc.Configs {
		if c.Key == "cleanup.policy" && (c.Value == nil || *c.Value != compact) {
			policy := "none"
			if c.Value != nil {
				policy = *c.Value
			}
			return fmt.Errorf("kafkastate: topic %q exists with cleanup.policy %s, not compact", topic, policy)
		}
	}
	return nil
}
