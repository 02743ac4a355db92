package join

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/arrays"
	"github.com/eddysql/eddy/exec/internal/rowkey"
	"github.com/eddysql/eddy/exec/internal/rowstore"
)

// restored is what Restore read of one side's rows, before they are
// indexed: by row, its id in the store, its entry's group and identity,
// and the join key its entry key holds (concatenated).
type restored struct {
	ids    []int32
	groups []int
	idents []uint64
	keys   []byte
	ends   []int
}

// Restore implements exec.Stateful: it rebuilds both sides' rows of the
// key groups in groups — with their match counts, and for a windowed join
// their deadlines and the last watermark — and a lookup join's pending
// stream rows. A broadcast join also reads the right side's rows of every
// other key group, which every instance holds, unless it is windowed
// (each instance's replica is in its own groups).
func (j *HashJoin) Restore(ctx context.Context, r exec.StateReader, groups exec.KeyGroupRange) error {
	if j.env == nil {
		return errors.New("hash join: Restore before Open")
	}
	if groups != j.env.KeyGroups {
		return fmt.Errorf("%w: key groups %v, but the instance owns %v", errRestore, groups, j.env.KeyGroups)
	}
	scan := groups
	var mv *relayout
	if j.cfg.Relayout && j.env.Relayout {
		// The checkpoint's plan placed this join's rows otherwise: read
		// all of them to move this instance's (relayout.go). Otherwise they
		// are in the key groups the instance owns, as for any join.
		mv = &relayout{}
	}
	if (j.cfg.Broadcast && !j.perInstance(1)) || mv != nil {
		scan = exec.KeyGroupRange{Lo: 0, Hi: exec.NumKeyGroups}
	}
	return j.restoreScan(ctx, r, []exec.KeyGroupRange{scan}, mv, noWatermark)
}

// restoreScan adds to the state the rows (and a lookup join's pending
// stream rows) of the entries of the key groups scans, and sets the
// watermark of a windowed join to the highest of wm and the ones read.
// Restore scans every group it reads at once; a move (move.go) scans the
// groups it gains onto the state it kept. mv is set for a restore of
// another layout (relayout.go).
func (j *HashJoin) restoreScan(ctx context.Context, r exec.StateReader, scans []exec.KeyGroupRange, mv *relayout, wm int64) error {
	groups := j.env.KeyGroups
	if j.ttl != nil {
		j.ttl.now = j.env.Now().UnixMilli() // restored keys count as accessed now
	}
	for _, s := range j.sides {
		// The rows restored are the checkpoint's: what changes after
		// them is what the next snapshot writes.
		s.changes.Track()
	}
	var rows [2]restored
	var pend restored
	var pendOps []exec.Op
	scan := func(g int, key, value []byte) error {
		own := groups.Contains(g)
		if len(key) > 0 && key[0] == tagMeta {
			if !own {
				return nil
			}
			if mv != nil && len(key) == 2 && key[1] == metaRange {
				if err := j.restoreRange(mv, g, key, value); err != nil {
					return fmt.Errorf("%w: key group %d: %w", errRestore, g, err)
				}
				return nil
			}
			v, err := j.restoreMeta(key, value, groups)
			if err != nil {
				return fmt.Errorf("%w: key group %d: %w", errRestore, g, err)
			}
			wm = max(wm, v)
			return nil
		}
		tag, jk, ident, err := rowstore.SplitEntryKey(key)
		if err != nil {
			return fmt.Errorf("%w: key group %d: entry %q: %w", errRestore, g, key, err)
		}
		switch {
		case tag == tagPending && j.cfg.Lookup:
			if mv != nil {
				// Every group's: relayoutPending keeps this instance's.
				// Sequence numbers handed out later are greater.
				j.ck.pendSeq = max(j.ck.pendSeq, ident)
			} else if !own {
				return nil
			}
			if len(jk) != 0 || len(value) == 0 || value[0] > byte(exec.UpdateAfter) {
				return fmt.Errorf("%w: key group %d: bad pending entry %q", errRestore, g, key)
			}
			id, rest, err := j.sides[0].store.AddEncoded(value[1:])
			if err == nil && len(rest) != 0 {
				j.sides[0].store.Remove(id)
				err = fmt.Errorf("%d bytes after the row", len(rest))
			}
			if err != nil {
				return fmt.Errorf("%w: key group %d: pending entry %q: %w", errRestore, g, key, err)
			}
			pend.add(id, g, ident, nil)
			pendOps = append(pendOps, exec.Op(value[0]))
			return nil
		case tag == tagLeft && !j.cfg.Lookup, tag == tagRight:
			in := int(tag)
			switch {
			case mv != nil && in == 0:
				// Every group's left rows: relayoutLeft keeps this
				// instance's.
			case mv != nil && !j.cfg.Broadcast && !own:
				return nil // another instance's right rows
			case j.perInstance(in) && !own:
				return nil // another instance's forwarded rows, or replica
			}
			if err := j.restoreRow(&rows[in], j.sides[in], g, jk, ident, value); err != nil {
				return fmt.Errorf("%w: key group %d: entry %q: %w", errRestore, g, key, err)
			}
			return nil
		}
		return fmt.Errorf("%w: key group %d: entry %q: unknown tag %d", errRestore, g, key, tag)
	}
	for _, sc := range scans {
		if err := r.Scan(ctx, sc, scan); err != nil {
			return err
		}
	}
	if mv != nil {
		if err := j.relayoutLeft(&rows[0], mv); err != nil {
			return fmt.Errorf("%w: %w", errRestore, err)
		}
	}
	for in, s := range j.sides {
		if err := j.indexRestored(in, s, &rows[in]); err != nil {
			return fmt.Errorf("%w: %w", errRestore, err)
		}
	}
	if mv != nil {
		var err error
		if pendOps, err = j.relayoutPending(&pend, pendOps); err != nil {
			return fmt.Errorf("%w: %w", errRestore, err)
		}
	}
	if err := j.restorePending(&pend, pendOps); err != nil {
		return fmt.Errorf("%w: %w", errRestore, err)
	}
	if mv != nil && len(pend.ids) > 0 {
		// Their entries were deleted: the next snapshot writes them anew,
		// in this join's layout.
		j.ck.pendSaved, j.ck.pendGroups, j.ck.pendSeqs = 0, j.ck.pendGroups[:0], j.ck.pendSeqs[:0]
	}
	if j.cfg.Windowed {
		// The watermark entries of the groups read may be behind wm (a
		// group moved in from an instance that was behind): the next
		// snapshot writes wm in every group the instance owns, so that
		// each holds the instance's own watermark after it, which a move
		// that keeps groups in place relies on (move.go).
		j.ck.wm, j.ck.savedWM, j.ck.floor = wm, noWatermark, wm
	}
	j.gauge()
	return nil
}

