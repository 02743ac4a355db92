package physical

import (
	"time"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/optimizer/cost"
	"github.com/eddysql/eddy/planner/plan"
)

// Node is a physical operator.
type Node interface {
	// Hdr returns the fields every operator has.
	Hdr() *Header
	// Describe returns the operator's name and attributes for EXPLAIN.
	Describe() (op string, attrs []plan.Attr)
}

// Col is an output column of a physical operator.
type Col struct {
	Name     string
	Type     types.T
	Nullable bool
}

// Estimate is what the optimizer expects of an operator.
type Estimate struct {
	// RowsPerSec is the expected output rate.
	RowsPerSec float64
	// StateRows and StateBytes estimate the operator's retained state.
	StateRows, StateBytes float64
	// StateBounded is false when the state grows without limit (for
	// example a GROUP BY over an unbounded stream's keys); EXPLAIN warns.
	StateBounded bool
	// Stateful marks operators that keep state at all.
	Stateful bool
	// Growth says how unbounded state grows, for EXPLAIN's warning ("" is
	// "with every distinct key").
	Growth string
}

// Header holds what every physical operator has.
type Header struct {
	ID          int
	Cols        []Col
	Inputs      []Node
	Parallelism int
	Est         Estimate
	// Decisions are the cost-based choices made for this operator.
	Decisions []cost.Decision
}

// Hdr implements Node.
func (h *Header) Hdr() *Header { return h }

// Types returns the output column types.
func (h *Header) Types() []types.T {
	ts := make([]types.T, len(h.Cols))
	for i, c := range h.Cols {
		ts[i] = c.Type
	}
	return ts
}

// Names returns the output column names.
func (h *Header) Names() []string {
	ns := make([]string, len(h.Cols))
	for i, c := range h.Cols {
		ns[i] = c.Name
	}
	return ns
}

// Source reads a catalog object: an INSERT-fed log, a connector, or a view's
// changes (continuous) or contents (snapshot).
type Source struct {
	Header
	Object  *catalog.Object
	Ords    []int // the object's columns read, in output order
	Mode    plan.ScanMode
	Bounded bool
	// TimeOrd is the output ordinal of the event-time column when the
	// object declares a WATERMARK, else -1.
	TimeOrd int
	// Keep is set when the last output column, after the Ords, is the
	// probability that the query's load shedding kept each row
	// (plan.Scan.Keep), which the runtime fills in after shedding.
	Keep bool
	// Prune are the ranges a pull query's filter sets on the columns of
	// the view it reads (prune.go): the view skips the rows it holds
	// outside them where it can.
	Prune []ColumnRange
}

// HashJoin joins Inputs[0] (left) and Inputs[1] (right), each partitioned
// on its keys (LeftKeys[i] = RightKeys[i]); without keys both sides meet in
// one instance. Residual is the rest of the condition, over the left
// columns followed by the right ones. Its output is the left columns then
// the right ones (the left ones only for a semi or anti join).
type HashJoin struct {
	Header
	Kind                plan.JoinKind
	LeftKeys, RightKeys []int
	Residual            plan.Expr
	// KeyText shows each key pair as the query wrote it, for EXPLAIN.
	KeyText []string
	// Lookup: the left side is a stream that looks up the right side, a
	// table; only stream rows produce output (see plan.Join).
	Lookup bool
	// Windowed: an interval or window join (plan.Join.Windowed) whose
	// sides free their rows by their time columns LeftTime and RightTime
	// (input ordinals), as Lo <= left - right <= Hi allows, the columns
	// following the watermark LeftLag and RightLag behind (plan.TimeBound).
	Windowed            bool
	LeftTime, RightTime int
	Lo, Hi              int64
	LeftLag, RightLag   int64
	TimeText            string
	// StateTTL, when positive, evicts the rows of a join key idle that
	// long from both sides (a regular join only; ttl.go).
	StateTTL time.Duration
	// Ordinal numbers the joins of a plan in the order they are planned,
	// from 1: a run-time switch names the join it forces by it
	// (Options.JoinSwitches).
	Ordinal int
	// Adaptive: the join's distribution may switch between hash and
	// broadcast at run time, and its state restores across them
	// (adaptive.go). LeftAppendOnly says its left input never retracts,
	// which a switch to broadcast needs; LeftRows is the left side's size
	// the cost model planned with, and Budget the broadcast budget.
	Adaptive bool
	// Hashed: both sides are partitioned on the keys, each by a hash
	// exchange or hashed on them already (hashed.go), rather than
	// gathered into one instance or broadcast.
	Hashed bool
	// MayBroadcast: the optimizer may broadcast the join's right side at
	// some parallelism (broadcastable), whatever it chose at this one.
	MayBroadcast   bool
	LeftAppendOnly bool
	LeftRows       float64
	Budget         float64
}

// Values produces constant rows.
type Values struct {
	Header
	Rows [][]types.Datum
}

// Calc filters rows by Filter (nil keeps all) and computes Projs.
type Calc struct {
	Header
	Filter plan.Expr
	Projs  []plan.Expr
}

// AggSpec is one aggregate of a HashAgg, over input ordinals.
type AggSpec struct {
	Func     plan.AggFunc
	Distinct bool
	Arg      int // input ordinal; -1 for COUNT(*)
	ArgType  types.T
	Type     types.T
	Text     string
	// Share, when not 0, names DISTINCT aggregates that keep their values
	// in one set per group (shareDistinct).
	Share int
}

