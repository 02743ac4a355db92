package builtin_test

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector"
	"github.com/eddysql/eddy/exec/connector/builtin"
	"github.com/eddysql/eddy/exec/connector/fileroot"
)

// kafkaBrokers starts an in-process Kafka cluster with a topic "bids",
// closed when t ends, and returns its brokers option.
func kafkaBrokers(t *testing.T) string {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "bids"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return strings.Join(c.ListenAddrs(), ",")
}

// env is a connector.Env whose file root is a fresh directory.
func env(t *testing.T) connector.Env {
	t.Helper()
	root, err := fileroot.New(t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	return connector.Env{Root: root}
}

// TestNames checks the names SQL.md documents: which are sources and
// sinks, which are not supported yet, and the messages listing them.
func TestNames(t *testing.T) {
	r := builtin.New()
	if got, want := r.SourceNames(), []string{"datagen", "file", "kafka", "nexmark"}; !slices.Equal(got, want) {
		t.Errorf("sources %v, want %v", got, want)
	}
	if got, want := r.SinkNames(), []string{"file", "print", "blackhole", "kafka"}; !slices.Equal(got, want) {
		t.Errorf("sinks %v, want %v", got, want)
	}
	for _, name := range []string{"kafka", "Kafka"} {
		if c, err := r.Source(name); err != nil || c.Name() != "kafka" {
			t.Errorf("source %s: %v", name, err)
		}
		if c, err := r.Sink(name); err != nil || c.Name() != "kafka" {
			t.Errorf("sink %s: %v", name, err)
		}
	}
	if _, err := r.Source("ftp"); err == nil || err.Error() != "unknown connector 'ftp' (connectors: datagen, file, kafka, nexmark)" {
		t.Errorf("unknown source: %v", err)
	}
	if _, err := r.Sink("kafkaesque"); err == nil || err.Error() != "sink: option connector: unknown sink connector 'kafkaesque' (want 'file', 'print', 'blackhole' or 'kafka')" {
		t.Errorf("unknown sink: %v", err)
	}
	if _, err := r.Sink(""); err == nil || err.Error() != "sink: option connector: is required (want 'file', 'print', 'blackhole' or 'kafka')" {
		t.Errorf("sink without a connector: %v", err)
	}
}

var bidCols = []catalog.Column{{Name: "auction", Type: types.BigIntT}, {Name: "price", Type: types.BigIntT}}

// connCase is a connector's case: options it accepts with the traits
// they mean, and options it refuses with the option the error names.
type connCase[T comparable] struct {
	valid     map[string]string
	traits    T
	invalid   map[string]string
	badOption string
}

// checkCase checks the connector name, named named, against tc: check
// validates options and returns the traits they mean.
func checkCase[T comparable](t *testing.T, name, named string, tc connCase[T], check func(opts map[string]string) (T, error)) {
	t.Helper()
	if named != name {
		t.Errorf("%s: named %s", name, named)
	}
	traits, err := check(tc.valid)
	if err != nil {
		t.Errorf("%s: valid options refused: %v", name, err)
	}
	if traits != tc.traits {
		t.Errorf("%s: traits %+v, want %+v", name, traits, tc.traits)
	}
	_, err = check(tc.invalid)
	if opt, ok := connector.ErrorOption(err); !ok || opt != tc.badOption {
		t.Errorf("%s: invalid options: %v (option %q), want an error naming %s", name, err, opt, tc.badOption)
	}
}

// sourceCases has a case for every source connector.
var sourceCases = map[string]connCase[catalog.SourceTraits]{
	"file": {
		valid:     map[string]string{"connector": "file", "path": "bids.csv", "header": "true"},
		traits:    catalog.SourceTraits{Bounded: true, Splittable: true},
		invalid:   map[string]string{"connector": "file", "path": "bids.csv", "on_error": "sometimes"},
		badOption: "on_error",
	},
	"datagen": {
		valid:     map[string]string{"connector": "datagen", "rows": "500", "fields.auction.kind": "sequence"},
		traits:    catalog.SourceTraits{Bounded: true, Splittable: true, Generated: true, Rows: 500},
		invalid:   map[string]string{"connector": "datagen", "fields.price.min": "cheap"},
		badOption: "fields.price.min",
	},
	"nexmark": {
		valid:     map[string]string{"connector": "nexmark", "table": "bid", "events": "1000"},
		traits:    catalog.SourceTraits{Bounded: true, Splittable: true, Generated: true, SplitsShareTime: true, Rows: 920},
		invalid:   map[string]string{"connector": "nexmark", "table": "bid", "events": "many"},
		badOption: "events",
	},
}

// TestSourcesCheckOptions runs every source connector the registry
// implements over a valid and an invalid set of options.
func TestSourcesCheckOptions(t *testing.T) {
	r := builtin.New()
	e := env(t)
	brokers := kafkaBrokers(t)
	sourceCases := maps.Clone(sourceCases)
	sourceCases["kafka"] = connCase[catalog.SourceTraits]{
		valid:     map[string]string{"connector": "kafka", "brokers": brokers, "topic": "bids", "format": "csv", "offset_column": "auction"},
		traits:    catalog.SourceTraits{Splittable: true},
		invalid:   map[string]string{"connector": "kafka", "brokers": brokers, "topic": "asks"},
		badOption: "topic",
	}
	for _, name := range r.SourceNames() {
		c, err := r.Source(name)
		if errors.As(err, new(*connector.NotSupportedError)) {
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		tc, ok := sourceCases[name]
		if !ok {
			t.Errorf("source %s has no case in sourceCases", name)
			continue
		}
		checkCase(t, name, c.Name(), tc, func(opts map[string]string) (catalog.SourceTraits, error) {
			spec := connector.Spec{Object: "s", Options: opts, Columns: bidCols}
			return c.Traits(spec), c.Check(spec, e)
		})
	}
}

// TestSourceTraits checks what the options mean for planning beyond the
// valid cases: a followed file and a nexmark stream without events are
// unbounded, and a value Traits cannot read counts as absent.
func TestSourceTraits(t *testing.T) {
	r := builtin.New()
	for _, tt := range []struct {
		conn string
		opts map[string]string
		want catalog.SourceTraits
	}{
		{"file", map[string]string{"path": "f.csv", "follow": " TRUE "}, catalog.SourceTraits{}},
		{"file", map[string]string{"path": "f.csv", "follow": "false"}, catalog.SourceTraits{Bounded: true, Splittable: true}},
		{"nexmark", map[string]string{"table": "person"}, catalog.SourceTraits{Splittable: true, Generated: true, SplitsShareTime: true}},
		{"nexmark", map[string]string{"table": "person", "events": "00"}, catalog.SourceTraits{Splittable: true, Generated: true, SplitsShareTime: true}},
		{"nexmark", map[string]string{"table": "Auction", "events": " 1000 "}, catalog.SourceTraits{Bounded: true, Splittable: true, Generated: true, SplitsShareTime: true, Rows: 60}},
		{"nexmark", map[string]string{"table": "nope", "events": "1000"}, catalog.SourceTraits{Bounded: true, Splittable: true, Generated: true, SplitsShareTime: true}},
	} {
		c, err := r.Source(tt.conn)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Traits(connector.Spec{Options: tt.opts}); got != tt.want {
			t.Errorf("%s %v: %+v, want %+v", tt.conn, tt.opts, got, tt.want)
		}
	}
}

// TestSourcesOpen opens every source connector for a continuous and a
// snapshot read: an unbounded generator is an exec.Generator and has no
// snapshot.
func TestSourcesOpen(t *testing.T) {
	r := builtin.New()
	e := env(t)
	file, _ := r.Source("file")
	spec := connector.Spec{Object: "f", Options: map[string]string{"connector": "file", "path": "f.csv", "follow": "true"}, Columns: bidCols}
	for _, read := range []connector.Read{connector.Continuous, connector.Snapshot} {
		src, err := file.Open(spec, read, e)
		if err != nil {
			t.Fatalf("file, read %d: %v", read, err)
		}
		src.Close()
	}
	nexmark, _ := r.Source("nexmark")
	unbounded := connector.Spec{Object: "bid", Options: map[string]string{"connector": "nexmark", "table": "bid"}, Columns: bidCols}
	src, err := nexmark.Open(unbounded, connector.Continuous, e)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := src.(exec.Generator); !ok {
		t.Errorf("an unbounded nexmark source is not an exec.Generator: %T", src)
	}
	src.Close()
	if _, err := nexmark.Open(unbounded, connector.Snapshot, e); err == nil ||
		err.Error() != "cannot read a snapshot of 'bid': its nexmark generator is unbounded (give the stream an 'events' option, or use EMIT CHANGES)" {
		t.Errorf("snapshot of an unbounded generator: %v", err)
	}
	bounded := connector.Spec{Object: "bid", Options: map[string]string{"connector": "nexmark", "table": "bid", "events": "10"}, Columns: bidCols}
	src, err = nexmark.Open(bounded, connector.Snapshot, e)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := src.(exec.Generator); ok {
		t.Error("a bounded nexmark source is an exec.Generator")
	}
	src.Close()
}

// sinkCases has a case for every sink connector.
var sinkCases = map[string]connCase[connector.SinkTraits]{
	"file": {
		valid:     map[string]string{"connector": "file", "path": "out.jsonl", "type": "append-only"},
		traits:    connector.SinkTraits{AppendOnly: true, Observed: true, ExactlyOnce: true, Rewrites: true},
		invalid:   map[string]string{"connector": "file"},
		badOption: "path",
	},
	"print": {
		valid:     map[string]string{"connector": "print", "format": "csv"},
		traits:    connector.SinkTraits{Observed: true},
		invalid:   map[string]string{"connector": "print", "header": "true"},
		badOption: "header",
	},
	"blackhole": {
		valid:     map[string]string{"connector": "BlackHole", "rate_limit": "10"},
		traits:    connector.SinkTraits{Discards: true},
		invalid:   map[string]string{"connector": "blackhole", "path": "x.csv"},
		badOption: "path",
	},
}

// TestSinksCheckOptions runs every sink connector the registry lists over
// a valid and an invalid set of options, and builds its operator.
func TestSinksCheckOptions(t *testing.T) {
	r := builtin.New()
	e := env(t)
	brokers := kafkaBrokers(t)
	sinkCases := maps.Clone(sinkCases)
	sinkCases["kafka"] = connCase[connector.SinkTraits]{
		valid:     map[string]string{"connector": "kafka", "brokers": brokers, "topic": "bids", "type": "append-only"},
		traits:    connector.SinkTraits{AppendOnly: true, Observed: true, ExactlyOnce: true, Shared: true},
		invalid:   map[string]string{"connector": "kafka", "brokers": brokers, "topic": "bids", "format": "avro"},
		badOption: "format",
	}
	for _, name := range r.SinkNames() {
		c, err := r.Sink(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		tc, ok := sinkCases[name]
		if !ok {
			t.Errorf("sink %s has no case in sinkCases", name)
			continue
		}
		checkCase(t, name, c.Name(), tc, func(opts map[string]string) (connector.SinkTraits, error) { return c.Check(opts, e) })
		op, err := c.New(connector.SinkSpec{Object: "k", Options: tc.valid, Names: []string{"a"}, Types: []types.T{types.BigIntT}, AppendOnly: true}, e)
		if err != nil {
			t.Errorf("%s: New: %v", name, err)
			continue
		}
		op.Close()
	}
	// The options must name the connector they are given to.
	fileSink, _ := r.Sink("file")
	if _, err := fileSink.Check(sinkCases["print"].valid, e); err == nil {
		t.Error("the file sink accepted a print sink's options")
	}
}
