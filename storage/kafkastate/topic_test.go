package kafkastate

import (
	"context"
	"testing"
)

// TestCreateTopic checks that CreateTopic takes an existing topic like
// the one it would create, and refuses one of another partition count or
// cleanup policy.
func TestCreateTopic(t *testing.T) {
	ctx := context.Background()
	c := newCluster(t, 3) // creates "state" of 3 partitions
	adm := c.admin(t)
	must(t, CreateTopic(ctx, adm, c.topic, 3))
	if err := CreateTopic(ctx, adm, c.topic, 4); err == nil {
		t.Fatal("CreateTopic took a topic of 3 partitions for one of 4")
	}
	if _, err := adm.CreateTopic(ctx, 3, -1, nil, "plain"); err != nil {
		t.Fatal(err)
	}
	if err := CreateTopic(ctx, adm, "plain", 3); err == nil {
		t.Fatal("CreateTopic took a topic that is not compacted")
	}
	if err := CreateTopic(ctx, adm, "none", 0); err == nil {
		t.Fatal("CreateTopic created a topic of no partitions")
	}
	cfgs, err := adm.DescribeTopicConfigs(ctx, c.topic)
	must(t, err)
	rc, err := cfgs.On(c.topic, nil)
	must(t, err)
	policy := "none"
	for _, cfg := range rc.Configs {
		if cfg.Key == "cleanup.policy" && cfg.Value != nil {
			policy = *cfg.Value
		}
	}
	if policy != "compact" {
		t.Fatalf("the state topic's cleanup.policy is %s", policy)
	}
	if _, err := Open(ctx, Config{Brokers: c.brokers, Topic: c.topic, Partition: 3, TransactionalID: "x"}); err == nil {
		t.Fatal("Open took a partition the topic does not have")
	}
	if _, err := Open(ctx, Config{Brokers: c.brokers, Topic: "missing", TransactionalID: "x"}); err == nil {
		t.Fatal("Open took a topic that does not exist")
	}
}