// PartialSpec is one partial aggregate of a LocalAgg, over input ordinals.
type PartialSpec struct {
	Kind plan.AggFunc // AggCountStar, AggCount, AggSum, AggMin or AggMax
	Arg  int          // -1 for COUNT(*)
	Type types.T
}

// LocalAgg is the first phase of a two-phase aggregation: each batch is
// aggregated by itself, one row of partials per group, on the input's
// instances; a hash exchange then feeds the final HashAgg.
type LocalAgg struct {
	Header
	GroupKeys []int
	Partials  []PartialSpec
}

// HashAgg groups by GroupKeys and maintains Aggs incrementally.
type HashAgg struct {
	Header
	GroupKeys []int
	// PartKeys, when set, are the indexes in GroupKeys of the keys the
	// input is hashed on: by its exchange, fewer than all
	// (exchange_sink.go), or by a join before it (hashed.go). The groups'
	// key groups are those keys'.
	PartKeys        []int
	Aggs            []AggSpec
	AppendOnlyInput bool
	// Final: the second phase of a two-phase aggregation, merging a
	// LocalAgg's partials (each aggregate shown as the one it completes).
	Final bool
	// CloseKey, when >= 0, is the index in GroupKeys of the column that
	// tells when a group's window closes: at the watermark CloseKey's value
	// + CloseOffset the group is final and its state is freed.
	CloseKey    int
	CloseOffset int64
	// EmitOnClose emits each group once, when its window closes, instead
	// of running results.
	EmitOnClose bool
	// StateTTL, when positive, evicts the groups idle that long (ttl.go).
	StateTTL time.Duration
}

// TopN keeps the Limit first rows per partition in Order (ties broken by
// the remaining columns), with their row number when RowNumber is set.
type TopN struct {
	Header
	Partition []int
	// PartKeys, when set, are the indexes in Partition of the columns its
	// input is hashed on already (hashed.go): its key groups are theirs.
	PartKeys        []int
	Order           []SortKey
	Limit           int64
	RowNumber       bool
	AppendOnlyInput bool
}

// Union concatenates its inputs, each an Exchange into the union's stage.
type Union struct {
	Header
}

// WindowAssign assigns rows to TUMBLE, HOP or CUMULATE windows, adding
// window_start and window_end.
type WindowAssign struct {
	Header
	Kind    plan.WindowKind
	TimeCol int
	Size    int64
	Slide   int64
}

// SessionAgg groups each key's rows into sessions and aggregates them. Its
// output is the keys, window_start, window_end and the aggregates.
type SessionAgg struct {
	Header
	Keys        []int
	TimeCol     int
	Gap         int64
	Aggs        []AggSpec
	EmitOnClose bool
}

// Upsert turns a table's upserts (latest row per primary key) into a
// changelog: a row for a new key is +I, a row for an existing key is -U of
// the old row and +U of the new.
type Upsert struct {
	Header
	Keys []int
}

// Dedup drops the rows of an append-only source whose key (the columns
// Keys) equals that of a row it kept less than WindowMs before: in event
// time when TimeCol (an input ordinal) is >= 0, else in processing time of
// arrival. Its input is partitioned on Keys, so equal keys meet in one
// instance.
type Dedup struct {
	Header
	Keys     []int
	WindowMs int64
	FPR      float64
	TimeCol  int
	// Window is the window as the stream's options wrote it, for EXPLAIN.
	Window string
}

// DistKind is how an exchange distributes rows among the consumer's instances.
type DistKind uint8

// The distributions.
const (
	// Forward sends instance i's output to consumer instance i.
	Forward DistKind = iota + 1
	// Hash sends each row to the instance owning its key's key group.
	Hash
	// Broadcast sends every row to every consumer instance.
	Broadcast
	// Single gathers every row into the one consumer instance.
	Single
	// RoundRobin spreads whole batches over the consumer's instances in
	// turn (for an append-only input whose rows may go anywhere).
	RoundRobin
)

// String returns the distribution's name.
func (d DistKind) String() string {
	return [...]string{"", "forward", "hash", "broadcast", "single", "round-robin"}[d]
}

// Exchange redistributes its input among the next operator's instances.
type Exchange struct {
	Header
	Dist DistKind
	Keys []int // for Hash, over the exchange's output columns
	// Project, when set, are the input's columns the exchange passes on,
	// in order: its input is a sub-plan shared with other exchanges that
	// want other columns of it (share.go).
	Project []int
}

// SortKey is one ORDER BY key over an input ordinal.
type SortKey struct {
	Ord  int
	Desc bool
}

// Sort orders a bounded input.
type Sort struct {
	Header
	Keys []SortKey
}

// Limit keeps Count rows after skipping Offset.
type Limit struct {
	Header
	Count, Offset int64
	// AppendOnlyInput: the input never retracts, so the first rows can
	// pass through as they arrive.
	AppendOnlyInput bool
}

var (
	_ Node = (*Source)(nil)
	_ Node = (*Values)(nil)
	_ Node = (*Calc)(nil)
	_ Node = (*HashAgg)(nil)
	_ Node = (*WindowAssign)(nil)
	_ Node = (*TopN)(nil)
	_ Node = (*Union)(nil)
	_ Node = (*SessionAgg)(nil)
	_ Node = (*Upsert)(nil)
	_ Node = (*Dedup)(nil)
	_ Node = (*Exchange)(nil)
	_ Node = (*Sort)(nil)
	_ Node = (*Limit)(nil)
)
