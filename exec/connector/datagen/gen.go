package datagen

import (
	"fmt"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
)

// column generates one field's values: row n's value is a function of
// the field, its key (from the seed and the column's place) and n alone.
type column struct {
	f   Field
	key uint64 // seeds the values' hash
	nul uint64 // seeds the NULLs' hash
	// nullBelow: a row is NULL when its NULL hash is below it.
	nullBelow uint64
	// limit is the first row whose value a sequence without an end cannot
	// make (it would leave the column's type); unbounded otherwise.
	limit uint64
	// span is Random's number of integer values, max - min + 1 (0: all
	// 2^64).
	span uint64

	ints  []int64
	valid []bool
	text  []byte
}

// newColumn readies field f, the i-th column, for seed.
func newColumn(f Field, i int, seed int64) *column {
	c := &column{f: f, limit: unbounded}
	c.key = mix(uint64(seed) ^ mix(uint64(i)+0x632be59bd9b4e019))
	c.nul = mix(c.key ^ 0x9e3779b97f4a7c15)
	if f.NullRate > 0 {
		c.nullBelow = uint64(f.NullRate * (1 << 63) * 2)
		if f.NullRate >= 1 {
			c.nullBelow = ^uint64(0)
		}
	}
	c.span = uint64(f.Max) - uint64(f.Min) + 1
	if f.Kind == Sequence && !f.HasEnd && !f.isFloat() {
		lo, hi := intRange(f.Column.Type)
		if f.Step > 0 {
			c.limit = (uint64(hi)-uint64(f.Start))/uint64(f.Step) + 1
		} else {
			c.limit = (uint64(f.Start)-uint64(lo))/uint64(-f.Step) + 1
		}
	}
	return c
}

// mix is splitmix64's finalizer: a bijection that scatters its input's
// bits over the whole word.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// hash returns row n's hash under key.
func hash(key, n uint64) uint64 { return mix(n*0x9e3779b97f4a7c15 + key) }

// below returns a uniform integer in [0, n) from hash h (Lemire's
// multiply-shift; n = 0 means 2^64).
func below(h, n uint64) uint64 {
	if n == 0 {
		return h
	}
	hi, _ := bits.Mul64(h, n)
	return hi
}

// unit returns a uniform float in [0, 1) from hash h.
func unit(h uint64) float64 { return float64(h>>11) / (1 << 53) }

// build returns the column's values for rows first, first+step, … (count
// of them).
func (c *column) build(alloc memory.Allocator, first, step uint64, count int) arrow.Array {
	b := types.NewBuilder(alloc, c.f.Column.Type)
	defer b.Release()
	b.Reserve(count)
	c.valid = c.valid[:0]
	if c.nullBelow > 0 {
		for k, n := 0, first; k < count; k, n = k+1, n+step {
			c.valid = append(c.valid, hash(c.nul, n) >= c.nullBelow)
		}
	}
	switch b := b.(type) {
	case *array.Int64Builder:
		b.AppendValues(c.intValues(first, step, count), c.valid)
	case *array.Date32Builder:
		appendConverted(b, c.intValues(first, step, count), c.valid, func(v int64) arrow.Date32 { return arrow.Date32(v) })
	case *array.TimestampBuilder:
		appendConverted(b, c.intValues(first, step, count), c.valid, func(v int64) arrow.Timestamp { return arrow.Timestamp(v) })
	case *array.DurationBuilder:
		appendConverted(b, c.intValues(first, step, count), c.valid, func(v int64) arrow.Duration { return arrow.Duration(v) })
	case *array.Decimal128Builder:
		if c.f.Kind == List {
			ds := make([]decimal128.Num, count)
			for k, n := 0, first; k < count; k, n = k+1, n+step {
				ds[k] = c.f.Values[below(hash(c.key, n), uint64(len(c.f.Values)))].D
			}
			b.AppendValues(ds, c.valid)
			break
		}
		appendConverted(b, c.intValues(first, step, count), c.valid, decimal128.FromI64)
	case *array.Float64Builder:
		fs := make([]float64, count)
		for k, n := 0, first; k < count; k, n = k+1, n+step {
			fs[k] = c.floatAt(n)
		}
		b.AppendValues(fs, c.valid)
	case *array.BooleanBuilder:
		vs := make([]bool, count)
		for k, n := 0, first; k < count; k, n = k+1, n+step {
			h := hash(c.key, n)
			vs[k] = h>>63 == 1
			if c.f.Kind == List {
				vs[k] = c.f.Values[below(h, uint64(len(c.f.Values)))].Bool()
			}
		}
		b.AppendValues(vs, c.valid)
	case *array.StringBuilder:
		for k, n := 0, first; k < count; k, n = k+1, n+step {
			if len(c.valid) > 0 && !c.valid[k] {
				b.AppendNull()
				continue
			}
			b.BinaryBuilder.Append(c.textAt(n))
		}
	default:
		panic(fmt.Sprintf("datagen: no generator for %T", b))
	}
	return b.NewArray()
}

