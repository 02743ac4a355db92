package rowset

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
)

// column holds one column of a segment's rows in the layout of an Arrow
// array of its type, in Go slices that only grow: the rows already stored
// are never written again, so an Arrow array over a prefix of them (array)
// stays valid while rows are appended after it. Its validity bitmap is nil
// until the first NULL.
type column struct {
	t     types.T
	dt    arrow.DataType
	n     int
	valid []byte // bit i set: row i is not NULL; nil while every row is valid
	nulls int
	i64   []int64          // BIGINT, TIMESTAMP, INTERVAL
	i32   []int32          // DATE
	f64   []float64        // DOUBLE
	dec   []decimal128.Num // DECIMAL
	bits  []byte           // BOOLEAN values, a bitmap
	offs  []int32          // VARCHAR offsets, n+1 of them
	data  []byte           // VARCHAR bytes
}

func newColumn(t types.T) column {
	c := column{t: t, dt: t.Arrow()}
	if t.Physical() == types.PhysString {
		c.offs = []int32{0}
	}
	return c
}

// reserve makes room for rows more rows, and for VARCHAR for bytes more
// bytes.
func (c *column) reserve(rows, bytes int) {
	switch c.t.Physical() {
	case types.PhysBool:
		c.bits = make([]byte, 0, bitutil.BytesForBits(int64(rows)))
	case types.PhysFloat64:
		c.f64 = make([]float64, 0, rows)
	case types.PhysDecimal:
		c.dec = make([]decimal128.Num, 0, rows)
	case types.PhysString:
		c.offs = make([]int32, 1, rows+1)
		c.data = make([]byte, 0, bytes)
	case types.PhysDate32:
		c.i32 = make([]int32, 0, rows)
	default:
		c.i64 = make([]int64, 0, rows)
	}
}

// appendRange appends rows [from, to) of a, an array of the column's type.
func (c *column) appendRange(a arrow.Array, from, to int) {
	switch a := a.(type) {
	case *array.Int64:
		c.i64 = append(c.i64, a.Int64Values()[from:to]...)
	case *array.Timestamp:
		c.i64 = append(c.i64, arrow.Int64Traits.CastFromBytes(arrow.TimestampTraits.CastToBytes(a.TimestampValues()[from:to]))...)
	case *array.Duration:
		c.i64 = append(c.i64, arrow.Int64Traits.CastFromBytes(arrow.DurationTraits.CastToBytes(a.DurationValues()[from:to]))...)
	case *array.Date32:
		c.i32 = append(c.i32, arrow.Int32Traits.CastFromBytes(arrow.Date32Traits.CastToBytes(a.Date32Values()[from:to]))...)
	case *array.Float64:
		c.f64 = append(c.f64, a.Float64Values()[from:to]...)
	case *array.Decimal128:
		c.dec = append(c.dec, a.Values()[from:to]...)
	case *array.Boolean:
		c.bits = growBits(c.bits, c.n+to-from)
		for i := from; i < to; i++ {
			if a.Value(i) {
				bitutil.SetBit(c.bits, c.n+i-from)
			}
		}
	case *array.String:
		o := a.ValueOffsets()
		base := int32(len(c.data)) - o[from]
		c.data = append(c.data, a.ValueBytes()[o[from]-o[0]:o[to]-o[0]]...)
		for i := from + 1; i <= to; i++ {
			c.offs = append(c.offs, o[i]+base)
		}
	}
	c.appendValidity(a, from, to)
	c.n += to - from
}

