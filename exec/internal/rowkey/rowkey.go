// Package rowkey encodes rows into byte strings that identify them in hash
// maps: the keys of views, joins, upserts and local aggregates.
package rowkey

import (
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Append appends an encoding of row i's values in cols to buf. Equal
// rows encode equally and different rows differently (each value is
// prefixed by a NULL flag; strings by their length). The encoding is not
// ordered; it identifies rows in hash maps.
func Append(buf []byte, cols []arrow.Array, i int) []byte {
	for _, c := range cols {
		if c.IsNull(i) {
			buf = append(buf, 0)
			continue
		}
		buf = append(buf, 1)
		switch a := c.(type) {
		case *array.Int64:
			buf = binary.LittleEndian.AppendUint64(buf, uint64(a.Value(i)))
		case *array.Float64:
			f := a.Value(i)
			if f == 0 {
				f = 0 // -0 equals +0
			}
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(f))
		case *array.String:
			s := a.Value(i)
			buf = binary.AppendUvarint(buf, uint64(len(s)))
			buf = append(buf, s...)
		case *array.Boolean:
			if a.Value(i) {
				buf = append(buf, 1)
			} else {
				buf = append(buf, 0)
			}
		case *array.Decimal128:
			v := a.Value(i)
			buf = binary.LittleEndian.AppendUint64(buf, v.LowBits())
			buf = binary.LittleEndian.AppendUint64(buf, uint64(v.HighBits()))
		case *array.Date32:
			buf = binary.LittleEndian.AppendUint32(buf, uint32(a.Value(i)))
		case *array.Timestamp:
			buf = binary.LittleEndian.AppendUint64(buf, uint64(a.Value(i)))
		case *array.Duration:
			buf = binary.LittleEndian.AppendUint64(buf, uint64(a.Value(i)))
		}
	}
	return buf
}
