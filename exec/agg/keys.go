package agg

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/exec/internal/aggstate"
	"github.com/eddysql/eddy/exec/internal/vec"
)

// keyMode is how a hash aggregate finds a row's group.
type keyMode uint8

const (
	keysGlobal keyMode = iota // no GROUP BY: one group, slot 0
	keysInt                   // one integer-like key: a typed hash table
	keysBytes                 // anything else: encoded keys, indexed by hash
)

// groupKeys maps the group key of each row of a batch to its group's slot.
type groupKeys struct {
	mode  keyMode
	cols  []int        // input ordinals of the key columns
	kinds []accum.Kind // their representations
	ints  *aggstate.IntGroups
	bytes *aggstate.BytesGroups

	// The key column of the batch being processed (integer mode), from
	// which decode reads the keys of touched groups.
	batchKeys  []int64
	batchNulls arrow.Array

	batch    aggstate.BatchGroups
	slotKeys []int64 // by row: its slot, as a key of batch (groupFixed: its key's hash)
	touched  []int32 // by local group: its slot
	first    []int32 // by local group: its first row (global aggregate)

	// Keys of integers and doubles only (groupFixed): each key column of
	// the batch, as 64-bit values.
	fixedOK   bool
	fixed     [][]int64
	fixedBufs [][]int64

	ibuf []int64
	buf  []byte
	off  []int
	cur  []int
}

func newGroupKeys(cols []int, kinds []accum.Kind) *groupKeys {
	g := &groupKeys{cols: cols, kinds: kinds}
	switch {
	case len(cols) == 0:
		g.mode = keysGlobal
	case len(cols) == 1 && kinds[0] == accum.KindInt:
		g.mode = keysInt
		g.ints = aggstate.NewIntGroups()
	default:
		g.mode = keysBytes
		g.bytes = aggstate.NewBytesGroups()
		g.fixedOK = true
		for _, k := range kinds {
			g.fixedOK = g.fixedOK && (k == accum.KindInt || k == accum.KindFloat)
		}
	}
	return g
}

// high returns the length every per-slot column must have.
func (g *groupKeys) high() int {
	switch g.mode {
	case keysInt:
		return g.ints.High()
	case keysBytes:
		return g.bytes.High()
	}
	return 1
}

// live returns the number of groups.
func (g *groupKeys) live() int {
	switch g.mode {
	case keysInt:
		return g.ints.Live()
	case keysBytes:
		return g.bytes.Live()
	}
	return 1
}

// stateBytes estimates the memory of the group table.
func (g *groupKeys) stateBytes() int64 {
	switch g.mode {
	case keysInt:
		return g.ints.TableBytes()
	case keysBytes:
		return g.bytes.TableBytes() + g.bytes.KeyBytes()
	}
	return 0
}

// releaseBatch drops the references to the batch's key columns.
func (g *groupKeys) releaseBatch() {
	g.batchKeys, g.batchNulls = nil, nil
	clear(g.fixed)
}

// delete forgets the group of slot; the global group is never deleted.
func (g *groupKeys) delete(slot int32) {
	switch g.mode {
	case keysInt:
		g.ints.Delete(slot)
	case keysBytes:
		g.bytes.Delete(slot)
	}
}

// group numbers the batch's groups: it sets lids[i] to the local group of
// row i (0, 1, ... in order of first occurrence) and returns, by local
// group, its slot (creating groups) and the first row of the batch in it.
// The returned slices are scratch of g, valid until the next call.
//
// A single integer key without NULLs is grouped within the batch first and
// looked up once per distinct key (IntGroups.FindDistinct); other keys are
// looked up row by row and their slots grouped.
func (g *groupKeys) group(rec arrow.RecordBatch, lids []int32) (touched, first []int32, err error) {
	switch g.mode {
	case keysGlobal:
		clear(lids)
		g.touched = append(g.touched[:0], 0)
		g.first = append(g.first[:0], 0)
		return g.touched, g.first, nil
	case keysInt:
		arr := rec.Column(g.cols[0])
		vals, buf, err := accum.IntValues(arr, g.ibuf)
		g.ibuf = buf
		if err != nil {
			return nil, nil, fmt.Errorf("group key column %d: %w", g.cols[0], err)
		}
		g.batchKeys, g.batchNulls = vals, nil
		if arr.NullN() == 0 {
			g.batch.Group(vals, lids)
			g.touched = vec.Resize(g.touched, len(g.batch.Keys))
			g.ints.FindDistinct(g.batch.Keys, g.touched)
			return g.touched, g.batch.First, nil
		}
		g.batchNulls = arr
		g.slotKeys = vec.Resize(g.slotKeys, len(vals))
		for i, v := range vals {
			var s int32
			if arr.IsNull(i) {
				s, _ = g.ints.FindNull()
			} else {
				s, _ = g.ints.Find(v)
			}
			g.slotKeys[i] = int64(s)
		}
	case keysBytes:
		if g.fixedOK && g.groupFixed(rec, lids) {
			return g.touched, g.batch.First, nil
		}
		if err := g.encode(rec); err != nil {
			return nil, nil, err
		}
		g.slotKeys = vec.Resize(g.slotKeys, len(lids))
		g.touched = vec.Resize(g.touched, len(lids))
		g.bytes.FindAll(g.buf, g.off, g.touched)
		for i, s := range g.touched {
			g.slotKeys[i] = int64(s)
		}
	}
	g.batch.Group(g.slotKeys, lids)
	g.touched = vec.Resize(g.touched, len(g.batch.Keys))
	for j, s := range g.batch.Keys {
		g.touched[j] = int32(s)
	}
	return g.touched, g.batch.First, nil
}

