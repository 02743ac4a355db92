package join

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/expr"
	"github.com/eddysql/eddy/exec/internal/paged"
	"github.com/eddysql/eddy/exec/internal/probe"
	"github.com/eddysql/eddy/exec/internal/rowstore"
	"github.com/eddysql/eddy/exec/internal/vec"
	"github.com/eddysql/eddy/planner/plan"
)

// Config configures a HashJoin.
type Config struct {
	Kind plan.JoinKind
	// Left and Right are the types of the inputs' columns: input 0 is the
	// left side, input 1 the right.
	Left, Right []types.T
	// LeftKeys[i] = RightKeys[i] are the equi-join keys (input ordinals);
	// none makes every pair a candidate (a cross join). A NULL key never
	// matches.
	LeftKeys, RightKeys []int
	// Residual is the rest of the join condition, over the left columns
	// followed by the right ones (nil: none).
	Residual plan.Expr
	// Names name the output columns: left then right, or left only for
	// semi and anti joins.
	Names []string
	// Windowed makes it an interval or window join: a left row is freed
	// once the watermark passes its time column LeftTime minus Lo, a right
	// row once it passes RightTime plus Hi (the condition bounds left time
	// - right time to [Lo, Hi], so no later row can match them), and an
	// outer join pads an unmatched row when it is freed rather than when
	// it arrives, so over append-only inputs the output only appends. An
	// inner join's inputs may also retract, if every change after
	// watermark W has a time of at least W (plan.Props.TimeCols) and a
	// retracting side's rows are freed only after their time (Lo <= 0 for
	// the left, Hi >= 0 for the right): a retraction then finds its row,
	// and the rows it matched, still held, and retracts the matches as a
	// regular join does.
	Windowed            bool
	LeftTime, RightTime int
	Lo, Hi              int64
	// LeftLag and RightLag are how far behind the watermark the time
	// columns follow it (plan.TimeBound): a left row is freed once the
	// watermark passes LeftTime - Lo + RightLag, a right row once it
	// passes RightTime + Hi + LeftLag.
	LeftLag, RightLag int64
	// Lookup makes it a lookup join (Kind InnerJoin or LeftJoin): the
	// right side's changes update its state and emit nothing, and each left
	// (stream) row joins the right rows held when it arrives, is emitted
	// once, and is not kept.
	Lookup bool
	// Broadcast says how the inputs reach the instances: the right one is
	// broadcast to every instance and the left one forwarded from the
	// instances upstream, rather than both hash-partitioned on the keys
	// (or, without keys, both sent to one instance). It decides the key
	// groups of the state's entries (state.go).
	Broadcast bool
	// Relayout says the join is adaptive: a checkpoint it restores may
	// have been written by it at the other distribution, or broadcast at
	// another parallelism (a switch at run time, a rescale). When the
	// runtime says that one was (exec.Env.Relayout), Restore reads every
	// key group and moves the left rows to this distribution's layout
	// (relayout.go). A broadcast join takes the left rows of another
	// layout only when LeftAppendOnly says its left input never retracts.
	Relayout       bool
	LeftAppendOnly bool
	// StateTTL, when positive, bounds the state of a regular join (neither
	// Windowed nor Lookup): the rows of a join key no row has reached for
	// StateTTL, in processing time (exec.Env.Now), are evicted from both
	// sides (ttl.go).
	StateTTL time.Duration
}

