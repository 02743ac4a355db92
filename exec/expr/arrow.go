package expr

import (
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
)

// arrowID is the Arrow type ID that holds each physical type.
var arrowID = [...]arrow.Type{
	types.PhysNull: arrow.NULL, types.PhysBool: arrow.BOOL, types.PhysInt64: arrow.INT64,
	types.PhysFloat64: arrow.FLOAT64, types.PhysDecimal: arrow.DECIMAL128, types.PhysString: arrow.STRING,
	types.PhysDate32: arrow.DATE32, types.PhysTimestamp: arrow.TIMESTAMP, types.PhysDuration: arrow.DURATION,
}

// load makes v a view of arr, an array of type t, without copying values.
// Only a validity bitmap at an unaligned offset and booleans (bit-packed in
// Arrow, one byte per value here) are copied, into buf.
func load(v *vector, arr arrow.Array, t types.T, buf *buffers) error {
	p := t.Physical()
	if err := checkColumn(arr, t); err != nil {
		return err
	}
	*v = vector{}
	n, off := arr.Len(), arr.Data().Offset()
	if p == types.PhysNull || (n > 0 && arr.NullN() == n) {
		*v = nullVector
		return nil
	}
	if n == 0 {
		v.offs = []int32{0}
		return nil
	}
	if arr.NullN() > 0 {
		bm := arr.NullBitmapBytes()
		if off%8 == 0 {
			v.valid = bm[off/8:]
		} else {
			buf.valid = grow(buf.valid, bitmapBytes(n))
			bitutil.CopyBitmap(bm, off, n, buf.valid, 0)
			v.valid = buf.valid
		}
	}
	bufs := arr.Data().Buffers()
	raw := func(i int) []byte {
		if bufs[i] == nil {
			return nil
		}
		return bufs[i].Bytes()
	}
	switch p {
	case types.PhysBool:
		buf.b = grow(buf.b, n)
		bits := raw(1)
		for i := range buf.b {
			buf.b[i] = bitutil.BitIsSet(bits, off+i)
		}
		v.b = buf.b
	case types.PhysInt64, types.PhysTimestamp, types.PhysDuration:
		v.i64 = arrow.Int64Traits.CastFromBytes(raw(1))[off : off+n]
	case types.PhysDate32:
		v.i32 = arrow.Int32Traits.CastFromBytes(raw(1))[off : off+n]
	case types.PhysFloat64:
		v.f64 = arrow.Float64Traits.CastFromBytes(raw(1))[off : off+n]
	case types.PhysDecimal:
		v.dec = arrow.Decimal128Traits.CastFromBytes(raw(1))[off : off+n]
	case types.PhysString:
		v.offs = arrow.Int32Traits.CastFromBytes(raw(1))[off : off+n+1]
		v.data = raw(2)
	}
	return nil
}

// checkColumn reports an error unless arr holds values of type t.
func checkColumn(arr arrow.Array, t types.T) error {
	p := t.Physical()
	if id := arr.DataType().ID(); id != arrowID[p] {
		return fmt.Errorf("expr: column of Arrow type %s where %s (%s) was expected", arr.DataType(), t, arrowID[p])
	}
	return nil
}

// newBuffer allocates a buffer of size bytes from alloc.
func newBuffer(alloc memory.Allocator, size int) *memory.Buffer {
	b := memory.NewResizableBuffer(alloc)
	b.Resize(size)
	return b
}

