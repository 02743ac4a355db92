package file

import (
	"strings"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector"
)

// Name is the connector's name in WITH (connector = 'file').
const Name = "file"

// Connector is the file source connector (connector.Source).
type Connector struct{}

var _ connector.Source = Connector{}

// Name returns "file".
func (Connector) Name() string { return Name }

// Check validates the options against the columns (FromOptions), with the
// path confined to env.Root.
func (Connector) Check(spec connector.Spec, env connector.Env) error {
	_, err := FromOptions(spec.Options, spec.Columns, env.Root)
	return err
}

// ReadsPaths implements connector.PathReader: a file read as JSON lines
// fills a column declared WITH (path = ...) from that path of each line.
func (Connector) ReadsPaths(opts map[string]string) bool {
	f, ok := opts["format"]
	if !ok {
		return formatOf(opts["path"]) == FormatJSON
	}
	return strings.EqualFold(strings.TrimSpace(f), FormatJSON)
}

var _ connector.PathReader = Connector{}

// Columns returns nil: a file stream declares its columns.
func (Connector) Columns(map[string]string) []catalog.Column { return nil }

// Traits says a file is bounded and read in parallel splits unless it is
// followed: a followed file is read as one.
func (Connector) Traits(spec connector.Spec) catalog.SourceTraits {
	follow, _ := boolOption(lookup(spec.Options), "follow")
	return catalog.SourceTraits{Bounded: !follow, Splittable: !follow}
}

// Open returns a *Source reading the file; a snapshot reads what the file
// holds now, even when the stream follows it.
func (Connector) Open(spec connector.Spec, read connector.Read, env connector.Env) (exec.Source, error) {
	cfg, err := FromOptions(spec.Options, spec.Columns, env.Root)
	if err != nil {
		return nil, err
	}
	if read == connector.Snapshot {
		cfg.Follow = false
	}
	return New(cfg)
}

// lookup returns a getter of opts' values by key, matched without regard
// to case.
func lookup(opts map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		for k, v := range opts {
			if strings.EqualFold(k, name) {
				return v, true
			}
		}
		return "", false
	}
}

// OptionName implements connector.OptionError.
func (e *OptionError) OptionName() string { return e.Option }
