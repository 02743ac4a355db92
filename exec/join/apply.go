package join

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/arrays"
	"github.com/eddysql/eddy/planner/plan"
)

// apply emits the changes row i of the probe side (input in) makes to the
// join result, given its matches among the other side's rows, and updates
// the state. keyCols are the chunk's join key columns; j.nonNull[i] is
// false when the row's key has a NULL (it matches nothing and is not
// kept), and j.khashes[i] is its key's hash.
func (j *HashJoin) apply(in int, probe, other *side, cols, keyCols []arrow.Array, i int, matches []int32, insert bool) error {
	kind := j.cfg.Kind
	semi := kind == plan.SemiJoin || kind == plan.AntiJoin
	op, inv := exec.Insert, exec.Delete
	if !insert {
		op, inv = exec.Delete, exec.Insert
	}
	probePad := in == 0 && kind.PreservesLeft() || in == 1 && kind.PreservesRight()
	otherPad := in == 1 && kind.PreservesLeft() || in == 0 && kind.PreservesRight()
	windowed := j.cfg.Windowed
	keyed := j.nonNull[i]
	if windowed {
		if !insert && kind != plan.InnerJoin {
			return errWindowedRetraction
		}
		// A windowed join pads a row when it is freed, not now; and the
		// rows it pads were never output padded, so a match only adds.
		otherPad = false
		if cols[probe.timeCol].IsNull(i) {
			keyed = false // no time: it matches nothing and is never freed by a watermark
		}
		if keyed {
			probePad = false // padded when freed, if it never matched
		}
	}
	var h uint64
	if len(j.hashes) > i {
		h = j.hashes[i] // computed for this chunk when a row index may read it
	}
	// A retraction finds the row it removes first: with a state TTL, the
	// row may have been evicted, and its retraction then changes nothing.
	b, id := int32(noRow), int32(noRow)
	if !insert && keyed && !(j.cfg.Lookup && in == 0) {
		b = probe.lookup(j.khashes[i], keyCols, i)
		var err error
		if id, err = probe.find(j.env.Alloc, b, h, cols, i); err != nil {
			return err
		}
		if id == noRow {
			if j.ttl != nil {
				j.ttl.ignored.Add(1)
				return nil
			}
			return errRetractUnknown
		}
	}
	for _, o := range matches {
		// A counted row of the other side whose count leaves or reaches
		// zero changes what it contributes on its own.
		flips := false
		if other.counted {
			if other.pend.Has(o) {
				j.save(other, o) // its entry holds the count as at the barrier
			}
			if insert {
				flips = other.matches[o] == 0
				other.matches[o]++
			} else {
				other.matches[o]--
				flips = other.matches[o] == 0
			}
			other.changes.Mark(o) // its entry holds the count
		}
		switch {
		case semi:
			// Only a left row is output; here the other side is the left.
			if flips {
				if kind == plan.SemiJoin {
					j.out(-1, o, op)
				} else {
					j.out(-1, o, inv)
				}
			}
		case otherPad && flips && insert:
			j.out(-1, o, exec.Delete) // the padded row gives way to its first match
			j.out(int32(i), o, op)
		case otherPad && flips:
			j.out(int32(i), o, op)
			j.out(-1, o, exec.Insert) // its last match left: padded again
		default:
			j.out(int32(i), o, op)
		}
	}
	switch {
	case semi && in == 0:
		if (kind == plan.SemiJoin) == (len(matches) > 0) {
			j.out(int32(i), -1, op)
		}
	case probePad && len(matches) == 0:
		j.out(int32(i), -1, op)
	}
	if !keyed || j.cfg.Lookup && in == 0 {
		return nil // a NULL key matches nothing, and a lookup keeps no stream row
	}
	if insert {
		id := probe.addRow(j.khashes[i], keyCols, cols, i, h)
		if windowed {
			probe.track(id, timeValue(cols[probe.timeCol], i))
		}
		if probe.counted {
			for int(id) >= len(probe.matches) {
				probe.matches = append(probe.matches, 0)
			}
			probe.matches[id] = int32(len(matches))
		}
		return nil
	}
	if windowed {
		probe.untrack(id)
	}
	probe.removeRow(b, id, h)
	if probe.buckets.Ref(b).n > 0 {
		probe.touch(b)
	}
	return nil
}

