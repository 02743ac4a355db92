package kafka

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/connector"
	"github.com/eddysql/eddy/exec/connector/file"
)

// The values of the format option.
const (
	FormatJSON     = "json"
	FormatCSV      = "csv"
	FormatRaw      = "raw"
	FormatDebezium = "debezium-json"
	FormatUpsert   = "upsert-json"
)

// The values of the startup option.
const (
	StartEarliest  = "earliest"
	StartLatest    = "latest"
	StartTimestamp = "timestamp"
)

// The values of the on_error option.
const (
	OnErrorSkip = "skip"
	OnErrorFail = "fail"
)

// metaKinds are the metadata a column may hold instead of a value field,
// each named by the option that names its column.
var metaKinds = []string{"key_column", "partition_column", "offset_column", "timestamp_column", "headers_column"}

// The metadata a column may hold (Config.Meta's values).
const (
	metaNone = iota
	metaKey
	metaPartition
	metaOffset
	metaTimestamp
	metaHeaders
)

// sourceOptions and sinkOptions list the WITH options each accepts, in the
// order messages list them.
var (
	sourceOptions = append([]string{"connector", "brokers", "topic", "group", "startup", "startup_timestamp",
		"format", "delimiter", "on_error", "isolation"}, metaKinds...)
	sinkOptions = []string{"connector", "brokers", "topic", "format", "key_column", "type", "transactional_id", "transaction_timeout"}
)

// Config is what a Kafka source reads and how.
type Config struct {
	Brokers []string
	Topic   string
	// Group is the consumer group the source reports its offsets to at
	// each checkpoint, for monitoring only; "" for none.
	Group   string
	Startup string // StartEarliest, StartLatest or StartTimestamp
	// StartMs is where StartTimestamp starts: the first offset at or after
	// this time (ms since the epoch) in each partition.
	StartMs   int64
	Format    string // FormatJSON, FormatCSV or FormatRaw
	Delimiter byte   // CSV: the field separator (0: ',')
	OnError   string // OnErrorSkip or OnErrorFail
	// ReadCommitted reads only committed transactions' messages (the
	// default; isolation = 'read_uncommitted' reads every message).
	ReadCommitted bool
	Columns       []catalog.Column
	// Meta says, per column, which metadata it holds (metaNone: a field of
	// the message's value).
	Meta []int
	// PrimaryKey names a table's primary key columns (nil for a stream):
	// the changelog formats read only into a table.
	PrimaryKey []string
	// BatchSize is the most rows per chunk; 0 means file.DefaultBatchSize.
	BatchSize int
}

// OptionError reports a WITH option of a Kafka stream or sink that is
// unknown, missing or has a bad value.
type OptionError struct {
	Option string
	Msg    string
}

// Error returns "kafka connector: option name: msg".
func (e *OptionError) Error() string { return "kafka connector: option " + e.Option + ": " + e.Msg }

// OptionName implements connector.OptionError.
func (e *OptionError) OptionName() string { return e.Option }

// getter returns a lookup of opts' values by key, without regard to case.
func getter(opts map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		for k, v := range opts {
			if strings.EqualFold(k, name) {
				return v, true
			}
		}
		return "", false
	}
}

