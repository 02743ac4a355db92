package nexmark

import (
	"fmt"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector"
)

// Name is the connector's name in WITH (connector = 'nexmark').
const Name = "nexmark"

// Connector is the nexmark source connector (connector.Source).
type Connector struct{}

var _ connector.Source = Connector{}

// Name returns "nexmark".
func (Connector) Name() string { return Name }

// Check validates the options against the declared columns (FromOptions).
func (Connector) Check(spec connector.Spec, _ connector.Env) error {
	_, err := FromOptions(spec.Options, spec.Columns)
	return err
}

// Columns returns every column of the table the options name.
func (Connector) Columns(opts map[string]string) []catalog.Column {
	table, _ := lookup(opts)("table")
	return Columns(table)
}

// Traits says a nexmark stream is generated, read in one split per
// instance, whose splits take turns at blocks of the one sequence of
// events (so they share its event time), and bounded with a number of
// events, of which its table's share (NEXMARK.md §1.3: 2 % persons, 6 %
// auctions, 92 % bids) is the estimate of its rows.
func (Connector) Traits(spec connector.Spec) catalog.SourceTraits {
	t := catalog.SourceTraits{Splittable: true, Generated: true, SplitsShareTime: true}
	get := lookup(spec.Options)
	if v, ok := get("events"); ok {
		if n, err := intOption("events", v, 0, MaxEvents); err == nil && n > 0 {
			t.Bounded = true
			table, _ := get("table")
			if k, ok := tableKind(table); ok {
				t.Rows = float64(n) * float64(proportionOf(k)) / totalProportion
			}
		}
	}
	return t
}

// ReadsColumns implements connector.ColumnReader: the generator builds
// only the columns it is opened with (draws for the others are made all
// the same, so the rows are the same), unless the generate option has it
// build every column of the tables it lists.
func (Connector) ReadsColumns(map[string]string) bool { return true }

// Open returns the generator of one split, as a *Source; an unbounded one
// is also an exec.Generator, and cannot be read as a snapshot.
func (Connector) Open(spec connector.Spec, read connector.Read, _ connector.Env) (exec.Source, error) {
	cfg, err := FromOptions(spec.Options, spec.Columns)
	if err != nil {
		return nil, err
	}
	if cfg.Events > 0 {
		return New(cfg)
	}
	if read == connector.Snapshot {
		return nil, fmt.Errorf("cannot read a snapshot of '%s': its nexmark generator is unbounded (give the stream an 'events' option, or use EMIT CHANGES)", spec.Object)
	}
	s, err := New(cfg)
	if err != nil {
		return nil, err
	}
	return generating{s}, nil
}

// generating is an unbounded generator: nothing ingested waits in it, so
// FLUSH need not wait for it to catch up (exec.Generator).
type generating struct{ *Source }

// GeneratesRows implements exec.Generator.
func (generating) GeneratesRows() {}

var (
	_ connector.ColumnReader = Connector{}
	_ exec.Generator         = generating{}
	_ exec.Positioned        = generating{}
)

// OptionName implements connector.OptionError.
func (e *OptionError) OptionName() string { return e.Option }
