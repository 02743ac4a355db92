package catalog

import (
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/catalog/types"
)

// Kind is the kind of a catalog object.
type Kind uint8

// The object kinds.
const (
	Stream Kind = iota + 1 // append-only; a source (INSERT-fed or a connector) or derived (AS SELECT)
	Table                  // a changelog keyed by a PRIMARY KEY
	View                   // a materialized view
	Sink                   // a continuous query writing to a connector
)

// String returns the kind as SQL spells it, in lower case.
func (k Kind) String() string {
	switch k {
	case Stream:
		return "stream"
	case Table:
		return "table"
	case View:
		return "materialized view"
	case Sink:
		return "sink"
	}
	return "object"
}

// Column is a column of an object.
type Column struct {
	Name     string  `json:"name"`
	Type     types.T `json:"type"`
	Nullable bool    `json:"nullable"`
	// Path is where a source's JSON messages hold the column's value (a
	// MySQL JSON path, WITH (path = ...)); "" for the top-level field of
	// the column's name.
	Path string `json:"path,omitempty"`
}

// Watermark declares a stream's event time: WATERMARK FOR Column AS Column - Delay.
type Watermark struct {
	Column  string `json:"column"`
	DelayMs int64  `json:"delay_ms"`
	Text    string `json:"text"` // the expression as written, for DESCRIBE
}

// Dedup is a source stream's de-duplication of replayed input (WITH
// dedup_key, dedup_window, dedup_fpr): a row whose key columns equal
// those of a row kept less than WindowMs before it (in event time when
// the stream has a WATERMARK, else in processing time of arrival) is
// dropped.
type Dedup struct {
	// Keys name the key columns, as the columns are spelled.
	Keys     []string `json:"keys"`
	WindowMs int64    `json:"window_ms"`
	// FPR is the false-positive rate the operator's Bloom filters are
	// sized for.
	FPR float64 `json:"fpr"`
	// Window is dedup_window as written, for EXPLAIN.
	Window string `json:"window"`
}

// Object is a stream, table, view or sink.
type Object struct {
	ID      uint64            `json:"id"` // unique and never reused; orders objects by creation
	Name    string            `json:"name"`
	Kind    Kind              `json:"kind"`
	Columns []Column          `json:"columns"`
	Options map[string]string `json:"options,omitempty"` // WITH options, keys lower-case
	// PrimaryKey holds column ordinals (tables; derived keys of views).
	// A table without one holds a multiset of rows.
	PrimaryKey []int `json:"primary_key,omitempty"`
	// LogOps says that the entries of a table's log end with a column of
	// change ops (OpColumn), so that the log holds deletions (DELETE,
	// UPDATE) as well as rows. Tables created before it was kept have
	// none: their log holds upserts only.
	LogOps    bool       `json:"log_ops,omitempty"`
	Watermark *Watermark `json:"watermark,omitempty"`
	// Dedup, when set, drops the rows of a source stream whose key was
	// already seen within a window.
	Dedup *Dedup `json:"dedup,omitempty"`
	// Query is the defining SQL of a view, sink or derived stream.
	Query string `json:"query,omitempty"`
	// DependsOn names the objects the defining query reads.
	DependsOn []string `json:"depends_on,omitempty"`
	// Settings are the session settings the defining query was planned
	// with; nil for objects created before they were kept.
	Settings *QuerySettings `json:"settings,omitempty"`
	// StateTTLMs is the defining query's state TTL in milliseconds (a
	// view's or sink's state_ttl, or the session's SET state_ttl when it
	// was created); 0: none.
	StateTTLMs int64 `json:"state_ttl_ms,omitempty"`
	// Shed is a view's or sink's load shedding (WITH max_latency, shed);
	// nil: none.
	Shed *Shed `json:"shed,omitempty"`
	// Traits are what a source's connector says its options mean for
	// planning. They are not stored: the catalog asks its Describer for
	// them when the object is created and when it is loaded.
	Traits SourceTraits `json:"-"`
}

// SourceTraits are what a source's connector and its options mean for
// planning, as the connector describes them (exec/connector): the planner
// and the optimizer read them here, since they may not import the
// connectors. The zero value is a source fed by INSERT: unbounded, read as
// one, its rows ingested.
type SourceTraits struct {
	// Bounded says the input ends (a file not followed, a generator with
	// a number of events): a query reading it finishes.
	Bounded bool
	// Splittable says the source is read in parallel splits, one per
	// instance of its scan, rather than as one.
	Splittable bool
	// Generated says the connector makes its rows rather than reading rows
	// someone ingested: nothing waits to be read, so a reader behind the
	// generator's event times is not lagging behind its input.
	Generated bool
	// SplitsShareTime says the splits of a Splittable source each hold a
	// share of the same span of event time (a generator dealing its
	// events to its splits), not stretches of it one after another (a
	// file's byte ranges): a split that reads faster than the others runs
	// ahead in event time, so the runtime keeps them within a drift of one
	// another.
	SplitsShareTime bool
	// Rows estimates the rows of a bounded source; 0 when unknown.
	Rows float64
}

// Describer returns the traits of a source object's connector (the zero
// traits for any other object).
type Describer func(o *Object) SourceTraits

// Connector returns the object's connector option ("" when fed by INSERT).
func (o *Object) Connector() string { return o.Options["connector"] }