// checkKnown refuses an option not in valid.
func checkKnown(opts map[string]string, valid []string) error {
	var unknown []string
	for k := range opts {
		if !slices.Contains(valid, strings.ToLower(k)) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	return &OptionError{Option: strings.ToLower(unknown[0]), Msg: "unknown option (valid: " + strings.Join(valid, ", ") + ")"}
}

// brokersAndTopic reads the options every Kafka stream and sink has.
func brokersAndTopic(get func(string) (string, bool)) ([]string, string, error) {
	b, ok := get("brokers")
	if !ok || strings.TrimSpace(b) == "" {
		return nil, "", &OptionError{Option: "brokers", Msg: "is required (host:port, comma-separated)"}
	}
	var brokers []string
	for _, s := range strings.Split(b, ",") {
		if s = strings.TrimSpace(s); s != "" {
			brokers = append(brokers, s)
		}
	}
	topic, ok := get("topic")
	if !ok || strings.TrimSpace(topic) == "" {
		return nil, "", &OptionError{Option: "topic", Msg: "is required"}
	}
	return brokers, strings.TrimSpace(topic), nil
}

// FromOptions builds a source Config from a stream's WITH options and
// columns, validating them. An error about one option is an *OptionError.
func FromOptions(opts map[string]string, cols []catalog.Column, pk []string) (Config, error) {
	if err := checkKnown(opts, sourceOptions); err != nil {
		return Config{}, err
	}
	get := getter(opts)
	var cfg Config
	var err error
	if cfg.Brokers, cfg.Topic, err = brokersAndTopic(get); err != nil {
		return Config{}, err
	}
	if g, ok := get("group"); ok {
		if cfg.Group = strings.TrimSpace(g); cfg.Group == "" {
			return Config{}, &OptionError{Option: "group", Msg: "is empty"}
		}
	}
	cfg.Startup = StartEarliest
	if v, ok := get("startup"); ok {
		switch cfg.Startup = strings.ToLower(strings.TrimSpace(v)); cfg.Startup {
		case StartEarliest, StartLatest, StartTimestamp:
		default:
			return Config{}, &OptionError{Option: "startup", Msg: "invalid value " + connector.Quote(v) + " (want 'earliest', 'latest' or 'timestamp')"}
		}
	}
	ts, hasTs := get("startup_timestamp")
	switch {
	case cfg.Startup == StartTimestamp && !hasTs:
		return Config{}, &OptionError{Option: "startup", Msg: "'timestamp' needs a startup_timestamp option"}
	case cfg.Startup != StartTimestamp && hasTs:
		return Config{}, &OptionError{Option: "startup_timestamp", Msg: "applies only with startup = 'timestamp'"}
	case hasTs:
		if cfg.StartMs, err = parseStartMs(ts); err != nil {
			return Config{}, err
		}
	}
	cfg.Format = FormatJSON
	if v, ok := get("format"); ok {
		switch cfg.Format = strings.ToLower(strings.TrimSpace(v)); cfg.Format {
		case FormatJSON, FormatCSV, FormatRaw:
		case FormatDebezium, FormatUpsert:
			if len(pk) == 0 {
				return Config{}, &OptionError{Option: "format", Msg: connector.Quote(cfg.Format) + " is a changelog: read it into a CREATE TABLE with a PRIMARY KEY, not a stream"}
			}
		default:
			return Config{}, &OptionError{Option: "format", Msg: "invalid value " + connector.Quote(v) + " (want 'json', 'csv', 'raw', 'upsert-json' or 'debezium-json')"}
		}
	}
	cfg.PrimaryKey = pk
	if cfg.Format == FormatUpsert {
		// The message key is the key column's text, as the Kafka sink
		// writes it: a one-column primary key, read from the key.
		if len(pk) != 1 {
			return Config{}, &OptionError{Option: "format", Msg: fmt.Sprintf("'upsert-json' reads a table's one-column primary key from the message key, and the table's has %d columns", len(pk))}
		}
		if k, ok := get("key_column"); !ok {
			opts = maps.Clone(opts)
			opts["key_column"] = pk[0]
			get = getter(opts)
		} else if !strings.EqualFold(strings.TrimSpace(k), pk[0]) {
			return Config{}, &OptionError{Option: "key_column", Msg: "'upsert-json' reads the primary key, " + pk[0] + ", from the message key"}
		}
	}
	if v, ok := get("delimiter"); ok {
		if cfg.Format != FormatCSV {
			return Config{}, &OptionError{Option: "delimiter", Msg: "applies only to format 'csv'"}
		}
		if len(v) != 1 || v[0] >= 0x80 || v[0] == '"' || v[0] == '\n' || v[0] == '\r' {
			return Config{}, &OptionError{Option: "delimiter", Msg: "invalid value " + connector.Quote(v) + " (want one ASCII character other than a quote or line break)"}
		}
		cfg.Delimiter = v[0]
	}
	cfg.OnError = OnErrorSkip
	if v, ok := get("on_error"); ok {
		switch cfg.OnError = strings.ToLower(strings.TrimSpace(v)); cfg.OnError {
		case OnErrorSkip, OnErrorFail:
		default:
			return Config{}, &OptionError{Option: "on_error", Msg: "invalid value " + connector.Quote(v) + " (want 'skip' or 'fail')"}
		}
	}
	cfg.ReadCommitted = true
	if v, ok := get("isolation"); ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "read_committed":
		case "read_uncommitted":
			cfg.ReadCommitted = false
		default:
			return Config{}, &OptionError{Option: "isolation", Msg: "invalid value " + connector.Quote(v) + " (want 'read_committed' or 'read_uncommitted')"}
		}
	}
	cfg.Columns = cols
	if err := cfg.bindColumns(get); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// bindColumns finds the metadata columns and checks every column's type.
