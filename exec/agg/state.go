package agg

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/accum"
)

// The hash aggregate's checkpoints (exec.Stateful). Each group is one
// entry in the key group its key hashes into, computed by exec.HashRows
// over the group key columns as the hash exchange in front of the
// aggregate computes it for the group's rows:
//
//   - key: the group key as groupKeys.encode writes it (per column a tag
//     byte, 0 NULL or 1 value, then the value's bytes), whatever the mode
//     the group table uses; a global aggregate's one group is globalKey,
//     in the instance's first key group;
//   - value: the group's row count (a uvarint), then every aggregate's
//     state in order (accum's AppendState).
//
// A windowed aggregate also writes its last watermark (a varint) under
// watermarkKey in every key group it owns when it advanced, so that the
// instances that restore any of its groups drop the rows it dropped as
// late; group keys never start with its byte.
//
// A snapshot writes only what changed: the slots a batch touched are
// marked in a dirty set (a bit per slot and a list, in the per-batch loop
// over touched groups), and a group that lost its last row or closed
// records its key for a Delete. A snapshot puts the groups of the dirty
// slots that are live, deletes the others, and starts a new delta; it is
// written a part at a time, copy-on-write, while batches go on
// (snapshot.go). Until the first snapshot or restore, the store holds
// nothing of the operator, so no Delete is recorded: without checkpoints,
// the delta is a bit and at most one list entry per slot, never a record
// per deletion.
const (
	globalKey    = "\x02"
	watermarkKey = "\xff"
)

// noWatermark is the watermark of an aggregate that has seen none.
const noWatermark = int64(-1 << 63)

// errRestore is wrapped by every error of a restore.
var errRestore = errors.New("hash aggregate: restore")

// delta is what changed since the last snapshot.
type delta struct {
	bits    []uint64 // by slot: dirty
	slots   []int32  // the dirty slots, possibly freed since (their bit is then clear)
	delKeys []byte   // the entry keys of the groups deleted, concatenated
	delEnds []int    // the end of each in delKeys
	savedWM int64    // the watermark the last snapshot wrote
	written bool     // a snapshot was taken or restored: deletions must be written

	// Snapshot's scratch.
	keys   []byte
	ends   []int
	groups []int
	offs   []int // a key's column offsets (keyOffsets)
	value  []byte
}

// grow makes room for slots 0..n-1.
func (d *delta) grow(n int) {
	if w := (n + 63) / 64; w > len(d.bits) {
		d.bits = append(d.bits, make([]uint64, w-len(d.bits))...)
	}
}

// mark marks slot s dirty.
func (d *delta) mark(s int32) {
	if w, bit := &d.bits[s>>6], uint64(1)<<(s&63); *w&bit == 0 {
		*w |= bit
		d.slots = append(d.slots, s)
	}
}

// reset starts a new delta.
func (d *delta) reset() {
	for _, s := range d.slots {
		d.bits[s>>6] &^= 1 << (s & 63)
	}
	d.slots, d.delKeys, d.delEnds = d.slots[:0], d.delKeys[:0], d.delEnds[:0]
}

// bytes estimates the memory of the delta.
func (d *delta) bytes() int64 {
	return int64(cap(d.bits))*8 + int64(cap(d.slots))*4 + int64(cap(d.delKeys)) + int64(cap(d.delEnds))*8
}

// deleted records the deletion of the group of slot s, before its key is
// forgotten. The slot stays dirty: if a group reuses it, it is written.
func (h *HashAgg) deleted(s int32) {
	d := &h.delta
	if !d.written {
		return
	}
	d.delKeys = h.keys.appendEntryKey(d.delKeys, s)
	d.delEnds = append(d.delEnds, len(d.delKeys))
}

// appendEntryKey appends the entry key of the group of slot to buf.
func (g *groupKeys) appendEntryKey(buf []byte, slot int32) []byte {
	switch g.mode {
	case keysGlobal:
		return append(buf, globalKey...)
	case keysInt:
		k, null := g.ints.Key(slot)
		return appendIntEntryKey(buf, k, null)
	}
	return append(buf, g.bytes.Key(slot)...)
}

// appendRowEntryKey is appendEntryKey for the group of slot, in which row
// of the current batch is: an integer key is read from the row, in cache,
// rather than from the group table.
func (g *groupKeys) appendRowEntryKey(buf []byte, slot, row int32) []byte {
	if g.mode != keysInt {
		return g.appendEntryKey(buf, slot)
	}
	if g.batchNulls != nil && g.batchNulls.IsNull(int(row)) {
		return append(buf, 0)
	}
	return appendIntEntryKey(buf, g.batchKeys[row], false)
}

// intKey returns the integer key of the group of slot, in which row of
// the current batch is unless row is negative (then the key is read from
// the group table): appendRowEntryKey's key, not encoded.
func (g *groupKeys) intKey(slot, row int32) (k int64, null bool) {
	if row < 0 {
		return g.ints.Key(slot)
	}
	if g.batchNulls != nil && g.batchNulls.IsNull(int(row)) {
		return 0, true
	}
	return g.batchKeys[row], false
}

// live reports whether slot s holds a group: the global one, or one with
// rows (a group is freed, its arena row cleared, when it loses its last).
func (h *HashAgg) live(s int32) bool {
	return h.keys.mode == keysGlobal || h.arena.Row(s)[rowsWord] > 0
}

