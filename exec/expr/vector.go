package expr

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// vector is a column of values while an expression is evaluated. Exactly one
// value slice is in use, chosen by the physical type of the column. A vector
// either views memory it does not own (an input column) or the scratch
// buffers of the node that produced it; it stays valid until that node is
// evaluated again.
type vector struct {
	// konst marks a constant: one value (row 0) stands for every row. Its
	// slices have length 1.
	konst bool
	// valid is the validity bitmap, bit i for row i (bit 0 for a constant);
	// nil when no row is NULL.
	valid []byte
	b     []bool           // BOOLEAN
	i64   []int64          // integers, TIMESTAMP and INTERVAL (ms)
	i32   []int32          // DATE (days)
	f64   []float64        // FLOAT, DOUBLE
	dec   []decimal128.Num // DECIMAL, at its type's scale
	offs  []int32          // VARCHAR: value i is data[offs[i]:offs[i+1]]
	data  []byte
}

// row maps row i to its index in the value slices (0 for a constant).
func (v *vector) row(i int) int {
	if v.konst {
		return 0
	}
	return i
}

// isValid reports whether row i is not NULL.
func (v *vector) isValid(i int) bool {
	return v.valid == nil || bitutil.BitIsSet(v.valid, v.row(i))
}

// isNullConst reports whether v is the constant NULL.
func (v *vector) isNullConst() bool {
	return v.konst && v.valid != nil && !bitutil.BitIsSet(v.valid, 0)
}

// str returns row i of a VARCHAR vector. The string aliases the vector's
// memory: it must not outlive the batch.
func (v *vector) str(i int) string {
	i = v.row(i)
	lo, hi := v.offs[i], v.offs[i+1]
	if lo == hi {
		return ""
	}
	return unsafe.String(&v.data[lo], int(hi-lo))
}

func (v *vector) int64At(i int) int64        { return v.i64[v.row(i)] }
func (v *vector) int32At(i int) int32        { return v.i32[v.row(i)] }
func (v *vector) float64At(i int) float64    { return v.f64[v.row(i)] }
func (v *vector) decAt(i int) decimal128.Num { return v.dec[v.row(i)] }
func (v *vector) boolAt(i int) bool          { return v.b[v.row(i)] }
func (v *vector) hasNulls() bool             { return v.valid != nil }
func (v *vector) validAndTrue(i int) bool    { return v.isValid(i) && v.boolAt(i) }
func grow[T any](s []T, n int) []T           { return growCap(s, n)[:n] }
func bitmapBytes(n int) int                  { return (n + 7) / 8 }
func boolToByte(b bool) byte                 { return *(*byte)(unsafe.Pointer(&b)) }
func setBitTo(bm []byte, i int, v bool)      { bitutil.SetBitTo(bm, i, v) }
func allKonst(vs []*vector) bool             { return allOf(vs, func(v *vector) bool { return v.konst }) }
func anyNullConst(vs []*vector) bool {
	return !allOf(vs, func(v *vector) bool { return !v.isNullConst() })
}
func allOf(vs []*vector, f func(*vector) bool) bool {
	for _, v := range vs {
		if !f(v) {
			return false
		}
	}
	return true
}

// growCap returns s with room for n elements, reallocating (with headroom)
// only when it is too small, so scratch buffers settle after a few batches.
func growCap[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s
	}
	return make([]T, n, n+n/4)
}

// buffers is scratch memory owned by a node or an evaluation context. It is
// kept separate from the vector that views it so that a vector may alias
// memory owned elsewhere without the owner's buffers being overwritten.
type buffers struct {
	valid []byte
	b     []bool
	i64   []int64
	i32   []int32
	f64   []float64
	dec   []decimal128.Num
	offs  []int32
	data  []byte
}

// result is a node's output: a vector and the scratch memory behind it.
type result struct {
	vector
	buf buffers
}

// reset empties r for a new evaluation.
func (r *result) reset() *vector {
	r.vector = vector{}
	return &r.vector
}