func (cfg *Config) bindColumns(get func(string) (string, bool)) error {
	cfg.Meta = make([]int, len(cfg.Columns))
	for k, opt := range metaKinds {
		name, ok := get(opt)
		if !ok {
			continue
		}
		j := slices.IndexFunc(cfg.Columns, func(c catalog.Column) bool { return strings.EqualFold(c.Name, strings.TrimSpace(name)) })
		if j < 0 {
			return &OptionError{Option: opt, Msg: "no column " + connector.Quote(name)}
		}
		if cfg.Meta[j] != metaNone {
			return &OptionError{Option: opt, Msg: "column " + cfg.Columns[j].Name + " already holds other metadata"}
		}
		cfg.Meta[j] = k + 1
		if err := checkMetaType(opt, k+1, cfg.Columns[j]); err != nil {
			return err
		}
	}
	values := 0
	for j, c := range cfg.Columns {
		if cfg.Meta[j] != metaNone {
			continue
		}
		values++
		if cfg.Format == FormatRaw {
			if c.Type.Kind != types.Varchar {
				return &OptionError{Option: "format", Msg: fmt.Sprintf("'raw' reads the message into one VARCHAR column, and %s is %s", c.Name, c.Type)}
			}
			continue
		}
		if err := file.CheckColumn(c); err != nil {
			return fmt.Errorf("kafka connector: %w", err)
		}
	}
	if cfg.Format == FormatRaw && values != 1 {
		return &OptionError{Option: "format", Msg: fmt.Sprintf("'raw' reads the message into one VARCHAR column, and the stream has %d besides its metadata", values)}
	}
	return nil
}

// checkMetaType checks the type of a metadata column.
func checkMetaType(opt string, meta int, c catalog.Column) error {
	ok := false
	switch meta {
	case metaKey:
		ok = file.CheckColumn(c) == nil
	case metaHeaders:
		ok = c.Type.Kind == types.Varchar
	case metaPartition, metaOffset:
		ok = c.Type.Kind == types.Int || c.Type.Kind == types.BigInt
	case metaTimestamp:
		ok = c.Type.Kind == types.Timestamp
	}
	if ok {
		return nil
	}
	want := map[int]string{metaKey: "a type read from text", metaHeaders: "VARCHAR", metaPartition: "INT or BIGINT",
		metaOffset: "INT or BIGINT", metaTimestamp: "TIMESTAMP"}[meta]
	return &OptionError{Option: opt, Msg: fmt.Sprintf("column %s is %s, and this metadata needs %s", c.Name, c.Type, want)}
}

// parseStartMs reads startup_timestamp: a TIMESTAMP literal or a count of
// milliseconds since the epoch.
func parseStartMs(v string) (int64, error) {
	v = strings.TrimSpace(v)
	if ms, err := strconv.ParseInt(v, 10, 64); err == nil {
		return ms, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UnixMilli(), nil
		}
	}
	return 0, &OptionError{Option: "startup_timestamp", Msg: "invalid value " + connector.Quote(v) + " (want 'YYYY-MM-DD HH:MM:SS[.fff]' in UTC, or milliseconds since the epoch)"}
}
