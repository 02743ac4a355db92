package rowstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
)

// The encoding of a stored row in a checkpoint entry, shared by the
// operators that checkpoint a Store: per column a tag byte, 0 for NULL or
// 1 for a value, then the value — 8 bytes big-endian for the 64-bit kinds
// (BIGINT, TIMESTAMP, INTERVAL, a DOUBLE's bits), 4 for a DATE, 16 for a
// DECIMAL (high then low word), 1 for a BOOLEAN, and a uvarint length then
// the bytes for a string. A column of untyped NULLs is always tagged 0.
// The row is not self-describing: it decodes only against the store's
// column types, and an operator appends what it keeps beside the row
// (a match count, say) after it.

// ErrDamaged is wrapped by the errors of an encoded row that does not
// decode against the store's columns.
var ErrDamaged = errors.New("rowstore: damaged row")

// AppendRow appends the encoding of row id's values to buf.
func (s *Store) AppendRow(buf []byte, id int32) []byte {
	for j := range s.Cols {
		c := &s.Cols[j]
		if !c.valid.At(id) {
			buf = append(buf, 0)
			continue
		}
		buf = append(buf, 1)
		switch c.phys {
		case types.PhysInt64, types.PhysTimestamp, types.PhysDuration:
			buf = binary.BigEndian.AppendUint64(buf, uint64(c.i64.At(id)))
		case types.PhysFloat64:
			buf = binary.BigEndian.AppendUint64(buf, math.Float64bits(c.f64.At(id)))
		case types.PhysDate32:
			buf = binary.BigEndian.AppendUint32(buf, uint32(c.i32.At(id)))
		case types.PhysDecimal:
			buf = binary.BigEndian.AppendUint64(buf, uint64(c.dec.At(id).HighBits()))
			buf = binary.BigEndian.AppendUint64(buf, c.dec.At(id).LowBits())
		case types.PhysBool:
			buf = append(buf, byte(b2i(c.b.At(id))))
		case types.PhysString:
			n := c.slen.At(id)
			buf = binary.AppendUvarint(buf, uint64(n))
			buf = append(buf, c.arena.At(c.soff.At(id), n)...)
		}
	}
	return buf
}

// valueLen returns the length of the encoded value of column c at the
// front of b (after its tag), or -1 if b is too short or malformed.
func (c *Col) valueLen(b []byte) int {
	n := 0
	switch c.phys {
	case types.PhysInt64, types.PhysTimestamp, types.PhysDuration, types.PhysFloat64:
		n = 8
	case types.PhysDate32:
		n = 4
	case types.PhysDecimal:
		n = 16
	case types.PhysBool:
		if len(b) < 1 || b[0] > 1 {
			return -1
		}
		n = 1
	case types.PhysString:
		l, m := binary.Uvarint(b)
		if m <= 0 || l > uint64(len(b)-m) || l > math.MaxUint32 {
			return -1
		}
		n = m + int(l)
	default:
		return -1 // a column of untyped NULLs holds no value
	}
	if len(b) < n {
		return -1
	}
	return n
}

// RowLen returns the length of the encoded row at the front of b, after
// checking that it decodes against the store's columns.
func (s *Store) RowLen(b []byte) (int, error) {
	at := 0
	for j := range s.Cols {
		if at >= len(b) {
			return 0, fmt.Errorf("%w: it ends before column %d", ErrDamaged, j)
		}
		tag := b[at]
		at++
		switch tag {
		case 0:
			continue
		case 1:
		default:
			return 0, fmt.Errorf("%w: column %d has tag %d", ErrDamaged, j, tag)
		}
		n := s.Cols[j].valueLen(b[at:])
		if n < 0 {
			return 0, fmt.Errorf("%w: column %d (%s) does not decode", ErrDamaged, j, s.Cols[j].T)
		}
		at += n
	}
	return at, nil
}

// AddEncoded stores the row AppendRow encoded at the front of b and
// returns its id and the bytes after it. A damaged encoding is an error
// wrapping ErrDamaged, and stores nothing.
func (s *Store) AddEncoded(b []byte) (int32, []byte, error) {
	n, err := s.RowLen(b)
	if err != nil {
		return 0, nil, err
	}
	id := s.newID()
	at := 0
	for j := range s.Cols {
		c := &s.Cols[j]
		c.valid.Set(id, b[at] == 1)
		at++
		if !c.valid.At(id) {
			if c.phys == types.PhysString {
				c.slen.Set(id, 0)
			}
			continue
		}
		v := b[at:]
		switch c.phys {
		case types.PhysInt64, types.PhysTimestamp, types.PhysDuration:
			c.i64.Set(id, int64(binary.BigEndian.Uint64(v)))
		case types.PhysFloat64:
			c.f64.Set(id, math.Float64frombits(binary.BigEndian.Uint64(v)))
		case types.PhysDate32:
			c.i32.Set(id, int32(binary.BigEndian.Uint32(v)))
		case types.PhysDecimal:
			c.dec.Set(id, decimal128.New(int64(binary.BigEndian.Uint64(v)), binary.BigEndian.Uint64(v[8:])))
		case types.PhysBool:
			c.b.Set(id, v[0] == 1)
		case types.PhysString:
			l, m := binary.Uvarint(v)
			s := v[m : m+int(l)]
			c.soff.Set(id, c.intern.add(&c.arena, unsafe.String(unsafe.SliceData(s), len(s))))
			c.slen.Set(id, uint32(l))
		}
		at += c.valueLen(v)
	}
	return id, b[n:], nil
}
