package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TakeParts returns one array holding the rows sels[k] of arrs[k], part
// after part: what Take of each part and a concatenation would give, in
// one copy of the rows where those make two. A hash exchange collects the
// small parts of several chunks for one consumer this way. The arrays
// must be of one type, and every index in range.
func TakeParts(alloc memory.Allocator, arrs []arrow.Array, sels [][]int32) (arrow.Array, error) {
	if len(arrs) != len(sels) || len(arrs) == 0 {
		return nil, fmt.Errorf("expr: TakeParts of %d arrays with %d selections", len(arrs), len(sels))
	}
	if len(arrs) == 1 {
		return Take(alloc, arrs[0], sels[0])
	}
	dt := arrs[0].DataType()
	n, hasNulls := 0, false
	for k, arr := range arrs {
		if !arrow.TypeEqual(arr.DataType(), dt) {
			return nil, fmt.Errorf("expr: TakeParts of %s and %s", dt, arr.DataType())
		}
		for _, i := range sels[k] {
			if uint32(i) >= uint32(arr.Len()) {
				return nil, fmt.Errorf("expr: Take index %d out of range [0, %d)", i, arr.Len())
			}
		}
		n += len(sels[k])
		hasNulls = hasNulls || arr.NullN() > 0
	}
	if dt.ID() == arrow.NULL {
		return array.NewNull(n), nil
	}
	var nullBuf *memory.Buffer
	nulls := 0
	if hasNulls {
		nullBuf = newBuffer(alloc, bitmapBytes(n))
		bits := nullBuf.Bytes()
		clear(bits)
		at := 0
		for k, arr := range arrs {
			if arr.NullN() == 0 {
				setBits(bits, at, len(sels[k]))
			} else {
				nulls += takeBitsAt(bits, at, arr.NullBitmapBytes(), arr.Data().Offset(), sels[k])
			}
			at += len(sels[k])
		}
	}
	bufs := []*memory.Buffer{nullBuf, nil}
	switch dt.ID() {
	case arrow.BOOL:
		vb := newBuffer(alloc, bitmapBytes(n))
		bits := vb.Bytes()
		clear(bits)
		at := 0
		for k, arr := range arrs {
			takeBitsAt(bits, at, valuesBytes(arr), arr.Data().Offset(), sels[k])
			at += len(sels[k])
		}
		bufs[1] = vb
	case arrow.INT64, arrow.TIMESTAMP, arrow.DURATION:
		bufs[1] = takeValueParts[int64](alloc, arrs, sels, n)
	case arrow.FLOAT64:
		bufs[1] = takeValueParts[float64](alloc, arrs, sels, n)
	case arrow.DATE32:
		bufs[1] = takeValueParts[int32](alloc, arrs, sels, n)
	case arrow.DECIMAL128:
		bufs[1] = takeValueParts[decimal128.Num](alloc, arrs, sels, n)
	case arrow.STRING:
		ob, db := takeStringParts(alloc, arrs, sels, n)
		bufs[1] = ob
		bufs = append(bufs, db)
	default:
		if nullBuf != nil {
			nullBuf.Release()
		}
		return nil, fmt.Errorf("%w: Take of %s", ErrNotSupported, dt)
	}
	return newArray(dt, n, bufs, nulls), nil
}

// valuesBytes returns the bytes of arr's values buffer (nil if it has
// none).
func valuesBytes(arr arrow.Array) []byte {
	if b := arr.Data().Buffers()[1]; b != nil {
		return b.Bytes()
	}
	return nil
}

// takeValueParts returns a new buffer of the values of type T at sels[k]
// of arrs[k], part after part, n in all.
func takeValueParts[T arrow.FixedWidthType](alloc memory.Allocator, arrs []arrow.Array, sels [][]int32, n int) *memory.Buffer {
	b, dst := newValues[T](alloc, n)
	at := 0
	for k, arr := range arrs {
		gather(dst[at:], arrow.GetData[T](valuesBytes(arr))[arr.Data().Offset():], sels[k])
		at += len(sels[k])
	}
	return b
}

// takeStringParts gathers the strings at sels[k] of arrs[k], part after
// part, n in all, into new offsets and data buffers.
func takeStringParts(alloc memory.Allocator, arrs []arrow.Array, sels [][]int32, n int) (*memory.Buffer, *memory.Buffer) {
	offsOf := func(arr arrow.Array) []int32 {
		return arrow.Int32Traits.CastFromBytes(valuesBytes(arr))[arr.Data().Offset():]
	}
	size := 0
	for k, arr := range arrs {
		offs := offsOf(arr)
		for _, i := range sels[k] {
			size += int(offs[i+1] - offs[i])
		}
	}
	ob := newBuffer(alloc, (n+1)*4)
	db := newBuffer(alloc, size)
	outOffs, out := arrow.Int32Traits.CastFromBytes(ob.Bytes()), db.Bytes()
	pos, j := int32(0), 0
	outOffs[0] = 0
	for k, arr := range arrs {
		offs := offsOf(arr)
		var src []byte
		if d := arr.Data().Buffers()[2]; d != nil {
			src = d.Bytes()
		}
		for _, i := range sels[k] {
			pos += int32(copy(out[pos:], src[offs[i]:offs[i+1]]))
			j++
			outOffs[j] = pos
		}
	}
	return ob, db
}

// takeBitsAt sets bit at+j of dst, whose bits from at on are clear, to bit
// off+sel[j] of src, and returns how many of them it left clear.
func takeBitsAt(dst []byte, at int, src []byte, off int, sel []int32) int {
	set := 0
	for j, i := range sel {
		k := off + int(i)
		bit := (src[k>>3] >> (k & 7)) & 1
		d := at + j
		dst[d>>3] |= bit << (d & 7)
		set += int(bit)
	}
	return len(sel) - set
}

// setBits sets bits at..at+n-1 of dst.
func setBits(dst []byte, at, n int) {
	for d := at; d < at+n; d++ {
		dst[d>>3] |= 1 << (d & 7)
	}
}