func (j *HashJoin) out(p, o int32, op exec.Op) {
	j.outP = append(j.outP, p)
	j.outO = append(j.outO, o)
	j.outOps = append(j.outOps, op)
}

// emit builds and emits the output rows collected for one input chunk.
func (j *HashJoin) emit(ctx context.Context, in int, c exec.Chunk, other *side, out exec.Emitter) error {
	n := len(j.outP)
	if n == 0 {
		return nil
	}
	alloc := j.env.Alloc
	semi := j.cfg.Kind == plan.SemiJoin || j.cfg.Kind == plan.AntiJoin
	var probeCols, otherCols []arrow.Array
	if !semi || in == 0 {
		for k := 0; k < int(c.Batch.NumCols()); k++ {
			a, err := arrays.TakeNullable(alloc, c.Batch.Column(k), j.outP)
			if err != nil {
				arrays.Release(probeCols)
				return err
			}
			probeCols = append(probeCols, a)
		}
	}
	if !semi || in == 1 {
		for k := range other.types {
			otherCols = append(otherCols, other.store.Gather(alloc, k, j.outO))
		}
	}
	cols := append(probeCols, otherCols...)
	if in == 1 {
		cols = append(otherCols, probeCols...)
	}
	ops := make([]exec.Op, n)
	copy(ops, j.outOps)
	return arrays.Emit(ctx, out, j.schema, cols, n, ops)
}

// gauge publishes the state size.
func (j *HashJoin) gauge() {
	var rows, bytes, arrowBytes int64
	for _, s := range j.sides {
		rows += int64(s.store.Live())
		bytes += s.store.Bytes() + 4*int64(len(s.matches)) + s.indexBytes() + s.changes.Bytes() + s.ttlBytes()
		arrowBytes += s.store.ArrowBytes()
	}
	j.env.Metrics.StateKeys.Store(rows)
	j.env.Metrics.StateBytes.Store(bytes)
	j.env.Metrics.StateArrowBytes.Store(arrowBytes)
	if j.rightRows != nil {
		r := j.sides[1]
		j.rightRows.Store(int64(r.store.Live()))
		j.rightBytes.Store(r.store.LiveBytes())
	}
}

// OnControl implements Operator: a regular join keeps its state whatever
// the watermark says, while a windowed join frees what the watermark
// passed. A lookup join starts looking up the stream rows it
// held once its table side has caught up.
func (j *HashJoin) OnControl(ctx context.Context, m exec.Control, out exec.Emitter) error {
	if j.cfg.Windowed && m.Kind == exec.Watermark && !m.Idle {
		if m.Watermark <= j.ck.floor {
			return nil // sent again after a restore: it passed before the checkpoint
		}
		j.ck.floor = noWatermark
		j.ck.wm = max(j.ck.wm, m.Watermark)
		return j.evict(ctx, m.Watermark, out)
	}
	if !j.waiting || m.Kind != exec.CaughtUp || m.Input == 0 {
		return nil
	}
	j.waiting = false
	pending := j.pending
	j.pending = nil
	j.ck.lookedUp()
	for i, c := range pending {
		err := j.Process(ctx, 0, c, out)
		c.Batch.Release()
		if err != nil {
			for _, rest := range pending[i+1:] {
				rest.Batch.Release()
			}
			return err
		}
	}
	return nil
}

// Close implements Operator.
func (j *HashJoin) Close() error {
	for _, c := range j.pending {
		c.Batch.Release()
	}
	j.pending = nil
	j.sides = [2]*side{}
	j.snap = pendingSnap{} // a snapshot left pending is the failed job's
	j.env = nil
	return nil
}