// HashJoin is the regular join of two changelogs: it keeps every row of
// both sides, indexed by its join key, and for each change on one side
// emits the change of the join result: the new (or retracted) row joined
// with every matching row of the other side. Outer joins also count each
// kept row's matches, so that a row of a preserved side is emitted padded
// with NULLs while it has none, and that padded row is retracted when its
// first match arrives (and emitted again when its last match leaves). Semi
// and anti joins emit a left row when its match count leaves or reaches
// zero. Its output is a changelog of inserts and deletes.
//
// The state is unbounded: it grows with both inputs (EXPLAIN warns). Each
// batch costs work in the rows it touches and their matches, not in the
// state size.
type HashJoin struct {
	cfg     Config
	env     *exec.Env
	sides   [2]*side
	resid   *expr.Expr
	schema  *arrow.Schema
	keyBuf  []byte
	cand    []int32 // candidate pairs: probe rows
	candIDs []int32 // and the other side's row ids
	keep    []int32
	outP    []int32 // output rows: probe row (-1: NULL)
	outO    []int32 // and other-side id (-1: NULL)
	outOps  []exec.Op
	peeked  uint64   // sums what peekRows read, so that its loads are kept
	hashes  []uint64 // the probe rows' hashes, when row indexes may read them
	khashes []uint64 // the probe rows' join key hashes
	nonNull []bool   // whether each probe row's join key is not NULL
	// A lookup join holds its stream rows until the table side has caught
	// up with the rows it held when the query started, so that a query
	// created over existing data looks them up in the whole table.
	waiting bool
	pending []exec.Chunk
	ck      checkpoint
	snap    pendingSnap // a snapshot written in steps (snapshot.go)
	ttl     *joinTTL    // with a state TTL (ttl.go)
	// rightRows and rightBytes are a regular keyed join's counters of
	// the right rows it holds and their bytes (rowstore.Store.LiveBytes;
	// summed over the instances:
	// every replica's of a broadcast join), which decide a switch of its
	// distribution at run time.
	rightRows, rightBytes *atomic.Int64
}

// The names of the counters of the right side's rows and bytes.
const (
	RightRowsCounter  = "right_rows"
	RightBytesCounter = "right_bytes"
)

// side is one input's state: its rows, indexed by join key (rows.go), and
// for a side whose matches are counted, each row's number of matches.
type side struct {
	types   []types.T
	keys    []int
	store   *rowstore.Store
	counted bool
	matches []int32
	// The index: the buckets by the hash of their join key, the buckets
	// (nbuckets of them, those free listed in freeBuckets; by pages, so
	// that millions of join keys grow them without copies), and by row
	// id: its bucket and the next and previous ids of its bucket's list.
	index       probe.Index
	buckets     paged.Vec[bucket]
	nbuckets    int32
	freeBuckets []int32
	bucketOf    paged.Vec[int32]
	rnext       paged.Vec[int32]
	rprev       paged.Vec[int32]
	// For a windowed join: the time column, the offset that makes a row's
	// deadline (freed when deadline < watermark), and the rows by deadline.
	timeCol int
	offset  int64
	// grain rounds a row's deadline up to a multiple of it (a power of
	// two; 1: exact), so that rows of nearby times share a bucket of the
	// deadlines (deadlineGrain).
	grain    int64
	deadline deadlines
	gen      []uint32 // by row id: its generation in deadline
	stale    int      // deadline's entries of retracted rows
	padded   bool     // an outer join pads this side's unmatched rows
	// By row id: the next id of its chain in its bucket's row index
	// (rows.go); idx keeps track of the row indexes, whose row hash covers
	// hashCols.
	next     []int32
	idx      rowIndexes
	hashCols []int
	evicting map[int32]int32 // scratch of dropEvictedIndexes: rows due by bucket
	// The rows changed since the last snapshot, and the checkpoint's
	// entries of the rows, tagged tag (state.go); the rows a snapshot
	// begun still has to write, which the join j saves before they change
	// (snapshot.go).
	changes rowstore.Changes
	pend    rowstore.Pending
	j       *HashJoin
	tag     byte
	keyBuf  []byte   // scratch of entryKey
	ttl     *sideTTL // with a state TTL: the buckets' slots (ttl.go)
}

var (
	_ exec.Operator        = (*HashJoin)(nil)
	_ exec.ProcessingTimer = (*HashJoin)(nil)
)