// restoreStep is the fewest rows a restore makes room for at once. It
// does not know how many it reads; it makes room for as many again as it
// has read (the row store's columns too), so that its slices are copied
// about once in all, where growing each by append copies them about four
// times (append grows a large slice by a quarter).
const restoreStep = 1024

// reserve makes room for n more rows.
func (r *restored) reserve(n int) {
	r.ids, r.groups, r.idents = slices.Grow(r.ids, n), slices.Grow(r.groups, n), slices.Grow(r.idents, n)
	r.ends = slices.Grow(r.ends, n)
}

// add appends a restored row.
func (r *restored) add(id int32, g int, ident uint64, key []byte) {
	if len(r.ids) == cap(r.ids) {
		r.reserve(max(len(r.ids), restoreStep))
	}
	if len(r.keys)+len(key) > cap(r.keys) {
		r.keys = slices.Grow(r.keys, max(len(r.keys), len(key), 16*restoreStep))
	}
	r.ids, r.groups, r.idents = append(r.ids, id), append(r.groups, g), append(r.idents, ident)
	r.keys = append(r.keys, key...)
	r.ends = append(r.ends, len(r.keys))
}

// distinctKeys returns the number of distinct join keys of the rows of r,
// an entry scan's: a key group's entries are in key order, so the rows of
// one join key are adjacent.
func (r *restored) distinctKeys() int {
	n, start := 0, 0
	var prev []byte
	for k, end := range r.ends {
		key := r.keys[start:end]
		start = end
		if k == 0 || r.groups[k] != r.groups[k-1] || !bytes.Equal(key, prev) {
			n++
		}
		prev = key
	}
	return n
}

// restoreMeta checks a meta entry and returns the watermark it holds, if
// it is one (else noWatermark).
func (j *HashJoin) restoreMeta(key, value []byte, groups exec.KeyGroupRange) (int64, error) {
	switch {
	case len(key) == 2 && key[1] == metaWatermark && j.cfg.Windowed:
		v, n := binary.Varint(value)
		if n <= 0 || n != len(value) {
			return 0, errors.New("bad watermark entry")
		}
		return v, nil
	case len(key) == 2 && key[1] == metaRange && j.cfg.Broadcast:
		lo, n := binary.Uvarint(value)
		hi, m := binary.Uvarint(value[max(n, 0):])
		if n <= 0 || m <= 0 || n+m != len(value) {
			return 0, errors.New("bad range entry")
		}
		if lo != uint64(groups.Lo) || hi != uint64(groups.Hi) {
			return 0, fmt.Errorf("%w: the checkpoint's instance owned key groups [%d, %d), this one owns [%d, %d)",
				errRescaledBroadcast, lo, hi, groups.Lo, groups.Hi)
		}
		return noWatermark, nil
	}
	return 0, fmt.Errorf("unknown meta entry %q", key)
}