// encode writes every row's key into g.buf, row i at g.off[i]:g.off[i+1].
// Each column is a tag byte (0 NULL, 1 value) followed, for a value, by 8
// bytes (integers, doubles with -0 and NaN made canonical), 16 (decimals),
// or a uvarint length and the bytes (strings). Equal keys encode equally.
func (g *groupKeys) encode(rec arrow.RecordBatch) error {
	n := int(rec.NumRows())
	g.off = vec.Resize(g.off, n+1)
	g.cur = vec.Resize(g.cur, n)
	clear(g.cur)
	for c, ord := range g.cols {
		arr := rec.Column(ord)
		if err := accum.CheckArrow(g.kinds[c], arr); err != nil {
			return fmt.Errorf("group key column %d: %w", ord, err)
		}
		for i := range n {
			g.cur[i] += 1 + keyLen(arr, g.kinds[c], i)
		}
	}
	g.off[0] = 0
	for i := range n {
		g.off[i+1] = g.off[i] + g.cur[i]
		g.cur[i] = g.off[i]
	}
	g.buf = vec.Resize(g.buf, g.off[n])
	for c, ord := range g.cols {
		if err := g.encodeColumn(rec.Column(ord), g.kinds[c]); err != nil {
			return fmt.Errorf("group key column %d: %w", ord, err)
		}
	}
	return nil
}

// keyLen is the size of row i's value after its tag byte.
func keyLen(arr arrow.Array, k accum.Kind, i int) int {
	if arr.IsNull(i) {
		return 0
	}
	switch k {
	case accum.KindDec:
		return 16
	case accum.KindStr:
		l := arr.(*array.String).ValueLen(i)
		return uvarintLen(uint64(l)) + l
	}
	return 8
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// encodeColumn appends one column's part of every row's key at g.cur.
func (g *groupKeys) encodeColumn(arr arrow.Array, k accum.Kind) error {
	buf, cur := g.buf, g.cur
	nulls := arr.NullN() > 0
	tag := func(i int) bool {
		if nulls && arr.IsNull(i) {
			buf[cur[i]] = 0
			cur[i]++
			return false
		}
		buf[cur[i]] = 1
		cur[i]++
		return true
	}
	switch k {
	case accum.KindInt:
		vals, ibuf, err := accum.IntValues(arr, g.ibuf)
		g.ibuf = ibuf
		if err != nil {
			return err
		}
		for i, v := range vals {
			if tag(i) {
				binary.LittleEndian.PutUint64(buf[cur[i]:], uint64(v))
				cur[i] += 8
			}
		}
	case accum.KindFloat:
		for i, v := range arr.(*array.Float64).Float64Values() {
			if tag(i) {
				binary.LittleEndian.PutUint64(buf[cur[i]:], exec.FloatBits(v))
				cur[i] += 8
			}
		}
	case accum.KindDec:
		for i, v := range arr.(*array.Decimal128).Values() {
			if tag(i) {
				binary.LittleEndian.PutUint64(buf[cur[i]:], v.LowBits())
				binary.LittleEndian.PutUint64(buf[cur[i]+8:], uint64(v.HighBits()))
				cur[i] += 16
			}
		}
	case accum.KindStr:
		a := arr.(*array.String)
		for i := range a.Len() {
			if tag(i) {
				s := a.Value(i)
				cur[i] += binary.PutUvarint(buf[cur[i]:], uint64(len(s)))
				cur[i] += copy(buf[cur[i]:], s)
			}
		}
	}
	return nil
}

// decode fills out[c] (one vec per key column, of its kind) with the key of
// each group in slots; rows[j] is a row of the current batch in group
// slots[j]. An integer key is read from that row, which is in cache, rather
// than from the group table.
func (g *groupKeys) decode(slots, rows []int32, out []accum.Vector) {
	for c := range out {
		out[c].Resize(len(slots))
	}
	switch g.mode {
	case keysInt:
		v := &out[0]
		for j, r := range rows {
			v.I[j], v.Valid[j] = g.batchKeys[r], g.batchNulls == nil || g.batchNulls.IsValid(int(r))
		}
	case keysBytes:
		g.cur = vec.Resize(g.cur, len(slots))
		clear(g.cur)
		for c := range out {
			v := &out[c]
			for j, s := range slots {
				key := g.bytes.Key(s)
				p := g.cur[j]
				v.Valid[j] = key[p] == 1
				p++
				if v.Valid[j] {
					p += decodeKey(key[p:], v, j)
				}
				g.cur[j] = p
			}
		}
	}
}

// decodeSlots is decode for groups that have no row in the current batch
// (groups closing on a watermark): integer keys are read from the group
// table.
func (g *groupKeys) decodeSlots(slots []int32, out []accum.Vector) {
	if g.mode != keysInt {
		g.decode(slots, nil, out)
		return
	}
	v := &out[0]
	v.Resize(len(slots))
	for j, s := range slots {
		k, null := g.ints.Key(s)
		v.I[j], v.Valid[j] = k, !null
	}
}

// decodeKey reads one encoded value into v[j] and returns its size.
func decodeKey(key string, v *accum.Vector, j int) int {
	switch v.Kind {
	case accum.KindInt:
		v.I[j] = int64(le64(key))
		return 8
	case accum.KindFloat:
		v.F[j] = math.Float64frombits(le64(key))
		return 8
	case accum.KindDec:
		v.D[j] = decimal128.New(int64(le64(key[8:])), le64(key))
		return 16
	}
	l, n := uvarint(key)
	v.S[j] = key[n : n+l]
	return n + l
}

// uvarint decodes a length written by binary.PutUvarint at the start of s.
func uvarint(s string) (v, n int) {
	shift := 0
	for {
		b := s[n]
		n++
		v |= int(b&0x7f) << shift
		if b < 0x80 {
			return v, n
		}
		shift += 7
	}
}

func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}