// appendSel appends rows sel of a, an array of the column's type, in
// that order.
func (c *column) appendSel(a arrow.Array, sel []int32) {
	switch a := a.(type) {
	case *array.Int64:
		vs := a.Int64Values()
		for _, i := range sel {
			c.i64 = append(c.i64, vs[i])
		}
	case *array.Timestamp:
		vs := a.TimestampValues()
		for _, i := range sel {
			c.i64 = append(c.i64, int64(vs[i]))
		}
	case *array.Duration:
		vs := a.DurationValues()
		for _, i := range sel {
			c.i64 = append(c.i64, int64(vs[i]))
		}
	case *array.Date32:
		vs := a.Date32Values()
		for _, i := range sel {
			c.i32 = append(c.i32, int32(vs[i]))
		}
	case *array.Float64:
		vs := a.Float64Values()
		for _, i := range sel {
			c.f64 = append(c.f64, vs[i])
		}
	case *array.Decimal128:
		vs := a.Values()
		for _, i := range sel {
			c.dec = append(c.dec, vs[i])
		}
	case *array.Boolean:
		c.bits = growBits(c.bits, c.n+len(sel))
		for k, i := range sel {
			if a.Value(int(i)) {
				bitutil.SetBit(c.bits, c.n+k)
			}
		}
	case *array.String:
		for _, i := range sel {
			c.data = append(c.data, a.Value(int(i))...)
			c.offs = append(c.offs, int32(len(c.data)))
		}
	}
	if a.NullN() > 0 || c.valid != nil {
		c.makeValid()
		c.valid = growBits(c.valid, c.n+len(sel))
		for k, i := range sel {
			if a.IsNull(int(i)) {
				c.nulls++
			} else {
				bitutil.SetBit(c.valid, c.n+k)
			}
		}
	}
	c.n += len(sel)
}

// appendFrom appends row i of d, a column of the same type (compaction).
func (c *column) appendFrom(d *column, i int) {
	switch c.t.Physical() {
	case types.PhysBool:
		c.bits = growBits(c.bits, c.n+1)
		if bitutil.BitIsSet(d.bits, i) {
			bitutil.SetBit(c.bits, c.n)
		}
	case types.PhysFloat64:
		c.f64 = append(c.f64, d.f64[i])
	case types.PhysDecimal:
		c.dec = append(c.dec, d.dec[i])
	case types.PhysString:
		c.data = append(c.data, d.bytesAt(i)...)
		c.offs = append(c.offs, int32(len(c.data)))
	case types.PhysDate32:
		c.i32 = append(c.i32, d.i32[i])
	default:
		c.i64 = append(c.i64, d.i64[i])
	}
	if null := d.isNull(i); null || c.valid != nil {
		c.makeValid()
		c.valid = growBits(c.valid, c.n+1)
		if null {
			c.nulls++
		} else {
			bitutil.SetBit(c.valid, c.n)
		}
	}
	c.n++
}

// makeValid makes the validity bitmap at the first NULL: every row
// stored so far is valid.
func (c *column) makeValid() {
	if c.valid == nil {
		c.valid = growBits(nil, c.n)
		bitutil.SetBitsTo(c.valid, 0, int64(c.n), true)
	}
}

// growBits returns bits with room for n bits, the new ones clear.
func growBits(bits []byte, n int) []byte {
	need := int(bitutil.BytesForBits(int64(n)))
	for len(bits) < need {
		bits = append(bits, 0)
	}
	return bits
}

// appendValidity extends the validity bitmap over rows [from, to) of a,
// about to be appended: it is made at the first NULL, every row before it
// valid.
func (c *column) appendValidity(a arrow.Array, from, to int) {
	nulls := a.NullN() > 0
	if c.valid == nil {
		if !nulls {
			return
		}
		c.makeValid()
	}
	c.valid = growBits(c.valid, c.n+to-from)
	if !nulls {
		bitutil.SetBitsTo(c.valid, int64(c.n), int64(to-from), true)
		return
	}
	for i := from; i < to; i++ {
		if a.IsNull(i) {
			c.nulls++
		} else {
			bitutil.SetBit(c.valid, c.n+i-from)
		}
	}
}

// isNull reports whether row i is NULL.
func (c *column) isNull(i int) bool { return c.valid != nil && !bitutil.BitIsSet(c.valid, i) }

