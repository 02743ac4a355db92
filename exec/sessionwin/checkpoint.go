package sessionwin

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/exec/internal/arrays"
	"github.com/eddysql/eddy/exec/internal/vec"
)

// The SESSION aggregate's checkpoints (exec.Stateful). Each group key with
// open sessions is one entry, in the key group of its key, computed by
// exec.HashRows over the group key columns as the hash exchange in front
// of the operator computes it for the key's rows (without group keys, the
// one group is in the instance's first key group):
//
//   - key: the group key as encodeKeys writes it (per column a tag byte, 0
//     NULL or 1 value, then the value's bytes); without group keys,
//     globalKey;
//   - value: the key columns that hold a double's -0 (a uvarint count, then
//     their ordinals; the key encodes -0 as 0, and the output shows the
//     value the key's first row had), the number of open sessions (a
//     uvarint), then each session in order of start: its start (a varint),
//     its last row's time less its start, its creation number and its row
//     count (uvarints), and every aggregate's state (accum's AppendState).
//
// That is all the operator needs to continue as an uninterrupted run: in
// running mode, every open session's current row is in the output at a
// barrier (the output follows every chunk), so a restored session is
// marked emitted and its next change retracts exactly that row, computed
// again from the same accumulator state; with EMIT ON WINDOW CLOSE no open
// session has been emitted, and the close heap is rebuilt from the
// sessions' ends and creation numbers. The operator keeps no watermark:
// sessions close when a watermark reaches them, and a restored session
// ends after the last watermark before the barrier (it would have closed
// otherwise).
//
// A snapshot writes only the group keys whose sessions changed: a chunk
// marks the group of every session it touches (a flag and a list), closing
// a session marks its group, and a group whose last session closed records
// its entry key for a Delete if a snapshot stored it. The first snapshot
// writes every group: until then nothing is tracked, so an operator never
// checkpointed keeps no list of changes.
const globalKey = "\x02"

// errRestore is wrapped by every error of a restore.
var errRestore = errors.New("SESSION: restore")

// errEntry is wrapped by the errors of an entry that does not decode.
var errEntry = errors.New("damaged entry")

// delta is what changed since the last snapshot.
type delta struct {
	track   bool        // a snapshot was taken or restored: changes are tracked
	groups  []*keyGroup // the groups marked dirty, possibly dropped since
	delKeys []byte      // the entry keys of the stored groups dropped, concatenated
	delEnds []int       // the end of each in delKeys
	delKGs  []int32     // and its key group

	// Snapshot's scratch.
	put     []*keyGroup
	hash    []*keyGroup // the groups of put whose key group is unknown
	hashes  []uint64
	keyVecs []accum.Vector
	rows    []accum.OutRow
	out     accum.Out
	value   []byte
}

// markDirty records that g changed.
func (w *Agg) markDirty(g *keyGroup) {
	if w.delta.track && !g.dirty {
		g.dirty = true
		w.delta.groups = append(w.delta.groups, g)
	}
}

// groupGone records that g, dropped, no longer has an entry.
func (w *Agg) groupGone(g *keyGroup) {
	if d := &w.delta; g.stored {
		d.delKeys = append(d.delKeys, w.entryKey(g)...)
		d.delEnds = append(d.delEnds, len(d.delKeys))
		d.delKGs = append(d.delKGs, g.kg)
	}
}

// entryKey returns the entry key of g.
func (w *Agg) entryKey(g *keyGroup) string {
	if len(w.cfg.GroupKeys) == 0 {
		return globalKey
	}
	return g.mapKey
}

// bytes estimates the memory of the delta.
func (d *delta) bytes() int64 {
	return int64(cap(d.groups)+cap(d.put)+cap(d.hash))*8 + int64(cap(d.delKeys)) + int64(cap(d.delEnds))*8 +
		int64(cap(d.delKGs))*4 + int64(cap(d.value))
}

