package rowstore

import (
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/catalog/types"
)

// Keys: an operator that indexes its stored rows by some of their columns
// (a join side by its join key) compares a stored row's key with an
// incoming row's and encodes it, without a copy of the key beside the
// row. Equality here is rowkey's: two values are equal when
// exec/internal/rowkey encodes them alike — the same value of the same
// physical kind, a DOUBLE's bits with -0 taken for +0 (NaNs of equal
// bits are equal), NULL equal to NULL.

// KeyEqual reports whether row id's value is rowkey-equal to row i of a,
// an array of the column's physical kind.
func (c *Col) KeyEqual(id int32, a arrow.Array, i int) bool { return c.equalAt(id, a, i, true) }

// KeySame reports whether row a of c and row b of d, a column of the same
// physical kind, are rowkey-equal.
func (c *Col) KeySame(a int32, d *Col, b int32) bool {
	if c.valid.At(a) != d.valid.At(b) {
		return false
	}
	if c.valid.At(a) && c.phys == types.PhysFloat64 {
		return keyBits(c.f64.At(a)) == keyBits(d.f64.At(b))
	}
	return c.SameAs(a, d, b)
}

// keyBits is a DOUBLE's bits as rowkey encodes them: -0 as +0.
func keyBits(f float64) uint64 {
	if f == 0 {
		f = 0
	}
	return math.Float64bits(f)
}

// AppendKey appends to buf rowkey's encoding (rowkey.Append) of row id's
// values in columns cols.
func (s *Store) AppendKey(buf []byte, id int32, cols []int) []byte {
	for _, j := range cols {
		c := &s.Cols[j]
		if !c.valid.At(id) {
			buf = append(buf, 0)
			continue
		}
		buf = append(buf, 1)
		switch c.phys {
		case types.PhysInt64, types.PhysTimestamp, types.PhysDuration:
			buf = binary.LittleEndian.AppendUint64(buf, uint64(c.i64.At(id)))
		case types.PhysFloat64:
			buf = binary.LittleEndian.AppendUint64(buf, keyBits(c.f64.At(id)))
		case types.PhysString:
			n := c.slen.At(id)
			buf = binary.AppendUvarint(buf, uint64(n))
			buf = append(buf, c.arena.At(c.soff.At(id), n)...)
		case types.PhysBool:
			buf = append(buf, byte(b2i(c.b.At(id))))
		case types.PhysDecimal:
			buf = binary.LittleEndian.AppendUint64(buf, c.dec.At(id).LowBits())
			buf = binary.LittleEndian.AppendUint64(buf, uint64(c.dec.At(id).HighBits()))
		case types.PhysDate32:
			buf = binary.LittleEndian.AppendUint32(buf, uint32(c.i32.At(id)))
		}
	}
	return buf
}