// NewHashJoin returns a HashJoin.
func NewHashJoin(cfg Config) *HashJoin { return &HashJoin{cfg: cfg} }

// Open implements Operator.
func (j *HashJoin) Open(ctx context.Context, env *exec.Env) error {
	c := j.cfg
	if len(c.LeftKeys) != len(c.RightKeys) {
		return fmt.Errorf("hash join: %d left keys for %d right keys", len(c.LeftKeys), len(c.RightKeys))
	}
	if c.Lookup && c.Kind != plan.InnerJoin && c.Kind != plan.LeftJoin {
		return fmt.Errorf("hash join: a lookup join is inner or left, not %s", c.Kind)
	}
	j.env = env
	j.waiting = c.Lookup
	left := &side{types: c.Left, keys: c.LeftKeys, store: rowstore.New(c.Left),
		counted: !c.Lookup && (c.Kind == plan.LeftJoin || c.Kind == plan.FullJoin || c.Kind == plan.SemiJoin || c.Kind == plan.AntiJoin)}
	right := &side{types: c.Right, keys: c.RightKeys, store: rowstore.New(c.Right),
		counted: c.Kind == plan.RightJoin || c.Kind == plan.FullJoin}
	left.hashCols, right.hashCols = hashCols(c.Left), hashCols(c.Right)
	left.tag, right.tag = tagLeft, tagRight
	left.j, right.j = j, j
	if env.Checkpointing {
		// Every row added is marked from the start, so that the first
		// snapshot begins as the others, from the list of changes, not a
		// walk over every row held (a job that checkpoints resets the list
		// at each).
		left.changes.Track()
		right.changes.Track()
	}
	if c.Broadcast && len(c.LeftKeys) == 0 {
		return errors.New("hash join: a broadcast join without keys")
	}
	if c.Relayout && (c.Windowed || len(c.LeftKeys) == 0) {
		return errors.New("not supported yet: moving the state of a windowed or cross join to another distribution")
	}
	j.ck = checkpoint{wm: noWatermark, savedWM: noWatermark, floor: noWatermark}
	j.sides = [2]*side{left, right}
	if c.Windowed {
		if c.Lookup || c.Kind == plan.SemiJoin || c.Kind == plan.AntiJoin {
			return fmt.Errorf("hash join: a %s join cannot be windowed", c.Kind)
		}
		left.timeCol, left.offset, left.padded = c.LeftTime, c.RightLag-c.Lo, c.Kind.PreservesLeft()
		right.timeCol, right.offset, right.padded = c.RightTime, c.Hi+c.LeftLag, c.Kind.PreservesRight()
		left.grain, right.grain = deadlineGrain(c.Hi-c.Lo, left.padded), deadlineGrain(c.Hi-c.Lo, right.padded)
		// Matches are counted to know, when a row is freed, whether to pad it.
		left.counted, right.counted = left.padded, right.padded
	}
	if c.Residual != nil && !plan.IsTrue(c.Residual) {
		r, err := expr.Compile(c.Residual, append(append([]types.T(nil), c.Left...), c.Right...))
		if err != nil {
			return fmt.Errorf("hash join: condition %s: %w", c.Residual, err)
		}
		j.resid = r
	}
	out := append(append([]types.T(nil), c.Left...), c.Right...)
	if c.Kind == plan.SemiJoin || c.Kind == plan.AntiJoin {
		out = c.Left
	}
	if len(c.Names) != len(out) {
		return fmt.Errorf("hash join: %d names for %d output columns", len(c.Names), len(out))
	}
	fields := make([]arrow.Field, len(out))
	for i, t := range out {
		fields[i] = types.Field(c.Names[i], t, true)
	}
	j.schema = arrow.NewSchema(fields, nil)
	j.ttl = nil
	j.rightRows, j.rightBytes = nil, nil
	if !c.Windowed && len(c.LeftKeys) > 0 {
		j.rightRows, j.rightBytes = env.Metrics.Counter(RightRowsCounter), env.Metrics.Counter(RightBytesCounter)
	}
	if c.StateTTL > 0 && !c.Windowed && !c.Lookup {
		j.newTTL(c.StateTTL)
	}
	return nil
}