// bools, int64s, int32s, float64s and decs make r's values n values of
// their type in r's scratch memory, for a kernel to write.
func (r *result) bools(n int) []bool          { r.b = scratch(&r.buf.b, n); return r.b }
func (r *result) int64s(n int) []int64        { r.i64 = scratch(&r.buf.i64, n); return r.i64 }
func (r *result) int32s(n int) []int32        { r.i32 = scratch(&r.buf.i32, n); return r.i32 }
func (r *result) float64s(n int) []float64    { r.f64 = scratch(&r.buf.f64, n); return r.f64 }
func (r *result) decs(n int) []decimal128.Num { r.dec = scratch(&r.buf.dec, n); return r.dec }
func scratch[T any](buf *[]T, n int) []T      { *buf = grow(*buf, n); return *buf }

// strings prepares r for n string values appended with appendStr; sizeHint
// is the expected number of bytes.
func (r *result) strings(n, sizeHint int) {
	r.buf.offs = growCap(r.buf.offs, n+1)[:1]
	r.buf.offs[0] = 0
	r.buf.data = growCap(r.buf.data, sizeHint)[:0]
}

// appendStr appends the next string value (also for NULL rows, with "").
func (r *result) appendStr(s string) {
	r.buf.data = append(r.buf.data, s...)
	r.buf.offs = append(r.buf.offs, int32(len(r.buf.data)))
}

// appendBytes appends the next string value from bytes.
func (r *result) appendBytes(s []byte) {
	r.buf.data = append(r.buf.data, s...)
	r.buf.offs = append(r.buf.offs, int32(len(r.buf.data)))
}

// finishStrings publishes the appended strings as r's values.
func (r *result) finishStrings() {
	r.offs, r.data = r.buf.offs, r.buf.data
}

// ownValid gives r an owned validity bitmap for n rows with every row valid.
func (r *result) ownValid(n int) []byte {
	r.buf.valid = grow(r.buf.valid, bitmapBytes(n))
	for i := range r.buf.valid {
		r.buf.valid[i] = 0xff
	}
	r.valid = r.buf.valid
	return r.valid
}

// setNull marks row i NULL, creating the bitmap on first use. r's validity
// must be owned (made by ownValid or andValid), or nil.
func (r *result) setNull(i, n int) {
	if r.valid == nil {
		r.ownValid(n)
	}
	bitutil.ClearBit(r.valid, i)
}

// andValid sets r's validity to the AND of the argument validities over n
// rows (a non-NULL constant counts as all valid). The bitmap is owned by r.
func (r *result) andValid(n int, args ...*vector) {
	r.valid = nil
	for _, a := range args {
		if a.valid == nil {
			continue
		}
		if a.konst {
			if !bitutil.BitIsSet(a.valid, 0) {
				r.ownValid(n)
				clear(r.valid)
				return
			}
			continue
		}
		nb := bitmapBytes(n)
		if r.valid == nil {
			r.buf.valid = grow(r.buf.valid, nb)
			copy(r.buf.valid, a.valid[:nb])
			r.valid = r.buf.valid
			continue
		}
		dst, src := r.valid[:nb], a.valid[:nb]
		for i := range dst {
			dst[i] &= src[i]
		}
	}
}

// nullConst makes r the constant NULL.
func (r *result) nullConst() *vector {
	r.vector = nullVector
	return &r.vector
}

// emptyVector is a vector of no rows, of every type (offsets for no
// strings). It is shared and never written.
var emptyVector = vector{offs: []int32{0}}

// nullVector is the constant NULL of every type: its value slices hold one
// zero value so that kernels may read row 0 of any type. It is shared and
// never written.
var nullVector = vector{
	konst: true, valid: []byte{0},
	b: []bool{false}, i64: []int64{0}, i32: []int32{0}, f64: []float64{0},
	dec: []decimal128.Num{{}}, offs: []int32{0, 0}, data: nil,
}
