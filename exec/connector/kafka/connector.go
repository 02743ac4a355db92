package kafka

import (
	"strings"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector"
)

// Name is the connector's name in WITH (connector = 'kafka').
const Name = "kafka"

// Connector is the Kafka source connector (connector.Source).
type Connector struct{}

var _ connector.Source = Connector{}

// Name returns "kafka".
func (Connector) Name() string { return Name }

// Check validates the options against the columns (FromOptions) and
// that the topic exists: CREATE fails on a topic that does not, or on
// brokers that cannot be reached.
func (Connector) Check(spec connector.Spec, _ connector.Env) error {
	cfg, err := FromOptions(spec.Options, spec.Columns, spec.PrimaryKey)
	if err != nil {
		return err
	}
	return checkTopic(cfg.Brokers, cfg.Topic)
}

// ReadsPaths implements connector.PathReader: a JSON value (format json,
// the default, or upsert-json) fills a column declared WITH (path = ...)
// from that path of each message, as a file of JSON lines does.
func (Connector) ReadsPaths(opts map[string]string) bool {
	f, ok := opts["format"]
	switch strings.ToLower(strings.TrimSpace(f)) {
	case FormatJSON, FormatUpsert:
		return true
	}
	return !ok
}

var _ connector.PathReader = Connector{}

// Columns returns nil: a Kafka stream declares its columns.
func (Connector) Columns(map[string]string) []catalog.Column { return nil }

// Traits says a Kafka stream is unbounded and read in splits: each
// instance of a scan reads the partitions p with p mod parallelism equal
// to its instance.
func (Connector) Traits(connector.Spec) catalog.SourceTraits {
	return catalog.SourceTraits{Splittable: true}
}

// Open returns a *Source of one split; a snapshot (a pull query) reads
// up to the end offsets as of Open.
func (Connector) Open(spec connector.Spec, read connector.Read, _ connector.Env) (exec.Source, error) {
	cfg, err := FromOptions(spec.Options, spec.Columns, spec.PrimaryKey)
	if err != nil {
		return nil, err
	}
	return New(cfg, read == connector.Snapshot), nil
}