// appendConverted appends vs, converted by conv, to b (with validity
// valid, nil when every row is valid).
func appendConverted[T any](b interface{ AppendValues([]T, []bool) }, vs []int64, valid []bool, conv func(int64) T) {
	out := make([]T, len(vs))
	for i, v := range vs {
		out[i] = conv(v)
	}
	b.AppendValues(out, valid)
}

// intValues returns the integer values of the rows (valid until the next
// call): a sequence's, a random or a listed one's.
func (c *column) intValues(first, step uint64, count int) []int64 {
	vs := c.ints[:0]
	f := &c.f
	switch f.Kind {
	case Sequence:
		v, d := f.Start+int64(first)*f.Step, int64(step)*f.Step
		for range count {
			vs = append(vs, v)
			v += d
		}
	case Random:
		for k, n := 0, first; k < count; k, n = k+1, n+step {
			vs = append(vs, f.Min+int64(below(hash(c.key, n), c.span)))
		}
	case List:
		m := uint64(len(f.Values))
		for k, n := 0, first; k < count; k, n = k+1, n+step {
			vs = append(vs, f.Values[below(hash(c.key, n), m)].I)
		}
	}
	c.ints = vs
	return vs
}

// floatAt returns row n's value of a FLOAT or DOUBLE column.
func (c *column) floatAt(n uint64) float64 {
	f := &c.f
	switch f.Kind {
	case Sequence:
		return f.FStart + float64(n)*f.FStep
	case List:
		return f.Values[below(hash(c.key, n), uint64(len(f.Values)))].F
	}
	return f.FMin + unit(hash(c.key, n))*(f.FMax-f.FMin)
}

// letters are random text's alphabet.
const letters = "abcdefghijklmnopqrstuvwxyz"

// textAt returns row n's value of a text column (valid until the next
// call): Length random letters, a sequence's number, or a listed value.
func (c *column) textAt(n uint64) []byte {
	f := &c.f
	switch f.Kind {
	case Sequence:
		c.text = appendInt(c.text[:0], f.Start+int64(n)*f.Step)
	case List:
		c.text = append(c.text[:0], f.Values[below(hash(c.key, n), uint64(len(f.Values)))].S...)
	default:
		c.text = c.text[:0]
		h, left := hash(c.key, n), 12
		for i := uint64(1); len(c.text) < f.Length; {
			if left == 0 {
				h, left, i = hash(c.key^i*0xd1b54a32d192ed03, n), 12, i+1
			}
			c.text = append(c.text, letters[h%26])
			h /= 26
			left--
		}
	}
	return c.text
}

// appendInt appends v in decimal.
func appendInt(b []byte, v int64) []byte {
	var digits [20]byte
	u := uint64(v)
	if v < 0 {
		u = -u
	}
	k := len(digits)
	for {
		k--
		digits[k] = '0' + byte(u%10)
		if u /= 10; u == 0 {
			break
		}
	}
	if v < 0 {
		b = append(b, '-')
	}
	return append(b, digits[k:]...)
}
