package kafka

import (
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/connector"
)

// TestFromOptions checks the source options: valid sets and what they
// mean, and each kind of bad value with the option it names.
func TestFromOptions(t *testing.T) {
	cols := []catalog.Column{{Name: "id", Type: types.BigIntT}, {Name: "k", Type: types.VarcharT, Nullable: true},
		{Name: "ts", Type: types.TimestampT(3), Nullable: true}}
	base := func(kv ...string) map[string]string {
		m := map[string]string{"connector": "kafka", "brokers": "a:1, b:2", "topic": "t"}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	cfg, err := FromOptions(base("format", "CSV", "startup", "timestamp", "startup_timestamp", "2026-12-01 10:00:00",
		"timestamp_column", "ts", "isolation", "read_uncommitted", "delimiter", ";"), cols, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(cfg.Brokers, ",") != "a:1,b:2" || cfg.Format != FormatCSV || cfg.Startup != StartTimestamp ||
		cfg.StartMs != 1796119200000 || cfg.ReadCommitted || cfg.Delimiter != ';' || cfg.Meta[2] != metaTimestamp {
		t.Errorf("config %+v", cfg)
	}
	pk := []string{"id"}
	cfg, err = FromOptions(base("format", "upsert-json"), cols, pk)
	if err != nil || cfg.Meta[0] != metaKey {
		t.Errorf("upsert-json: key column %v, %v", cfg.Meta, err)
	}
	for _, tc := range []struct {
		opts   map[string]string
		pk     []string
		option string
		msg    string
	}{
		{base("brokers", " "), nil, "brokers", "is required"},
		{map[string]string{"brokers": "a:1"}, nil, "topic", "is required"},
		{base("path", "x"), nil, "path", "unknown option"},
		{base("group", " "), nil, "group", "is empty"},
		{base("startup", "soon"), nil, "startup", "invalid value 'soon'"},
		{base("startup", "timestamp"), nil, "startup", "needs a startup_timestamp"},
		{base("startup_timestamp", "1"), nil, "startup_timestamp", "applies only with startup = 'timestamp'"},
		{base("startup", "timestamp", "startup_timestamp", "yesterday"), nil, "startup_timestamp", "invalid value"},
		{base("format", "avro"), nil, "format", "invalid value 'avro'"},
		{base("format", "debezium-json"), nil, "format", "is a changelog"},
		{base("format", "upsert-json", "key_column", "k"), pk, "key_column", "reads the primary key, id"},
		{base("format", "upsert-json"), []string{"id", "k"}, "format", "one-column primary key"},
		{base("delimiter", ";"), nil, "delimiter", "applies only to format 'csv'"},
		{base("format", "csv", "delimiter", "\""), nil, "delimiter", "invalid value"},
		{base("on_error", "retry"), nil, "on_error", "invalid value"},
		{base("isolation", "serializable"), nil, "isolation", "invalid value"},
		{base("offset_column", "k"), nil, "offset_column", "column k is VARCHAR"},
		{base("key_column", "nope"), nil, "key_column", "no column 'nope'"},
		{base("key_column", "k", "headers_column", "k"), nil, "headers_column", "already holds other metadata"},
		{base("format", "raw"), nil, "format", "'raw' reads the message into one VARCHAR column"},
	} {
		_, err := FromOptions(tc.opts, cols, tc.pk)
		opt, _ := connector.ErrorOption(err)
		if err == nil || opt != tc.option || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%v: %v (option %q), want option %s: %s", tc.opts, err, opt, tc.option, tc.msg)
		}
	}
}

// TestSinkFromOptions checks the sink options.
func TestSinkFromOptions(t *testing.T) {
	cfg, err := SinkFromOptions("big", map[string]string{"connector": "kafka", "brokers": "a:1", "topic": "t",
		"format": "csv", "key_column": "id", "type": "append-only", "transaction_timeout": "2m"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Format != FormatCSV || cfg.KeyColumn != "id" || !cfg.ForceAppendOnly || cfg.TxnTimeout.String() != "2m0s" || cfg.txnPrefix() != "eddy-big" {
		t.Errorf("config %+v", cfg)
	}
	for _, tc := range []struct {
		opts   map[string]string
		option string
	}{
		{map[string]string{"brokers": "a:1", "topic": "t", "format": "upsert-json"}, "format"},
		{map[string]string{"brokers": "a:1", "topic": "t", "type": "retract"}, "type"},
		{map[string]string{"brokers": "a:1", "topic": "t", "transaction_timeout": "10ms"}, "transaction_timeout"},
		{map[string]string{"brokers": "a:1", "topic": "t", "transactional_id": " "}, "transactional_id"},
		{map[string]string{"brokers": "a:1", "topic": "t", "startup": "latest"}, "startup"},
	} {
		_, err := SinkFromOptions("o", tc.opts)
		if opt, _ := connector.ErrorOption(err); opt != tc.option {
			t.Errorf("%v: %v, want an error about %s", tc.opts, err, tc.option)
		}
	}
}
