package sessionwin

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/exec/internal/vec"
)

// groupBytes estimates a group's memory beyond its key: the struct, its
// map entry and its session list.
const groupBytes = int64(unsafe.Sizeof(keyGroup{})) + 64

// encodeKeys encodes every row's group key into w.keyBufs, column by
// column: per value a NULL flag, then 8 bytes for integer-like values and
// doubles (-0 as 0, one NaN), 16 for decimals, a length and the bytes for
// strings. Equal keys encode equally and different keys differently.
func (w *Agg) encodeKeys(batch arrow.RecordBatch) error {
	n := int(batch.NumRows())
	w.keyBufs = vec.Resize(w.keyBufs, n)
	for i := range w.keyBufs {
		w.keyBufs[i] = w.keyBufs[i][:0]
	}
	var ibuf []int64
	bufs := w.keyBufs
	for _, ord := range w.cfg.GroupKeys {
		col := batch.Column(ord)
		valid := validity(col, nil)
		switch a := col.(type) {
		case *array.Float64:
			for i, f := range a.Float64Values() {
				if !nullKey(bufs, i, valid) {
					bufs[i] = binary.LittleEndian.AppendUint64(bufs[i], exec.FloatBits(f))
				}
			}
		case *array.Decimal128:
			for i, v := range a.Values() {
				if !nullKey(bufs, i, valid) {
					bufs[i] = binary.LittleEndian.AppendUint64(bufs[i], v.LowBits())
					bufs[i] = binary.LittleEndian.AppendUint64(bufs[i], uint64(v.HighBits()))
				}
			}
		case *array.String:
			for i := range n {
				if !nullKey(bufs, i, valid) {
					s := a.Value(i)
					bufs[i] = append(binary.AppendUvarint(bufs[i], uint64(len(s))), s...)
				}
			}
		default:
			vals, buf, err := accum.IntValues(col, ibuf)
			if err != nil {
				return fmt.Errorf("SESSION: group key column %d: %w", ord, err)
			}
			ibuf = buf
			for i, v := range vals {
				if !nullKey(bufs, i, valid) {
					bufs[i] = binary.LittleEndian.AppendUint64(bufs[i], uint64(v))
				}
			}
		}
	}
	return nil
}

// validity returns, for an array with NULLs, whether each row is valid
// (reusing buf); nil when no row is NULL.
func validity(arr arrow.Array, buf []bool) []bool {
	n := arr.Len()
	if arr.NullN() == 0 {
		return nil
	}
	buf = vec.Resize(buf, n)
	bm := arr.NullBitmapBytes()
	if len(bm) == 0 { // a NULL-typed array: every row is NULL
		clear(buf)
		return buf
	}
	off := arr.Data().Offset()
	for i := range buf {
		buf[i] = bitutil.BitIsSet(bm, off+i)
	}
	return buf
}

// nullKey appends row i's NULL flag to its key (0 for NULL, 1 before a
// value) and reports whether the value is NULL.
func nullKey(bufs [][]byte, i int, valid []bool) bool {
	if valid != nil && !valid[i] {
		bufs[i] = append(bufs[i], 0)
		return true
	}
	bufs[i] = append(bufs[i], 1)
	return false
}

// group returns the group of row i, whose encoded key is key, creating it
// (with the row's key values) if needed.
func (w *Agg) group(batch arrow.RecordBatch, i int, key []byte) *keyGroup {
	if g := w.groups[string(key)]; g != nil {
		return g
	}
	vals := make([]types.Datum, len(w.cfg.GroupKeys))
	for j, ord := range w.cfg.GroupKeys {
		vals[j] = types.DatumAt(batch.Column(ord), i, w.cfg.Input[ord]) // a string is a copy
	}
	return w.addGroup(string(key), vals)
}

// addGroup adds the group of encoded key mapKey and values vals (strings
// owned).
func (w *Agg) addGroup(mapKey string, vals []types.Datum) *keyGroup {
	g := &keyGroup{mapKey: mapKey, key: vals}
	size := groupBytes + int64(len(mapKey)) + int64(len(vals))*int64(unsafe.Sizeof(types.Datum{}))
	for _, d := range vals {
		size += int64(len(d.S))
	}
	w.groups[g.mapKey] = g
	w.keyBytes += size
	return g
}

// dropGroup forgets g, whose last session closed.
func (w *Agg) dropGroup(g *keyGroup) {
	w.forgetGroup(g)
	w.groupGone(g)
}

// forgetGroup removes g from the groups, recording no deletion.
func (w *Agg) forgetGroup(g *keyGroup) {
	size := groupBytes + int64(len(g.mapKey)) + int64(len(g.key))*int64(unsafe.Sizeof(types.Datum{}))
	for _, d := range g.key {
		size += int64(len(d.S))
	}
	w.keyBytes -= size
	delete(w.groups, g.mapKey)
}

// decodeKey returns the values of a group key encodeKeys wrote, failing if
// key is not one.
func (w *Agg) decodeKey(key string) ([]types.Datum, error) {
	vals := make([]types.Datum, len(w.cfg.GroupKeys))
	bad := func(c int) error { return fmt.Errorf("%w: group key column %d does not decode", errEntry, c) }
	for c, ord := range w.cfg.GroupKeys {
		if len(key) == 0 || key[0] > 1 {
			return nil, bad(c)
		}
		null := key[0] == 0
		key = key[1:]
		if null {
			vals[c] = types.NullDatum
			continue
		}
		t := w.cfg.Input[ord]
		kind, _ := accum.KindOf(t)
		n := 8
		switch kind {
		case accum.KindDec:
			n = 16
		case accum.KindStr:
			l, m := binary.Uvarint([]byte(key[:min(len(key), binary.MaxVarintLen64)]))
			if m <= 0 || l > uint64(len(key)-m) {
				return nil, bad(c)
			}
			vals[c].S = strings.Clone(key[m : m+int(l)])
			key = key[m+int(l):]
			continue
		}
		if len(key) < n {
			return nil, bad(c)
		}
		lo := binary.LittleEndian.Uint64([]byte(key[:8]))
		switch kind {
		case accum.KindFloat:
			vals[c].F = math.Float64frombits(lo)
		case accum.KindDec:
			vals[c].D = decimal128.New(int64(binary.LittleEndian.Uint64([]byte(key[8:16]))), lo)
		default:
			v := int64(lo)
			switch t.Physical() {
			case types.PhysBool:
				if v != 0 && v != 1 {
					return nil, bad(c)
				}
			case types.PhysDate32:
				if v != int64(int32(v)) {
					return nil, bad(c)
				}
			}
			vals[c].I = v
		}
		key = key[n:]
	}
	if len(key) != 0 {
		return nil, fmt.Errorf("%w: %d bytes after the group key", errEntry, len(key))
	}
	return vals, nil
}