// Process implements Operator: input 0 is the left side, input 1 the right.
func (j *HashJoin) Process(ctx context.Context, in int, c exec.Chunk, out exec.Emitter) error {
	if in != 0 && in != 1 {
		return fmt.Errorf("hash join: no input %d", in)
	}
	n := c.NumRows()
	if n == 0 {
		return nil
	}
	if j.waiting && in == 0 {
		j.pending = append(j.pending, c.Keep())
		return nil
	}
	if j.ttl != nil {
		j.ttl.now = j.env.Now().UnixMilli()
		j.expire() // a key idle for the TTL is gone before this chunk reaches it
	}
	probe, other := j.sides[in], j.sides[1-in]
	cols := c.Batch.Columns()
	keyCols := make([]arrow.Array, len(probe.keys))
	for k, o := range probe.keys {
		keyCols[k] = cols[o]
	}
	// The candidates: every row of the other side with the same key.
	j.cand, j.candIDs = j.cand[:0], j.candIDs[:0]
	if err := j.hashKeys(keyCols, n); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if i%peekAhead == 0 && !(j.cfg.Lookup && in == 1) {
			j.peekRows(other, i, min(i+peekAhead, n))
		}
		if !j.nonNull[i] || j.cfg.Lookup && in == 1 {
			continue // a NULL key matches nothing; table changes look nothing up
		}
		if b := other.lookup(j.khashes[i], keyCols, i); b != noRow {
			other.touch(b)
			for id := other.buckets.Ref(b).head; id != noRow; id = other.rnext.At(id) {
				j.cand = append(j.cand, int32(i))
				j.candIDs = append(j.candIDs, id)
			}
		}
	}
	if err := j.filterResidual(in, c, other); err != nil {
		return err
	}
	if err := j.hashProbeRows(probe, c, cols, n); err != nil {
		return err
	}
	// Apply the rows in order: emit their changes and update the state.
	j.outP, j.outO, j.outOps = j.outP[:0], j.outO[:0], j.outOps[:0]
	p := 0
	for i := 0; i < n; i++ {
		if i%peekAhead == 0 && !(j.cfg.Lookup && in == 0) {
			j.peekRows(probe, i, min(i+peekAhead, n)) // where the rows go
		}
		start := p
		for p < len(j.cand) && int(j.cand[p]) == i {
			p++
		}
		matches := j.candIDs[start:p]
		op := exec.Insert
		if c.Ops != nil {
			op = c.Ops[i]
		}
		insert := op == exec.Insert || op == exec.UpdateAfter
		if err := j.apply(in, probe, other, cols, keyCols, i, matches, insert); err != nil {
			return err
		}
	}
	j.gauge()
	return j.emit(ctx, in, c, other, out)
}

// peekAhead is how many rows' lookups the join touches ahead of making
// them: enough to overlap many cache misses, few enough that the lines
// stay in the closest caches until the rows reach them.
const peekAhead = 64

// peekRows touches what the lookups of rows lo..hi-1 of the chunk in side
// s read first (side.peek), all before any of them, so that their cache
// misses overlap.
func (j *HashJoin) peekRows(s *side, lo, hi int) {
	var sum uint64
	for i := lo; i < hi; i++ {
		if j.nonNull[i] {
			sum += s.peek(j.khashes[i])
		}
	}
	j.peeked += sum
}

// peekBuckets touches, for each row of ids in side s, what its removal
// reads first: its bucket and the index slot of the bucket's hash, all
// before any removal, so that their cache misses overlap.
func (j *HashJoin) peekBuckets(s *side, ids []int32) {
	var sum uint64
	for _, id := range ids {
		sum += s.peek(s.buckets.Ref(s.bucketOf.At(id)).hash)
	}
	j.peeked += sum
}