// equalAt reports whether row i holds the value of row j of a, an array of
// the column's type, as rowkey encodes values: NULL equals NULL, -0 equals
// +0, and floats are otherwise compared by their bits.
func (c *column) equalAt(i int, a arrow.Array, j int) bool {
	if n := a.IsNull(j); n || c.isNull(i) {
		return n && c.isNull(i)
	}
	switch a := a.(type) {
	case *array.Int64:
		return c.i64[i] == a.Value(j)
	case *array.Timestamp:
		return c.i64[i] == int64(a.Value(j))
	case *array.Duration:
		return c.i64[i] == int64(a.Value(j))
	case *array.Date32:
		return c.i32[i] == int32(a.Value(j))
	case *array.Float64:
		return floatBits(c.f64[i]) == floatBits(a.Value(j))
	case *array.Decimal128:
		return c.dec[i] == a.Value(j)
	case *array.Boolean:
		return bitutil.BitIsSet(c.bits, i) == a.Value(j)
	case *array.String:
		return string(c.bytesAt(i)) == a.Value(j)
	}
	return false
}

// floatBits returns the bits that identify a float as a key: -0 is +0.
func floatBits(f float64) uint64 {
	if f == 0 {
		return 0
	}
	return math.Float64bits(f)
}

func (c *column) bytesAt(i int) []byte { return c.data[c.offs[i]:c.offs[i+1]] }

// datum returns row i's value.
func (c *column) datum(i int) types.Datum {
	if c.isNull(i) {
		return types.NullDatum
	}
	switch c.t.Physical() {
	case types.PhysBool:
		return types.BoolDatum(bitutil.BitIsSet(c.bits, i))
	case types.PhysFloat64:
		return types.FloatDatum(c.f64[i])
	case types.PhysDecimal:
		return types.DecimalDatum(c.dec[i])
	case types.PhysString:
		return types.Datum{S: string(c.bytesAt(i))}
	case types.PhysDate32:
		return types.IntDatum(int64(c.i32[i]))
	}
	return types.IntDatum(c.i64[i])
}

// bytes returns the memory the column holds.
func (c *column) bytes() int64 {
	return int64(cap(c.valid) + 8*cap(c.i64) + 4*cap(c.i32) + 8*cap(c.f64) + 16*cap(c.dec) +
		cap(c.bits) + 4*cap(c.offs) + cap(c.data))
}

// array returns an Arrow array over rows [0, n) of the column, sharing its
// memory: the column never writes those rows again.
func (c *column) array(n int) arrow.Array {
	var valid *memory.Buffer
	nulls := 0
	if c.valid != nil && c.nulls > 0 {
		valid = memory.NewBufferBytes(c.valid[:bitutil.BytesForBits(int64(n))])
		nulls = array.UnknownNullCount
	}
	var bufs []*memory.Buffer
	switch c.t.Physical() {
	case types.PhysBool:
		bufs = []*memory.Buffer{valid, memory.NewBufferBytes(c.bits[:bitutil.BytesForBits(int64(n))])}
	case types.PhysFloat64:
		bufs = []*memory.Buffer{valid, memory.NewBufferBytes(arrow.Float64Traits.CastToBytes(c.f64[:n]))}
	case types.PhysDecimal:
		bufs = []*memory.Buffer{valid, memory.NewBufferBytes(arrow.Decimal128Traits.CastToBytes(c.dec[:n]))}
	case types.PhysString:
		bufs = []*memory.Buffer{valid, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(c.offs[:n+1])),
			memory.NewBufferBytes(c.data[:c.offs[n]])}
	case types.PhysDate32:
		bufs = []*memory.Buffer{valid, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(c.i32[:n]))}
	default:
		bufs = []*memory.Buffer{valid, memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(c.i64[:n]))}
	}
	data := array.NewData(c.dt, n, bufs, nil, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data)
}