// appendGroup appends the entry value of the group of slot s: its row
// count, then every aggregate's state.
func (h *HashAgg) appendGroup(buf []byte, s int32) ([]byte, error) {
	buf = binary.AppendUvarint(buf, h.arena.Row(s)[rowsWord])
	for i, a := range h.aggs {
		var err error
		if buf, err = a.AppendState(s, buf); err != nil {
			return buf, fmt.Errorf("aggregate %d: %w", i, err)
		}
	}
	return buf, nil
}

// Restore rebuilds the groups of the key groups in groups from the
// entries of the last checkpoint: their keys, row counts and aggregate
// states, and, when windowed, when each closes and the last watermark. A
// restored group's next change retracts the result it had.
func (h *HashAgg) Restore(ctx context.Context, r exec.StateReader, groups exec.KeyGroupRange) error {
	if h.keys == nil {
		return errors.New("hash aggregate: Restore before Open")
	}
	return h.restoreGroups(ctx, r, []exec.KeyGroupRange{groups}, noWatermark)
}

// restoreGroups adds the groups of the key groups in ranges to the state,
// from the checkpoint's entries, and makes the watermark of a windowed
// aggregate the highest of wm and those the entries hold. The next
// snapshot writes that watermark into every key group the instance owns:
// the entries read may hold lower ones (their groups' owner had seen
// less), and with it the watermark entries of all the instance's groups
// are its own again, so that whichever instances restore them after the
// next checkpoint find the same watermark as it has (a move, move.go,
// relies on it).
func (h *HashAgg) restoreGroups(ctx context.Context, r exec.StateReader, ranges []exec.KeyGroupRange, wm int64) error {
	var slots []int32
	global := false
	for _, groups := range ranges {
		err := r.Scan(ctx, groups, func(g int, key, value []byte) error {
			if string(key) == watermarkKey && h.close != nil {
				v, n := binary.Varint(value)
				if n <= 0 || n != len(value) {
					return fmt.Errorf("%w: key group %d: bad watermark entry", errRestore, g)
				}
				wm = max(wm, v)
				return nil
			}
			s, err := h.restoreGroup(key, value)
			if err != nil {
				return fmt.Errorf("%w: key group %d: entry %q: %w", errRestore, g, key, err)
			}
			if h.keys.mode == keysGlobal {
				global = true
			} else {
				slots = append(slots, s)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	h.delta.written = true
	if global {
		// The row was emitted before the checkpoint (a global aggregate
		// emits it at the latest on the barrier) and is now clean.
		h.initialSent = true
		h.delta.reset()
	}
	h.touchRestored(slots)
	if c := h.close; c != nil {
		c.wm, h.delta.savedWM = wm, noWatermark
		h.keys.decodeSlots(slots, h.keyVecs)
		v := &h.keyVecs[c.cfg.Key]
		for j, s := range slots {
			if v.Valid[j] {
				c.addAt(s, v.I[j]+c.cfg.Offset)
			}
		}
	}
	h.updateStateMetrics()
	return nil
}

// restoreGroup creates the group of an entry and loads its state, and
// returns its slot.
func (h *HashAgg) restoreGroup(key, value []byte) (int32, error) {
	s, err := h.keys.findEntryKey(key)
	if err != nil {
		return 0, err
	}
	h.growSlots()
	rows, n := binary.Uvarint(value)
	if n <= 0 || (rows == 0 && h.keys.mode != keysGlobal) || rows > 1<<62 {
		return 0, errors.New("bad row count")
	}
	h.arena.Row(s)[rowsWord] = rows
	b := value[n:]
	for i, a := range h.aggs {
		if b, err = a.LoadState(s, b); err != nil {
			return 0, fmt.Errorf("aggregate %d: %w", i, err)
		}
	}
	if len(b) != 0 {
		return 0, fmt.Errorf("%d bytes after the state", len(b))
	}
	return s, nil
}

// errEntryKey is returned for an entry key that is not a group key of the
// aggregate, or one seen twice.
var errEntryKey = errors.New("bad group key")

// findEntryKey creates the group of an entry key (appendEntryKey) and
// returns its slot, after checking that the key is well formed and new.
func (g *groupKeys) findEntryKey(key []byte) (int32, error) {
	var s int32
	created := true
	switch g.mode {
	case keysGlobal:
		if string(key) != globalKey {
			return 0, errEntryKey
		}
		return 0, nil
	case keysInt:
		switch {
		case len(key) == 1 && key[0] == 0:
			s, created = g.ints.FindNull()
		case len(key) == 9 && key[0] == 1:
			s, created = g.ints.Find(int64(binary.LittleEndian.Uint64(key[1:])))
		default:
			return 0, errEntryKey
		}
	default:
		if !g.validEntryKey(key) {
			return 0, errEntryKey
		}
		s, created = g.bytes.Find(key)
	}
	if !created {
		return 0, fmt.Errorf("%w: seen twice", errEntryKey)
	}
	return s, nil
}

// validEntryKey reports whether key is an encoded key of g's columns.
func (g *groupKeys) validEntryKey(key []byte) bool {
	for _, k := range g.kinds {
		if len(key) == 0 || key[0] > 1 {
			return false
		}
		null := key[0] == 0
		key = key[1:]
		if null {
			continue
		}
		n := 8
		switch k {
		case accum.KindDec:
			n = 16
		case accum.KindStr:
			l, m := binary.Uvarint(key)
			if m <= 0 || l > uint64(len(key)-m) {
				return false
			}
			n = m + int(l)
		}
		if len(key) < n {
			return false
		}
		key = key[n:]
	}
	return len(key) == 0
}