// Snapshot writes the groups changed since the last snapshot (every group,
// the first time): a Delete for each stored group whose last session
// closed, then a Put for each changed group with open sessions.
func (w *Agg) Snapshot(_ context.Context, _ uint64, sw exec.StateWriter) error {
	if w.groups == nil {
		return errors.New("SESSION: Snapshot before Open")
	}
	d := &w.delta
	start := 0
	for i, end := range d.delEnds {
		if err := sw.Delete(int(d.delKGs[i]), d.delKeys[start:end]); err != nil {
			return err
		}
		start = end
	}
	d.put, d.hash = d.put[:0], d.hash[:0]
	if d.track {
		for _, g := range d.groups {
			if len(g.open) > 0 { // a dropped group has none
				d.put = append(d.put, g)
			}
		}
	} else {
		for _, g := range w.groups {
			d.put = append(d.put, g)
		}
	}
	for _, g := range d.put {
		if !g.stored {
			d.hash = append(d.hash, g)
		}
	}
	if err := w.keyGroups(d.hash); err != nil {
		return fmt.Errorf("SESSION: snapshot: %w", err)
	}
	for _, g := range d.put {
		val, err := w.appendGroup(d.value[:0], g)
		d.value = val
		if err != nil {
			return fmt.Errorf("SESSION: snapshot: %w", err)
		}
		if err := sw.Put(int(g.kg), []byte(w.entryKey(g)), val); err != nil {
			return err
		}
		g.stored = true
	}
	for _, g := range d.groups {
		g.dirty = false
	}
	clear(d.groups)
	clear(d.put)
	clear(d.hash)
	d.groups, d.put, d.hash = d.groups[:0], d.put[:0], d.hash[:0]
	d.delKeys, d.delEnds, d.delKGs = d.delKeys[:0], d.delEnds[:0], d.delKGs[:0]
	d.track = true
	w.updateStateMetrics()
	return nil
}

// keyGroups sets the key group of each of gs: the instance's first
// without group keys, else that of exec.HashRows over the key's values,
// built as Arrow arrays of the input's types, as the exchange hashes the
// rows.
func (w *Agg) keyGroups(gs []*keyGroup) error {
	if len(gs) == 0 {
		return nil
	}
	if len(w.cfg.GroupKeys) == 0 {
		for _, g := range gs {
			g.kg = int32(w.env.KeyGroups.Lo)
		}
		return nil
	}
	d := &w.delta
	n := len(gs)
	if len(d.keyVecs) != len(w.cfg.GroupKeys) {
		d.keyVecs = make([]accum.Vector, len(w.cfg.GroupKeys))
		for c, ord := range w.cfg.GroupKeys {
			d.keyVecs[c].Kind, _ = accum.KindOf(w.cfg.Input[ord])
		}
	}
	d.rows = vec.Resize(d.rows, n)
	for j := range d.rows {
		d.rows[j] = accum.OutRow{J: int32(j)}
	}
	cols := make([]arrow.Array, len(d.keyVecs))
	defer arrays.Release(cols)
	for c := range d.keyVecs {
		v := &d.keyVecs[c]
		v.Resize(n)
		for j, g := range gs {
			setDatum(v, j, g.key[c])
		}
		col, err := d.out.Column(w.env.Alloc, w.builders[c], v, v, d.rows)
		clear(v.S)
		if err != nil {
			return err
		}
		cols[c] = col
	}
	d.hashes = vec.Resize(d.hashes, n)
	if err := exec.HashRows(cols, d.hashes); err != nil {
		return err
	}
	for j, g := range gs {
		g.kg = int32(exec.KeyGroup(d.hashes[j]))
	}
	return nil
}

// appendGroup appends the entry value of g.
func (w *Agg) appendGroup(buf []byte, g *keyGroup) ([]byte, error) {
	nz := 0
	for _, v := range g.key {
		if negZero(v.F, v.Null) {
			nz++
		}
	}
	buf = binary.AppendUvarint(buf, uint64(nz))
	for c, v := range g.key {
		if negZero(v.F, v.Null) {
			buf = binary.AppendUvarint(buf, uint64(c))
		}
	}
	buf = binary.AppendUvarint(buf, uint64(len(g.open)))
	for _, s := range g.open {
		buf = binary.AppendVarint(buf, s.start)
		buf = binary.AppendUvarint(buf, uint64(s.last-s.start))
		buf = binary.AppendUvarint(buf, s.seq)
		buf = binary.AppendUvarint(buf, w.arena.Row(s.slot)[rowsWord])
		for i, a := range w.aggs {
			var err error
			if buf, err = a.AppendState(s.slot, buf); err != nil {
				return buf, fmt.Errorf("aggregate %d: %w", i, err)
			}
		}
	}
	return buf, nil
}

// negZero reports whether a key value is a double's -0 (an integer's
// Datum holds F 0).
func negZero(f float64, null bool) bool { return !null && f == 0 && math.Signbit(f) }

