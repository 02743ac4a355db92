package rowset

import (
	"encoding/binary"
	"errors"
	"math"

	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
)

// EncodeRow appends a row's count and values, of types ts, to buf.
func EncodeRow(buf []byte, ts []types.T, count int64, vals []types.Datum) []byte {
	buf = binary.AppendUvarint(buf, uint64(count))
	for i, t := range ts {
		d := vals[i]
		if d.Null {
			buf = append(buf, 0)
			continue
		}
		buf = append(buf, 1)
		switch t.Physical() {
		case types.PhysFloat64:
			buf = binary.BigEndian.AppendUint64(buf, math.Float64bits(d.F))
		case types.PhysDecimal:
			buf = binary.BigEndian.AppendUint64(buf, uint64(d.D.HighBits()))
			buf = binary.BigEndian.AppendUint64(buf, d.D.LowBits())
		case types.PhysString:
			buf = binary.AppendUvarint(buf, uint64(len(d.S)))
			buf = append(buf, d.S...)
		default: // BOOLEAN, integers, DATE, TIMESTAMP, INTERVAL
			buf = binary.AppendVarint(buf, d.I)
		}
	}
	return buf
}

// errDamaged is the error of an encoded row that does not decode.
var errDamaged = errors.New("rowset: damaged row")

// DecodeRow reads a row of types ts that EncodeRow wrote.
func DecodeRow(b []byte, ts []types.T) (count int64, vals []types.Datum, err error) {
	c, n := binary.Uvarint(b)
	if n <= 0 || c == 0 || c > math.MaxInt64 {
		return 0, nil, errDamaged
	}
	b = b[n:]
	vals = make([]types.Datum, len(ts))
	for i, t := range ts {
		if len(b) == 0 {
			return 0, nil, errDamaged
		}
		tag := b[0]
		b = b[1:]
		switch {
		case tag == 0:
			vals[i] = types.NullDatum
			continue
		case tag != 1:
			return 0, nil, errDamaged
		}
		switch t.Physical() {
		case types.PhysFloat64:
			if len(b) < 8 {
				return 0, nil, errDamaged
			}
			vals[i].F = math.Float64frombits(binary.BigEndian.Uint64(b))
			b = b[8:]
		case types.PhysDecimal:
			if len(b) < 16 {
				return 0, nil, errDamaged
			}
			vals[i].D = decimal128.New(int64(binary.BigEndian.Uint64(b)), binary.BigEndian.Uint64(b[8:]))
			b = b[16:]
		case types.PhysString:
			l, n := binary.Uvarint(b)
			if n <= 0 || l > uint64(len(b)-n) {
				return 0, nil, errDamaged
			}
			vals[i].S = string(b[n : n+int(l)])
			b = b[n+int(l):]
		default:
			v, n := binary.Varint(b)
			if n <= 0 {
				return 0, nil, errDamaged
			}
			vals[i].I = v
			b = b[n:]
		}
	}
	if len(b) != 0 {
		return 0, nil, errDamaged
	}
	return int64(c), vals, nil
}

// appendEncoded appends row r's value to buf as EncodeRow encodes a value.
func (c *column) appendEncoded(buf []byte, r int) []byte {
	if c.isNull(r) {
		return append(buf, 0)
	}
	buf = append(buf, 1)
	switch c.t.Physical() {
	case types.PhysFloat64:
		return binary.BigEndian.AppendUint64(buf, math.Float64bits(c.f64[r]))
	case types.PhysDecimal:
		buf = binary.BigEndian.AppendUint64(buf, uint64(c.dec[r].HighBits()))
		return binary.BigEndian.AppendUint64(buf, c.dec[r].LowBits())
	case types.PhysString:
		b := c.bytesAt(r)
		buf = binary.AppendUvarint(buf, uint64(len(b)))
		return append(buf, b...)
	case types.PhysBool:
		v := int64(0)
		if bitutil.BitIsSet(c.bits, r) {
			v = 1
		}
		return binary.AppendVarint(buf, v)
	case types.PhysDate32:
		return binary.AppendVarint(buf, int64(c.i32[r]))
	}
	return binary.AppendVarint(buf, c.i64[r])
}

// appendDecoded appends the value at the front of b, as appendEncoded
// wrote it, and returns the bytes after it.
func (c *column) appendDecoded(b []byte) ([]byte, error) {
	if len(b) == 0 || b[0] > 1 {
		return nil, errDamaged
	}
	if b[0] == 0 {
		c.appendNull()
		return b[1:], nil
	}
	b = b[1:]
	var d types.Datum
	switch c.t.Physical() {
	case types.PhysFloat64:
		if len(b) < 8 {
			return nil, errDamaged
		}
		d.F, b = math.Float64frombits(binary.BigEndian.Uint64(b)), b[8:]
	case types.PhysDecimal:
		if len(b) < 16 {
			return nil, errDamaged
		}
		d.D, b = decimal128.New(int64(binary.BigEndian.Uint64(b)), binary.BigEndian.Uint64(b[8:])), b[16:]
	case types.PhysString:
		l, n := binary.Uvarint(b)
		if n <= 0 || l > uint64(len(b)-n) {
			return nil, errDamaged
		}
		c.data = append(c.data, b[n:n+int(l)]...)
		c.offs = append(c.offs, int32(len(c.data)))
		c.appendValid()
		return b[n+int(l):], nil
	default:
		v, n := binary.Varint(b)
		if n <= 0 {
			return nil, errDamaged
		}
		d.I, b = v, b[n:]
	}
	c.appendDatum(d)
	return b, nil
}

// appendDatum appends a value.
func (c *column) appendDatum(d types.Datum) {
	if d.Null {
		c.appendNull()
		return
	}
	switch c.t.Physical() {
	case types.PhysBool:
		c.bits = growBits(c.bits, c.n+1)
		if d.I != 0 {
			bitutil.SetBit(c.bits, c.n)
		}
	case types.PhysFloat64:
		c.f64 = append(c.f64, d.F)
	case types.PhysDecimal:
		c.dec = append(c.dec, d.D)
	case types.PhysString:
		c.data = append(c.data, d.S...)
		c.offs = append(c.offs, int32(len(c.data)))
	case types.PhysDate32:
		c.i32 = append(c.i32, int32(d.I))
	default:
		c.i64 = append(c.i64, d.I)
	}
	c.appendValid()
}

// appendValid completes the append of a valid value.
func (c *column) appendValid() {
	if c.valid != nil {
		c.valid = growBits(c.valid, c.n+1)
		bitutil.SetBit(c.valid, c.n)
	}
	c.n++
}

// appendNull appends a NULL.
func (c *column) appendNull() {
	switch c.t.Physical() {
	case types.PhysBool:
		c.bits = growBits(c.bits, c.n+1)
	case types.PhysFloat64:
		c.f64 = append(c.f64, 0)
	case types.PhysDecimal:
		c.dec = append(c.dec, decimal128.Num{})
	case types.PhysString:
		c.offs = append(c.offs, int32(len(c.data)))
	case types.PhysDate32:
		c.i32 = append(c.i32, 0)
	default:
		c.i64 = append(c.i64, 0)
	}
	c.makeValid()
	c.valid = growBits(c.valid, c.n+1)
	c.nulls++
	c.n++
}