// hashProbeRows computes the row hashes of the chunk's rows when a row
// index may need them: the chunk retracts rows (a bucket may build its
// index) or some bucket of the probe side has one.
func (j *HashJoin) hashProbeRows(probe *side, c exec.Chunk, cols []arrow.Array, n int) error {
	j.hashes = j.hashes[:0]
	if j.cfg.Lookup && probe == j.sides[0] {
		return nil // a lookup join keeps no stream rows
	}
	if probe.idx.live == 0 {
		retracts := false
		for _, op := range c.Ops {
			if op.IsRetraction() {
				retracts = true
				break
			}
		}
		if !retracts {
			return nil
		}
	}
	var err error
	if j.hashes, err = probe.rowHashes(cols, n, j.hashes); err != nil {
		return fmt.Errorf("hash join: %w", err)
	}
	return nil
}

// hashKeys sets j.nonNull to whether each of the n rows of keyCols has a
// join key without NULLs, and j.khashes to the keys' hashes (exec.HashRows,
// as the exchange hashes them). A cross join's key is empty, and every row
// has it.
func (j *HashJoin) hashKeys(keyCols []arrow.Array, n int) error {
	j.nonNull = vec.Resize(j.nonNull, n)
	j.khashes = vec.Resize(j.khashes, n)
	some := false
	for i := range n {
		j.nonNull[i] = true
		for _, kc := range keyCols {
			if kc.IsNull(i) {
				j.nonNull[i] = false
				break
			}
		}
		some = some || j.nonNull[i]
	}
	if !some {
		return nil // an untyped NULL key column, which does not hash, has no key
	}
	if err := exec.HashRows(keyCols, j.khashes); err != nil {
		return fmt.Errorf("hash join: %w", err)
	}
	return nil
}

// filterResidual keeps the candidate pairs for which the residual
// condition is TRUE.
func (j *HashJoin) filterResidual(in int, c exec.Chunk, other *side) error {
	if j.resid == nil || len(j.cand) == 0 {
		return nil
	}
	probeCols, err := takeColumns(j.env, c.Batch, j.cand)
	if err != nil {
		return err
	}
	otherCols := make([]arrow.Array, len(other.types))
	for k := range otherCols {
		otherCols[k] = other.store.Gather(j.env.Alloc, k, j.candIDs)
	}
	pairCols := append(probeCols, otherCols...)
	if in == 1 {
		pairCols = append(otherCols, probeCols...)
	}
	fields := make([]arrow.Field, len(pairCols))
	for k, a := range pairCols {
		fields[k] = arrow.Field{Name: fmt.Sprintf("c%d", k), Type: a.DataType(), Nullable: true}
	}
	pairs := array.NewRecordBatch(arrow.NewSchema(fields, nil), pairCols, int64(len(j.cand)))
	for _, a := range pairCols {
		a.Release()
	}
	defer pairs.Release()
	j.keep, err = j.resid.Select(j.env.Alloc, pairs, j.keep[:0])
	if err != nil {
		return fmt.Errorf("hash join: condition %s: %w", j.cfg.Residual, err)
	}
	for k, idx := range j.keep {
		j.cand[k], j.candIDs[k] = j.cand[idx], j.candIDs[idx]
	}
	j.cand, j.candIDs = j.cand[:len(j.keep)], j.candIDs[:len(j.keep)]
	return nil
}

func takeColumns(env *exec.Env, b arrow.RecordBatch, sel []int32) ([]arrow.Array, error) {
	out := make([]arrow.Array, b.NumCols())
	for k := range out {
		a, err := expr.Take(env.Alloc, b.Column(k), sel)
		if err != nil {
			for _, x := range out[:k] {
				x.Release()
			}
			return nil, err
		}
		out[k] = a
	}
	return out, nil
}

var errRetractUnknown = errors.New("hash join: a retraction of a row the join never received")