// restoreRow puts the row of an entry of side s into its store and
// appends it to r.
func (j *HashJoin) restoreRow(r *restored, s *side, g int, key []byte, ident uint64, value []byte) error {
	if len(r.ids) == cap(r.ids) {
		n := max(len(r.ids), restoreStep)
		r.reserve(n)
		s.store.Reserve(n)
		if s.counted {
			s.matches = slices.Grow(s.matches, n)
		}
	}
	id, rest, err := s.store.AddEncoded(value)
	if err != nil {
		return err
	}
	r.add(id, g, ident, key)
	if s.counted {
		m, n := binary.Uvarint(rest)
		if n <= 0 || m > math.MaxInt32 {
			return errors.New("bad match count")
		}
		for int(id) >= len(s.matches) {
			s.matches = append(s.matches, 0)
		}
		s.matches[id] = int32(m)
		rest = rest[n:]
	}
	if len(rest) != 0 {
		return fmt.Errorf("%d bytes after the row", len(rest))
	}
	return nil
}

// indexRestored checks that each restored row of side s (input in) is
// under its join key and in its key group, and indexes it: its bucket,
// its identity, and for a windowed join its deadline.
func (j *HashJoin) indexRestored(in int, s *side, r *restored) error {
	if len(r.ids) == 0 {
		return nil
	}
	keyCols, err := j.keyHashes(s, r.ids)
	if err != nil {
		return err
	}
	defer arrays.Release(keyCols)
	var times arrow.Array
	if j.cfg.Windowed {
		times = s.store.Gather(j.env.Alloc, s.timeCol, r.ids)
		defer times.Release()
	}
	s.reserve(r)
	start := 0
	for k, id := range r.ids {
		if k%peekAhead == 0 {
			// Touch the next rows' index slots first, so that their
			// misses overlap (peekRows).
			var sum uint64
			for _, h := range j.ck.hashes[k:min(k+peekAhead, len(r.ids))] {
				sum += s.peek(h)
			}
			j.peeked += sum
		}
		stored := r.keys[start:r.ends[k]]
		start = r.ends[k]
		j.keyBuf = rowkey.Append(append(j.keyBuf[:0], 1), keyCols, k)
		switch {
		case hasNull(keyCols, k):
			return fmt.Errorf("key group %d: a kept row with a NULL join key", r.groups[k])
		case !bytes.Equal(j.keyBuf, stored):
			return fmt.Errorf("key group %d: a row under join key %q has key %q", r.groups[k], stored, j.keyBuf)
		case times != nil && times.IsNull(k):
			return fmt.Errorf("key group %d: a kept row of a windowed join without a time", r.groups[k])
		}
		h := j.ck.hashes[k]
		g := j.groupOf(in, h)
		if g != r.groups[k] {
			return fmt.Errorf("key group %d: a row of key group %d", r.groups[k], g)
		}
		s.insert(s.bucketFor(h, keyCols, k), id, 0)
		if r.idents[k] == 0 {
			s.changes.Mark(id) // moved (relayoutLeft): written anew in group g
		} else {
			s.changes.Restored(id, g, r.idents[k], j.env.KeyGroups.Contains(g))
		}
		if times != nil {
			s.track(id, timeValue(times, k))
		}
	}
	return nil
}

// hasNull reports whether row i of cols has a NULL.
func hasNull(cols []arrow.Array, i int) bool {
	for _, c := range cols {
		if c.IsNull(i) {
			return true
		}
	}
	return false
}

// restorePending rebuilds a lookup join's pending stream rows: one chunk
// of the restored rows, in the order of their entries.
func (j *HashJoin) restorePending(r *restored, ops []exec.Op) error {
	if len(r.ids) == 0 {
		return nil
	}
	left := j.sides[0]
	cols := make([]arrow.Array, len(left.types))
	fields := make([]arrow.Field, len(left.types))
	for k, t := range left.types {
		cols[k] = left.store.Gather(j.env.Alloc, k, r.ids)
		fields[k] = types.Field(fmt.Sprintf("c%d", k), t, true)
	}
	batch := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(len(r.ids)))
	arrays.Release(cols)
	for _, id := range r.ids {
		left.store.Remove(id)
	}
	j.pending = append(j.pending, exec.Chunk{Batch: batch, Ops: ops})
	ck := &j.ck
	ck.pendSaved = len(j.pending)
	ck.pendGroups, ck.pendSeqs = append(ck.pendGroups, r.groups...), append(ck.pendSeqs, r.idents...)
	for _, s := range r.idents {
		ck.pendSeq = max(ck.pendSeq, s)
	}
	return nil
}
