package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
)

// Take returns a new array holding arr's rows at sel, in sel's order. Every
// index must be in range. It has typed fast paths for every physical type of
// eddy's columns (boolean, int64, float64, decimal128, utf8, date32,
// timestamp, duration, null).
func Take(alloc memory.Allocator, arr arrow.Array, sel []int32) (arrow.Array, error) {
	n := len(sel)
	data := arr.Data()
	off := data.Offset()
	for _, i := range sel {
		if uint32(i) >= uint32(arr.Len()) { // negative indices wrap to large ones
			return nil, fmt.Errorf("expr: Take index %d out of range [0, %d)", i, arr.Len())
		}
	}
	if arr.DataType().ID() == arrow.NULL {
		return array.NewNull(n), nil
	}
	var nullBuf *memory.Buffer
	nulls := 0
	if arr.NullN() > 0 {
		nullBuf = newBuffer(alloc, bitmapBytes(n))
		nulls = takeBits(nullBuf.Bytes(), arr.NullBitmapBytes(), off, sel)
	}
	var raw []byte
	if b := data.Buffers()[1]; b != nil {
		raw = b.Bytes()
	}
	var vb *memory.Buffer
	bufs := []*memory.Buffer{nullBuf, nil}
	switch arr.DataType().ID() {
	case arrow.BOOL:
		vb = newBuffer(alloc, bitmapBytes(n))
		takeBits(vb.Bytes(), raw, off, sel)
	case arrow.INT64, arrow.TIMESTAMP, arrow.DURATION:
		vb = takeValues[int64](alloc, raw, off, sel)
	case arrow.FLOAT64:
		vb = takeValues[float64](alloc, raw, off, sel)
	case arrow.DATE32:
		vb = takeValues[int32](alloc, raw, off, sel)
	case arrow.DECIMAL128:
		vb = takeValues[decimal128.Num](alloc, raw, off, sel)
	case arrow.STRING:
		var db *memory.Buffer
		vb, db = takeStrings(alloc, arrow.Int32Traits.CastFromBytes(raw)[off:], data.Buffers()[2], sel)
		bufs = append(bufs, db)
	default:
		if nullBuf != nil {
			nullBuf.Release()
		}
		return nil, fmt.Errorf("%w: Take of %s", ErrNotSupported, arr.DataType())
	}
	bufs[1] = vb
	return newArray(arr.DataType(), n, bufs, nulls), nil
}

// takeValues returns a new buffer of the values of type T at sel of the
// values buffer raw of an array at offset off.
func takeValues[T arrow.FixedWidthType](alloc memory.Allocator, raw []byte, off int, sel []int32) *memory.Buffer {
	b, dst := newValues[T](alloc, len(sel))
	gather(dst, arrow.GetData[T](raw)[off:], sel)
	return b
}

// gather sets dst[j] = src[sel[j]].
func gather[T any](dst, src []T, sel []int32) {
	dst = dst[:len(sel)]
	for j, i := range sel {
		dst[j] = src[i]
	}
}

// takeBits sets bit j of dst to bit off+sel[j] of src and returns how many
// bits it cleared.
func takeBits(dst, src []byte, off int, sel []int32) int {
	clear(dst)
	set := 0
	for j, i := range sel {
		k := off + int(i)
		bit := (src[k>>3] >> (k & 7)) & 1
		dst[j>>3] |= bit << (j & 7)
		set += int(bit)
	}
	return len(sel) - set
}

// takeStrings gathers strings into new offsets and data buffers.
func takeStrings(alloc memory.Allocator, offs []int32, data *memory.Buffer, sel []int32) (*memory.Buffer, *memory.Buffer) {
	size := 0
	for _, i := range sel {
		size += int(offs[i+1] - offs[i])
	}
	ob := newBuffer(alloc, (len(sel)+1)*4)
	db := newBuffer(alloc, size)
	outOffs, out := arrow.Int32Traits.CastFromBytes(ob.Bytes()), db.Bytes()
	var src []byte
	if data != nil {
		src = data.Bytes()
	}
	pos := int32(0)
	outOffs[0] = 0
	for j, i := range sel {
		pos += int32(copy(out[pos:], src[offs[i]:offs[i+1]]))
		outOffs[j+1] = pos
	}
	return ob, db
}

// takeVec makes dst hold src's rows at sel. Constants are shared, not
// copied.
func takeVec(dst *result, src *vector, p types.Physical, sel []int32) {
	if src.konst {
		dst.vector = *src
		return
	}
	dst.reset()
	n := len(sel)
	if src.valid != nil {
		dst.buf.valid = grow(dst.buf.valid, bitmapBytes(n))
		if takeBits(dst.buf.valid, src.valid, 0, sel) > 0 {
			dst.valid = dst.buf.valid
		}
	}
	switch p {
	case types.PhysBool:
		gather(dst.bools(n), src.b, sel)
	case types.PhysInt64, types.PhysTimestamp, types.PhysDuration:
		gather(dst.int64s(n), src.i64, sel)
	case types.PhysDate32:
		gather(dst.int32s(n), src.i32, sel)
	case types.PhysFloat64:
		gather(dst.float64s(n), src.f64, sel)
	case types.PhysDecimal:
		gather(dst.decs(n), src.dec, sel)
	case types.PhysString:
		size := 0
		for _, i := range sel {
			size += int(src.offs[i+1] - src.offs[i])
		}
		dst.strings(n, size)
		for _, i := range sel {
			dst.appendBytes(src.data[src.offs[i]:src.offs[i+1]])
		}
		dst.finishStrings()
	case types.PhysNull:
		dst.vector = nullVector
	}
}