// export copies the first n rows of v (of type t, Arrow type dt) into a new
// Arrow array allocated from alloc. A constant is repeated n times.
func export(alloc memory.Allocator, v *vector, t types.T, dt arrow.DataType, n int) arrow.Array {
	p := t.Physical()
	if p == types.PhysNull {
		return array.NewNull(n)
	}
	var nullBuf *memory.Buffer
	nulls := 0
	if v.valid != nil {
		nullBuf = newBuffer(alloc, bitmapBytes(n))
		bm := nullBuf.Bytes()
		switch {
		case v.konst && !bitutil.BitIsSet(v.valid, 0):
			clear(bm)
		case v.konst:
			fillBits(bm)
		default:
			copy(bm, v.valid[:bitmapBytes(n)])
		}
		nulls = n - bitutil.CountSetBits(bm, 0, n)
		if nulls == 0 {
			nullBuf.Release()
			nullBuf = nil
		}
	}
	var bufs []*memory.Buffer
	switch p {
	case types.PhysBool:
		vb := newBuffer(alloc, bitmapBytes(n))
		packBools(vb.Bytes(), v, n)
		bufs = []*memory.Buffer{nullBuf, vb}
	case types.PhysInt64, types.PhysTimestamp, types.PhysDuration:
		bufs = []*memory.Buffer{nullBuf, exportValues(alloc, v.i64, v.konst, n)}
	case types.PhysDate32:
		bufs = []*memory.Buffer{nullBuf, exportValues(alloc, v.i32, v.konst, n)}
	case types.PhysFloat64:
		bufs = []*memory.Buffer{nullBuf, exportValues(alloc, v.f64, v.konst, n)}
	case types.PhysDecimal:
		bufs = []*memory.Buffer{nullBuf, exportValues(alloc, v.dec, v.konst, n)}
	case types.PhysString:
		bufs = append([]*memory.Buffer{nullBuf}, exportStrings(alloc, v, n)...)
	}
	return newArray(dt, n, bufs, nulls)
}

// newArray returns an array of type dt of n values, nulls of them NULL, over
// bufs, which it takes over (releases its references to).
func newArray(dt arrow.DataType, n int, bufs []*memory.Buffer, nulls int) arrow.Array {
	data := array.NewData(dt, n, bufs, nil, nulls, 0)
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
	defer data.Release()
	return array.MakeFromData(data)
}

// newValues allocates a buffer of n values of type T from alloc and returns
// it with its values.
func newValues[T arrow.FixedWidthType](alloc memory.Allocator, n int) (*memory.Buffer, []T) {
	var zero T
	b := newBuffer(alloc, n*int(unsafe.Sizeof(zero)))
	return b, arrow.GetData[T](b.Bytes())
}

// exportValues returns a new buffer of the first n values of src, or of n
// copies of src[0] when konst.
func exportValues[T arrow.FixedWidthType](alloc memory.Allocator, src []T, konst bool, n int) *memory.Buffer {
	b, dst := newValues[T](alloc, n)
	fillFrom(dst, src, konst)
	return b
}

// fillFrom copies src into dst, or repeats src[0] when konst.
func fillFrom[T any](dst, src []T, konst bool) {
	if !konst {
		copy(dst, src[:len(dst)])
		return
	}
	if len(dst) == 0 {
		return
	}
	dst[0] = src[0]
	for i := 1; i < len(dst); i *= 2 {
		copy(dst[i:], dst[:i])
	}
}

// fillBits sets every bit of bm.
func fillBits(bm []byte) {
	for i := range bm {
		bm[i] = 0xff
	}
}

// packBools packs the first n booleans of v into the bitmap bm.
func packBools(bm []byte, v *vector, n int) {
	if v.konst {
		if v.b[0] {
			fillBits(bm)
		} else {
			clear(bm)
		}
		return
	}
	b := v.b[:n]
	full := n / 8
	for i := 0; i < full; i++ {
		s := b[i*8 : i*8+8 : i*8+8]
		bm[i] = boolToByte(s[0]) | boolToByte(s[1])<<1 | boolToByte(s[2])<<2 | boolToByte(s[3])<<3 |
			boolToByte(s[4])<<4 | boolToByte(s[5])<<5 | boolToByte(s[6])<<6 | boolToByte(s[7])<<7
	}
	for i := full * 8; i < n; i++ {
		setBitTo(bm, i, b[i])
	}
}

// exportStrings returns the offsets and data buffers of n strings of v.
func exportStrings(alloc memory.Allocator, v *vector, n int) []*memory.Buffer {
	ob := newBuffer(alloc, (n+1)*4)
	offs := arrow.Int32Traits.CastFromBytes(ob.Bytes())
	if v.konst {
		s := v.str(0)
		db := newBuffer(alloc, n*len(s))
		data := db.Bytes()
		for i := 0; i <= n; i++ {
			offs[i] = int32(i * len(s))
		}
		for i := 0; i < n; i++ {
			copy(data[i*len(s):], s)
		}
		return []*memory.Buffer{ob, db}
	}
	base := v.offs[0]
	for i := 0; i <= n; i++ {
		offs[i] = v.offs[i] - base
	}
	db := newBuffer(alloc, int(v.offs[n]-base))
	copy(db.Bytes(), v.data[base:v.offs[n]])
	return []*memory.Buffer{ob, db}
}