// readNegZeros reads the list of key columns holding -0 from the start of
// b into vals, and returns the bytes after it.
func readNegZeros(vals []types.Datum, b []byte) ([]byte, error) {
	n, b, err := readUvarint(b)
	if err != nil || n > uint64(len(vals)) {
		return b, fmt.Errorf("%w: bad list of -0 keys", errEntry)
	}
	for range n {
		var c uint64
		if c, b, err = readUvarint(b); err != nil || c >= uint64(len(vals)) || vals[c].Null || vals[c].F != 0 {
			return b, fmt.Errorf("%w: bad list of -0 keys", errEntry)
		}
		vals[c].F = math.Copysign(0, -1)
	}
	return b, nil
}

// Restore rebuilds the groups of the key groups in groups from the
// entries of the last checkpoint: their keys, open sessions and aggregate
// states, the close heap, and, in running mode, that every session's row
// is in the output.
func (w *Agg) Restore(ctx context.Context, r exec.StateReader, groups exec.KeyGroupRange) error {
	if w.groups == nil {
		return errors.New("SESSION: Restore before Open")
	}
	err := r.Scan(ctx, groups, func(kg int, key, value []byte) error {
		if err := w.restoreGroup(kg, key, value); err != nil {
			return fmt.Errorf("%w: key group %d: entry %q: %w", errRestore, kg, key, err)
		}
		return nil
	})
	w.delta.track = true
	w.updateStateMetrics()
	return err
}

// restoreGroup creates the group of an entry with its sessions.
func (w *Agg) restoreGroup(kg int, key, value []byte) error {
	mapKey := string(key)
	if len(w.cfg.GroupKeys) == 0 {
		if mapKey != globalKey {
			return fmt.Errorf("%w: not the key of a SESSION without group keys", errEntry)
		}
		mapKey = ""
	}
	if w.groups[mapKey] != nil {
		return fmt.Errorf("%w: group key seen twice", errEntry)
	}
	vals, err := w.decodeKey(mapKey)
	if err != nil {
		return err
	}
	b, err := readNegZeros(vals, value)
	if err != nil {
		return err
	}
	g := w.addGroup(mapKey, vals)
	g.kg, g.stored = int32(kg), true
	n, b, err := readUvarint(b)
	if err != nil || n == 0 || n > uint64(len(b)) {
		return fmt.Errorf("%w: bad session count", errEntry)
	}
	gap := w.cfg.Gap
	for range n {
		s, rest, err := w.restoreSession(g, b)
		if err != nil {
			return err
		}
		b = rest
		if k := len(g.open); k > 0 && s.start < g.open[k-1].last+gap {
			w.freeSession(s)
			return fmt.Errorf("%w: sessions out of order or overlapping", errEntry)
		}
		g.open = append(g.open, s)
		s.closeAt = s.last + gap
		w.heap.update(s)
		w.seq = max(w.seq, s.seq)
	}
	if len(b) != 0 {
		return fmt.Errorf("%w: %d bytes after the sessions", errEntry, len(b))
	}
	return nil
}

// restoreSession reads a session of g from the start of b and returns it
// and the bytes after it.
func (w *Agg) restoreSession(g *keyGroup, b []byte) (*session, []byte, error) {
	start, n := binary.Varint(b)
	if n <= 0 {
		return nil, b, fmt.Errorf("%w: bad session start", errEntry)
	}
	b = b[n:]
	span, b, err := readUvarint(b)
	if err != nil || span > uint64(math.MaxInt64-w.cfg.Gap) || start > math.MaxInt64-w.cfg.Gap-int64(span) {
		return nil, b, fmt.Errorf("%w: bad session end", errEntry)
	}
	seq, b, err := readUvarint(b)
	if err != nil {
		return nil, b, fmt.Errorf("%w: bad session number", errEntry)
	}
	rows, b, err := readUvarint(b)
	if err != nil || rows == 0 || rows > 1<<62 {
		return nil, b, fmt.Errorf("%w: bad row count", errEntry)
	}
	s := w.allocSession(g, start, start+int64(span), seq)
	s.emitted = !w.cfg.EmitOnClose
	w.arena.Row(s.slot)[rowsWord] = rows
	for i, a := range w.aggs {
		if b, err = a.LoadState(s.slot, b); err != nil {
			w.freeSession(s)
			return nil, b, fmt.Errorf("aggregate %d: %w", i, err)
		}
	}
	return s, b, nil
}

// readUvarint reads a uvarint from the start of b.
func readUvarint(b []byte) (uint64, []byte, error) {
	v, n := binary.Uvarint(b)
	if n <= 0 {
		return 0, b, fmt.Errorf("%w: truncated", errEntry)
	}
	return v, b[n:], nil
}
