package join

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/arrays"
)

var errWindowedRetraction = errors.New("hash join: an outer interval or window join received a retraction; its inputs must only append")

// staleCompactMin is the fewest stale entries a side's deadlines keep
// before they drop them all: they are filtered (linear in their size) when
// at least this many and half their entries are stale, so that
// retractions cost amortized constant time and the deadlines hold at most
// twice the live rows' entries (plus this many).
const staleCompactMin = 1024

// track records the deadline of row id of a windowed join side, of time
// t.
func (s *side) track(id int32, t int64) {
	for int(id) >= len(s.gen) {
		s.gen = append(s.gen, 0)
	}
	s.gen[id]++ // wraps after 2^32 rows of one id, long after a stale entry of it is gone
	at := t + s.offset
	if g := s.grain; g > 1 && at < math.MaxInt64-g {
		at = (at + g - 1) &^ (g - 1)
	}
	s.deadline.push(at, id, s.gen[id])
}

// deadlineGrain returns the grain of a windowed join side's deadlines
// (side.grain) for a bound of span milliseconds between the sides' times
// (Hi - Lo): the largest power of two at most a 64th of it. A row is then
// freed up to that much event time after it could first be, holding at
// most about a 64th more of the side's rows, and an interval join whose
// rows each have their own millisecond (q7: 10 s, rounded to 128 ms) keeps
// a bucket, a map entry and a heap entry per 128 ms instead of per
// millisecond. Freeing a row later changes no result, since every match
// is checked against the join's condition; but an outer join emits a
// padded row when it frees it, so a padded side keeps exact deadlines.
func deadlineGrain(span int64, padded bool) int64 {
	g := int64(1)
	if padded {
		return g
	}
	for 2*g <= span/64 {
		g *= 2
	}
	return g
}

// untrack forgets the deadline of row id, retracted: its entry is stale
// from now on.
func (s *side) untrack(id int32) {
	s.gen[id]++
	s.stale++
	if d := &s.deadline; s.stale >= staleCompactMin && 2*s.stale >= d.len() {
		d.filter(s.current)
		s.stale = 0
	}
}

// current reports whether e is its row's current deadline entry, not a
// stale one.
func (s *side) current(e deadlineEntry) bool { return e.gen == s.gen[e.id] }

// popDue removes the entries whose deadline is below wm and appends the
// ids of the rows they free to ids, skipping stale entries.
func (s *side) popDue(wm int64, ids []int32) []int32 {
	s.deadline.popDue(wm, func(e deadlineEntry) {
		if !s.current(e) {
			s.stale--
			return
		}
		ids = append(ids, e.id)
	})
	return ids
}

// timeValue reads row i of a TIMESTAMP column as milliseconds.
func timeValue(a arrow.Array, i int) int64 {
	if ts, ok := a.(*array.Timestamp); ok {
		return int64(ts.Value(i))
	}
	return a.(*array.Int64).Value(i)
}

// evict frees, on both sides of a windowed join, the rows no later row can
// match once the watermark is wm, and emits the outer join's padding for
// those that never matched.
func (j *HashJoin) evict(ctx context.Context, wm int64, out exec.Emitter) error {
	for in, s := range j.sides {
		ids := s.popDue(wm, nil)
		if len(ids) == 0 {
			continue
		}
		var pad []int32
		if s.padded {
			for _, id := range ids {
				if s.matches[id] == 0 {
					pad = append(pad, id)
				}
			}
		}
		if len(pad) > 0 {
			if err := j.emitPadded(ctx, in, s, pad, out); err != nil {
				return err
			}
		}
		var hs []uint64
		if s.idx.live > 0 && s.dropEvictedIndexes(ids) {
			var err error
			if hs, err = s.storedHashes(j.env.Alloc, ids); err != nil {
				return fmt.Errorf("hash join: %w", err)
			}
		}
		for k, id := range ids {
			if k%peekAhead == 0 {
				j.peekBuckets(s, ids[k:min(k+peekAhead, len(ids))])
			}
			var h uint64
			if hs != nil {
				h = hs[k]
			}
			s.removeRow(s.bucketOf.At(id), id, h)
		}
	}
	j.gauge()
	return nil
}

// emitPadded emits the rows ids of side s (input in), each padded with
// NULLs for the other side, as inserts.
func (j *HashJoin) emitPadded(ctx context.Context, in int, s *side, ids []int32, out exec.Emitter) error {
	alloc := j.env.Alloc
	other := j.sides[1-in]
	var mine, nulls []arrow.Array
	for k := range s.types {
		mine = append(mine, s.store.Gather(alloc, k, ids))
	}
	for _, t := range other.types {
		nulls = append(nulls, array.MakeArrayOfNull(alloc, t.Arrow(), len(ids)))
	}
	cols := append(mine, nulls...)
	if in == 1 {
		cols = append(nulls, mine...)
	}
	return arrays.Emit(ctx, out, j.schema, cols, len(ids), nil)
}
