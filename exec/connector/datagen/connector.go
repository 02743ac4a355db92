package datagen

import (
	"fmt"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector"
)

// Name is the connector's name in WITH (connector = 'datagen').
const Name = "datagen"

// Connector is the datagen source connector (connector.Source).
type Connector struct{}

var _ connector.Source = Connector{}

// Name returns "datagen".
func (Connector) Name() string { return Name }

// Check validates the options against the declared columns (FromOptions).
func (Connector) Check(spec connector.Spec, _ connector.Env) error {
	_, err := FromOptions(spec.Options, spec.Columns)
	return err
}

// Columns returns nil: a datagen stream declares its columns.
func (Connector) Columns(map[string]string) []catalog.Column { return nil }

// Traits says a datagen stream is generated and read in one split per
// instance, and bounded when it has a number of rows or a sequence that
// ends, which is then the estimate of its rows.
func (Connector) Traits(spec connector.Spec) catalog.SourceTraits {
	t := catalog.SourceTraits{Splittable: true, Generated: true}
	cfg, err := FromOptions(spec.Options, spec.Columns)
	if err != nil {
		return t
	}
	if n := cfg.Len(); n != unbounded {
		t.Bounded, t.Rows = true, float64(n)
	}
	return t
}

// Open returns the generator of one split, as a *Source; an unbounded one
// is also an exec.Generator, and cannot be read as a snapshot.
func (Connector) Open(spec connector.Spec, read connector.Read, _ connector.Env) (exec.Source, error) {
	cfg, err := FromOptions(spec.Options, spec.Columns)
	if err != nil {
		return nil, err
	}
	s := New(cfg)
	if cfg.Len() != unbounded {
		return s, nil
	}
	if read == connector.Snapshot {
		return nil, fmt.Errorf("cannot read a snapshot of '%s': its datagen generator is unbounded (give the stream a 'rows' option, or use EMIT CHANGES)", spec.Object)
	}
	return generating{s}, nil
}

// generating is an unbounded generator: nothing ingested waits in it, so
// FLUSH need not wait for it to catch up (exec.Generator).
type generating struct{ *Source }

// GeneratesRows implements exec.Generator.
func (generating) GeneratesRows() {}

var (
	_ exec.Generator  = generating{}
	_ exec.Positioned = generating{}
)
