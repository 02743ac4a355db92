package agg

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/exec/internal/vec"
)

// The key group of a group's checkpoint entry is the one the exchange in
// front of the aggregate routes the group's rows to: exec.HashRows over
// the key columns it hashes (PartKeys, or every group key). Snapshots and
// moves find it from the entry key's values (exec.RowHash), not from
// Arrow columns built of them; an entryGrouper does it with nothing but
// the key kinds, so that a writer goroutine may too.

// entryGrouper finds the key groups of entry keys of a grouped aggregate.
// Copies share the kinds and columns, never changed, and not the scratch.
type entryGrouper struct {
	ints  bool         // one integer-like key, hashed alone (exec.IntKeyGroup)
	kinds []accum.Kind // of the key columns
	part  []int        // the key columns hashed, in the exchange's order
	offs  []int        // scratch: a key's column offsets (offsets)
}

// newEntryGrouper returns the grouper of an aggregate whose group keys
// are of kinds and whose exchange hashes the keys part (nil: all).
func newEntryGrouper(kinds []accum.Kind, part []int) entryGrouper {
	if part == nil {
		part = make([]int, len(kinds))
		for i := range part {
			part[i] = i
		}
	}
	ints := len(kinds) == 1 && kinds[0] == accum.KindInt && len(part) == 1 && part[0] == 0
	return entryGrouper{ints: ints, kinds: kinds, part: part}
}

// of returns the key group of an entry key.
func (e *entryGrouper) of(key string) (int, error) {
	if e.ints {
		return intEntryKeyGroup(key)
	}
	e.offs = vec.Resize(e.offs, len(e.kinds)+1)
	if err := e.offsets(key); err != nil {
		return 0, err
	}
	rh := exec.NewRowHash()
	for _, c := range e.part {
		rh = hashKeyValue(rh, key[e.offs[c]:e.offs[c+1]], e.kinds[c])
	}
	return rh.KeyGroup(), nil
}

// offsets sets offs[c] to where the c-th column of the encoded group key
// starts (its tag byte), and offs[len(kinds)] to the key's end.
func (e *entryGrouper) offsets(key string) error {
	p := 0
	for c, kind := range e.kinds {
		e.offs[c] = p
		if p >= len(key) {
			return fmt.Errorf("hash aggregate: a group key of %d bytes ends before column %d", len(key), c)
		}
		p++
		if key[p-1] == 0 {
			continue
		}
		switch kind {
		case accum.KindInt, accum.KindFloat:
			p += 8
		case accum.KindDec:
			p += 16
		default:
			if p >= len(key) {
				return fmt.Errorf("hash aggregate: a group key of %d bytes ends in column %d", len(key), c)
			}
			l, n := uvarint(key[p:])
			p += n + l
		}
	}
	if p != len(key) {
		return fmt.Errorf("hash aggregate: a group key of %d bytes, its columns %d", len(key), p)
	}
	e.offs[len(e.kinds)] = p
	return nil
}

// hashKeyValue combines into rh one column of an encoded group key (its
// tag byte, then its value as groupKeys.encode writes it), as HashRows
// combines the column's value.
func hashKeyValue(rh exec.RowHash, v string, k accum.Kind) exec.RowHash {
	if v[0] == 0 {
		return rh.Null()
	}
	v = v[1:]
	switch k {
	case accum.KindInt:
		return rh.Int(int64(le64(v)))
	case accum.KindFloat:
		return rh.Float(math.Float64frombits(le64(v)))
	case accum.KindDec:
		return rh.Decimal(le64(v), int64(le64(v[8:])))
	}
	_, n := uvarint(v)
	return rh.String(v[n:])
}

// keyGroups sets d.groups[i] to the key group of the i-th entry key of
// keys, which starts at offset start and ends at ends[i] (the next starts
// there): the instance's first group for a global aggregate, else the
// one the exchange routes the group's rows to.
func (h *HashAgg) keyGroups(keys []byte, start int, ends []int) error {
	d := &h.delta
	n := len(ends)
	d.groups = vec.Resize(d.groups, n)
	if h.keys.mode == keysGlobal || n == 0 {
		for i := range d.groups {
			d.groups[i] = h.env.KeyGroups.Lo
		}
		return nil
	}
	base, all := start, string(keys[start:ends[n-1]]) // one copy, not one per key
	for i, end := range ends {
		g, err := h.grouper.of(all[start-base : end-base])
		if err != nil {
			return err
		}
		d.groups[i], start = g, end
	}
	return nil
}

// appendIntEntryKey appends the entry key of an integer group key, as
// groupKeys.appendEntryKey writes it.
func appendIntEntryKey(buf []byte, k int64, null bool) []byte {
	if null {
		return append(buf, 0)
	}
	return binary.LittleEndian.AppendUint64(append(buf, 1), uint64(k))
}

// intEntryKeyGroup returns the key group of the entry key of an integer
// group key, hashed alone: a tag byte, 1 then the value's 8 bytes
// little-endian, or 0 for NULL.
func intEntryKeyGroup(key string) (int, error) {
	switch {
	case len(key) == 1 && key[0] == 0:
		return exec.IntKeyGroup(0, true), nil
	case len(key) == 9 && key[0] == 1:
		return exec.IntKeyGroup(int64(le64(key[1:])), false), nil
	}
	return 0, fmt.Errorf("hash aggregate: an integer group's entry key of %d bytes", len(key))
}
