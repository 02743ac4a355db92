package connector

import (
	"io"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector/fileroot"
)

// Env is what connectors need from the engine that runs them. The engine
// passes it to every call; connectors keep no globals of their own.
type Env struct {
	// Root confines the paths of file sources and sinks: the file root
	// (--file-root, default the working directory), which never includes
	// the data directory.
	Root fileroot.Root
	// Stdout receives the output of print sinks; nil discards it.
	Stdout io.Writer
}

// Spec describes a source stream or table to its connector: its name (for
// messages), its connector's WITH options and its columns. Options have
// their keys in lower case, as the catalog keeps them, the connector
// option included; the options every stream takes whatever feeds it
// (idle_timeout, late_rows_to, dedup_key, dedup_window, dedup_fpr) are
// the engine's and not among them.
type Spec struct {
	Object  string
	Options map[string]string
	Columns []catalog.Column
	// PrimaryKey names a table's primary key columns; nil for a stream.
	// A source whose input is a changelog (Kafka's upsert-json) reads it
	// only into a table, keyed by them.
	PrimaryKey []string
}

// Read is how a query reads a source.
type Read uint8

// The ways of reading a source.
const (
	// Continuous reads the source from its beginning and keeps reading
	// while it grows (a continuous or push query).
	Continuous Read = iota
	// Snapshot reads what the source holds now, to an end (a pull query,
	// ANALYZE).
	Snapshot
)

// Source is a source connector: what a CREATE STREAM or CREATE TABLE
// ... WITH (connector = '<name>') reads.
type Source interface {
	// Name is the connector's name, in lower case.
	Name() string
	// Check validates a source's options against its columns when it is
	// created. An error about one option is an OptionError naming it.
	Check(spec Spec, env Env) error
	// Columns returns the columns of a source declared without any (the
	// connector's own schema), or nil when the connector has none and
	// the source must declare them. opts passed Check.
	Columns(opts map[string]string) []catalog.Column
	// Traits says what spec's options mean for planning. The options
	// passed Check, perhaps of an older eddy: Traits reads what it needs
	// and never fails, taking an option it cannot read as absent.
	Traits(spec Spec) catalog.SourceTraits
	// Open returns the runtime source of one instance of a query's scan
	// of the source, reading all of spec's columns in their order. It
	// may implement exec.BoundedSource and exec.Generator; the runtime
	// (exec.Env's Instance and Parallelism) tells a splittable source
	// which split to read when it is opened.
	Open(spec Spec, read Read, env Env) (exec.Source, error)
}

// ColumnReader is a source connector that can read only some of a
// source's columns: under the given options, Open with a Spec whose
// Columns are some of the declared ones (at least one, in their declared
// order) makes chunks of those columns alone, and the rows, their order
// and the source's positions are as with every column. The engine opens
// such a source with the columns its query reads (projection pushdown);
// others get every declared column and the engine drops the rest.
type ColumnReader interface {
	ReadsColumns(opts map[string]string) bool
}

// PathReader is a source connector that can fill a column from a JSON
// path of its messages (a column declared WITH (path = '$.a.b'), in
// catalog.Column.Path) under the given options (a file read as JSON, not
// as CSV). A connector that is not one refuses such columns (the engine
// says so at the path).
type PathReader interface {
	ReadsPaths(opts map[string]string) bool
}

// SinkSpec describes a sink to its connector: its name, its WITH options
// as written (keys in lower case) and the columns its query writes.
type SinkSpec struct {
	Object  string
	Options map[string]string
	Names   []string
	Types   []types.T
	// AppendOnly says the query never retracts: its rows are written
	// without their op.
	AppendOnly bool
	// Checkpointed says the engine checkpoints the query: a sink that
	// can publishes exactly once (exec.Committer), one that cannot keeps
	// no state (exec.Stateless) and writes again after a restart what it
	// wrote since the last checkpoint.
	Checkpointed bool
	// Task, when set, names the cluster task that runs this instance of
	// the sink (package cluster): a sink that names outside resources
	// after its query (Kafka's transactional ids) names them after the
	// task too, so that the tasks of one sink do not fence each other.
	Task string
}

// SinkTraits say what a sink's connector and options mean for planning.
type SinkTraits struct {
	// AppendOnly records that the user demands an append-only query
	// (WITH (type = 'append-only')): an updating one is an error.
	AppendOnly bool
	// Observed says someone watches the sink's output change by change
	// (a file, standard output), so its query must deliver its changelog
	// batch by batch; when false (blackhole) the query's exchanges may
	// coalesce small batches into a coarser changelog with the same
	// result.
	Observed bool
	// ExactlyOnce says the sink publishes exactly once when its query is
	// checkpointed (it stages its output and publishes it as checkpoints
	// commit: exec.Committer); otherwise it writes as rows come, and after
	// a crash writes again what it wrote since the last checkpoint.
	ExactlyOnce bool
	// Discards says the sink keeps nothing of what it receives (a
	// blackhole): no restart can change its output.
	Discards bool
	// Rewrites says the sink's output is written again from the start
	// when its query replays its inputs from their beginning (a file is
	// truncated), rather than after what it wrote (standard output).
	Rewrites bool
	// Shared says the sink writes to a service every process reaches (a
	// Kafka topic), not to the machine it runs on: the tasks of a
	// cluster's query, on any member, may each write their share.
	Shared bool
}

// Sink is a sink connector: where CREATE SINK ... WITH (connector =
// '<name>') writes.
type Sink interface {
	// Name is the connector's name, in lower case.
	Name() string
	// Check validates a sink's options (spec's Names and Types are not
	// known yet) and says what they mean for planning. An error about
	// one option is an OptionError naming it.
	Check(opts map[string]string, env Env) (SinkTraits, error)
	// New returns the operator that ends one instance of the sink's
	// query and writes its changes out.
	New(spec SinkSpec, env Env) (exec.Operator, error)
}
