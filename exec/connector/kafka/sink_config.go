package kafka

import (
	"strings"
	"time"

	"github.com/eddysql/eddy/exec/connector"
)

// defaultTxnTimeout is the transaction timeout of an exactly-once sink's
// producers when transaction_timeout is not given: the broker aborts a
// transaction left open longer, so it bounds both how long a crashed
// query's open transaction holds back read_committed consumers and how
// long eddy may be down between a checkpoint and its commit without
// losing that checkpoint's rows. Kafka's brokers allow up to 15 minutes
// by default (transaction.max.timeout.ms).
const defaultTxnTimeout = time.Minute

// SinkConfig is what a Kafka sink writes and how.
type SinkConfig struct {
	Object  string // the sink's name, the default transactional id prefix
	Brokers []string
	Topic   string
	Format  string // FormatJSON, FormatCSV or FormatRaw
	// KeyColumn names the column whose text is each message's key; ""
	// writes messages without a key (append-only queries only).
	KeyColumn string
	// ForceAppendOnly records type = 'append-only'.
	ForceAppendOnly bool
	// TxnID prefixes the transactional ids of an exactly-once sink's
	// producers; "" means "eddy-<sink name>".
	TxnID      string
	TxnTimeout time.Duration
}

// SinkFromOptions builds a SinkConfig from a sink's WITH options,
// validating them. An error about one option is an *OptionError.
func SinkFromOptions(object string, opts map[string]string) (SinkConfig, error) {
	if err := checkKnown(opts, sinkOptions); err != nil {
		return SinkConfig{}, err
	}
	get := getter(opts)
	cfg := SinkConfig{Object: object, Format: FormatJSON, TxnTimeout: defaultTxnTimeout}
	var err error
	if cfg.Brokers, cfg.Topic, err = brokersAndTopic(get); err != nil {
		return SinkConfig{}, err
	}
	if v, ok := get("format"); ok {
		switch cfg.Format = strings.ToLower(strings.TrimSpace(v)); cfg.Format {
		case FormatJSON, FormatCSV, FormatRaw:
		case FormatDebezium, FormatUpsert:
			return SinkConfig{}, &OptionError{Option: "format", Msg: "not supported yet: format " + connector.Quote(cfg.Format) + " for a sink (an updating query writes upserts and tombstones by key_column in 'json')"}
		default:
			return SinkConfig{}, &OptionError{Option: "format", Msg: "invalid value " + connector.Quote(v) + " (want 'json', 'csv' or 'raw')"}
		}
	}
	if v, ok := get("key_column"); ok {
		if cfg.KeyColumn = strings.TrimSpace(v); cfg.KeyColumn == "" {
			return SinkConfig{}, &OptionError{Option: "key_column", Msg: "is empty"}
		}
	}
	if v, ok := get("type"); ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "append-only":
			cfg.ForceAppendOnly = true
		case "upsert":
		default:
			return SinkConfig{}, &OptionError{Option: "type", Msg: "invalid value " + connector.Quote(v) + " (want 'append-only' or 'upsert')"}
		}
	}
	if v, ok := get("transactional_id"); ok {
		if cfg.TxnID = strings.TrimSpace(v); cfg.TxnID == "" {
			return SinkConfig{}, &OptionError{Option: "transactional_id", Msg: "is empty"}
		}
	}
	if v, ok := get("transaction_timeout"); ok {
		d, err := connector.ParseDuration(v)
		if err != nil || d < time.Second {
			return SinkConfig{}, &OptionError{Option: "transaction_timeout", Msg: "invalid value " + connector.Quote(v) + " (want a duration of at least a second)"}
		}
		cfg.TxnTimeout = d
	}
	return cfg, nil
}

// txnPrefix returns the prefix of the sink's transactional ids.
func (c *SinkConfig) txnPrefix() string {
	if c.TxnID != "" {
		return c.TxnID
	}
	return "eddy-" + c.Object
}
