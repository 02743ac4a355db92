package sink

import (
	"fmt"
	"io"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector"
)

// Connector is one of the sink connectors of this package, named by its
// value: ConnectorFile, ConnectorPrint or ConnectorBlackhole. It
// implements connector.Sink.
type Connector string

var _ connector.Sink = Connector(ConnectorFile)

// Connectors returns the sink connectors of this package, in the order
// messages list them.
func Connectors() []Connector {
	return []Connector{ConnectorFile, ConnectorPrint, ConnectorBlackhole}
}

// Name returns the connector's name.
func (c Connector) Name() string { return string(c) }

// Check validates a sink's options (FromOptions), with a file's path
// confined to env.Root. A file or print sink's output is observed change
// by change; a blackhole's is not.
func (c Connector) Check(opts map[string]string, env connector.Env) (connector.SinkTraits, error) {
	cfg, err := c.config(opts, env)
	if err != nil {
		return connector.SinkTraits{}, err
	}
	return connector.SinkTraits{AppendOnly: cfg.ForceAppendOnly, Observed: c != ConnectorBlackhole,
		ExactlyOnce: c == ConnectorFile, Discards: c == ConnectorBlackhole, Rewrites: c == ConnectorFile}, nil
}

// New returns the sink operator, a *Sink, for spec's options and columns.
// A print sink writes to env.Stdout, or nowhere when it is nil.
func (c Connector) New(spec connector.SinkSpec, env connector.Env) (exec.Operator, error) {
	cfg, err := c.config(spec.Options, env)
	if err != nil {
		return nil, err
	}
	cfg.Names, cfg.Types, cfg.AppendOnly, cfg.TwoPhase = spec.Names, spec.Types, spec.AppendOnly, spec.Checkpointed
	if cfg.Stdout = env.Stdout; cfg.Stdout == nil {
		cfg.Stdout = io.Discard
	}
	return New(cfg)
}

// config reads opts, which must name this connector.
func (c Connector) config(opts map[string]string, env connector.Env) (Config, error) {
	cfg, err := FromOptions(opts, env.Root)
	if err != nil {
		return Config{}, err
	}
	if cfg.Connector != string(c) {
		return Config{}, fmt.Errorf("internal error: the options of a %s sink given to the %s connector", cfg.Connector, c)
	}
	return cfg, nil
}

// OptionName implements connector.OptionError.
func (e *OptionError) OptionName() string { return e.Option }