// IsSource reports whether the object is a source stream or table (not
// defined by a query).
func (o *Object) IsSource() bool {
	return (o.Kind == Stream || o.Kind == Table) && o.Query == ""
}

// ColumnIndex returns the ordinal of the named column (case-insensitive), or -1.
func (o *Object) ColumnIndex(name string) int {
	for i, c := range o.Columns {
		if strings.EqualFold(c.Name, name) {
			return i
		}
	}
	return -1
}

// Schema returns the Arrow schema of the object's rows.
func (o *Object) Schema() *arrow.Schema {
	fields := make([]arrow.Field, len(o.Columns))
	for i, c := range o.Columns {
		fields[i] = types.Field(c.Name, c.Type, c.Nullable)
	}
	return arrow.NewSchema(fields, nil)
}

// OpColumn is the name of the change-op column that ends a table's log
// entries when LogOps is set: LogInsert or LogDelete per row.
const OpColumn = "$op"

// The change ops of a table's log.
const (
	LogInsert int8 = 0 // the row (of a table with a key: the latest row of its key)
	LogDelete int8 = 1 // the deletion of the row (of a table with a key: of its key)
)

// LogSchema returns the Arrow schema of the entries of the object's log:
// its columns, then OpColumn when LogOps is set.
func (o *Object) LogSchema() *arrow.Schema {
	s := o.Schema()
	if !o.LogOps {
		return s
	}
	return arrow.NewSchema(append(s.Fields(), arrow.Field{Name: OpColumn, Type: arrow.PrimitiveTypes.Int8}), nil)
}

// Types returns the SQL types of the columns.
func (o *Object) Types() []types.T {
	ts := make([]types.T, len(o.Columns))
	for i, c := range o.Columns {
		ts[i] = c.Type
	}
	return ts
}

// SortedOptions returns the WITH options as sorted key/value pairs.
func (o *Object) SortedOptions() [][2]string {
	keys := make([]string, 0, len(o.Options))
	for k := range o.Options {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([][2]string, len(keys))
	for i, k := range keys {
		out[i] = [2]string{k, o.Options[k]}
	}
	return out
}

// QuerySettings are the session settings (SET ...) a continuous query was
// planned with, kept with it so that a restart plans it as it was planned
// — and resumes its checkpoint — rather than with the engine's defaults.
type QuerySettings struct {
	Parallelism      int    `json:"parallelism,omitempty"`
	NoOptimize       bool   `json:"no_optimize,omitempty"`
	JoinDistribution string `json:"join_distribution,omitempty"`
	TwoPhaseAgg      string `json:"two_phase_agg,omitempty"`
	// ShareViews is SET share_views: "off" plans the query without
	// reading running views in place of its own sub-plans.
	ShareViews string `json:"share_views,omitempty"`
	// CheckpointIntervalMs is SET checkpoint_interval in milliseconds (0:
	// none); nil when the session did not set it, and the engine's
	// applies.
	CheckpointIntervalMs *int64 `json:"checkpoint_interval_ms,omitempty"`
	// WatermarkAlignmentMs is SET watermark_alignment in milliseconds:
	// the drift its sources' watermarks are aligned within (0: not
	// aligned); nil when the session did not set it, and the engine's
	// applies.
	WatermarkAlignmentMs *int64 `json:"watermark_alignment_ms,omitempty"`
	// PolicyIntervalMs is SET policy_interval in milliseconds: how often
	// the query's rates are sampled; nil when the session did not set
	// it, and the engine's applies.
	PolicyIntervalMs *int64 `json:"policy_interval_ms,omitempty"`
	// LatencyIntervalMs is SET latency_interval in milliseconds: how
	// often its sources send latency markers (0: never).
	LatencyIntervalMs int64 `json:"latency_interval_ms,omitempty"`
	// Autoscale is SET autoscale: "ds2" runs the query's DS2 controller,
	// "off" none; "" (the session did not set it): the engine's default.
	Autoscale string `json:"autoscale,omitempty"`
	// AdaptiveJoin is SET adaptive_join: "off" keeps every join's
	// distribution as planned; "" (on) lets a join the optimizer could
	// broadcast switch between hash and broadcast at run time.
	AdaptiveJoin string `json:"adaptive_join,omitempty"`
	// BroadcastBudget is SET broadcast_budget in bytes: the most the
	// replicas of a broadcast join's side may take (0: the default).
	BroadcastBudget int64 `json:"broadcast_budget,omitempty"`
	// JoinSwitches are the join distributions switched at run time, the
	// latest per join, which a restart plans again.
	JoinSwitches []JoinSwitch `json:"join_switches,omitempty"`
}

// JoinSwitch is a join's distribution switched at run time: the join by
// its ordinal in the plan (from 1), "hash" or "broadcast", and when and
// why it switched.
type JoinSwitch struct {
	Join         int    `json:"join"`
	Distribution string `json:"distribution"`
	Why          string `json:"why"`
}

// Shed is a continuous query's load shedding: when its input outruns it,
// it drops rows at its sources, at random (Mode "random") or by whole
// TUMBLE windows (Mode "window"), to keep its input's wait under
// MaxLatencyMs.
type Shed struct {
	MaxLatencyMs int64  `json:"max_latency_ms"`
	Mode         string `json:"mode"`
}
