// Package rowkey encodes rows into byte strings that identify them in hash
// maps: the keys of views, joins, upserts and local aggregates.
package rowkey

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
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

// errKey is wrapped by the errors of Decode.
var errKey = errors.New("rowkey: malformed key")

// Decode reads back one row that Append encoded from columns of the
// builders' types, appending each value to its builder, and returns the
// bytes after it. A key that does not decode as values of those types
// (truncated, a bad NULL flag, a string running past the end) is an error
// and appends nothing.
func Decode(key []byte, bs []array.Builder) ([]byte, error) {
	rest, err := skip(key, bs)
	if err != nil {
		return nil, err
	}
	for _, b := range bs {
		null := key[0] == 0
		key = key[1:]
		if null {
			b.AppendNull()
			continue
		}
		switch b := b.(type) {
		case *array.Int64Builder:
			b.Append(int64(binary.LittleEndian.Uint64(key)))
			key = key[8:]
		case *array.Float64Builder:
			b.Append(math.Float64frombits(binary.LittleEndian.Uint64(key)))
			key = key[8:]
		case *array.StringBuilder:
			l, n := binary.Uvarint(key)
			b.Append(string(key[n : n+int(l)]))
			key = key[n+int(l):]
		case *array.BooleanBuilder:
			b.Append(key[0] == 1)
			key = key[1:]
		case *array.Decimal128Builder:
			lo, hi := binary.LittleEndian.Uint64(key), binary.LittleEndian.Uint64(key[8:])
			b.Append(decimal128.New(int64(hi), lo))
			key = key[16:]
		case *array.Date32Builder:
			b.Append(arrow.Date32(binary.LittleEndian.Uint32(key)))
			key = key[4:]
		case *array.TimestampBuilder:
			b.Append(arrow.Timestamp(binary.LittleEndian.Uint64(key)))
			key = key[8:]
		case *array.DurationBuilder:
			b.Append(arrow.Duration(binary.LittleEndian.Uint64(key)))
			key = key[8:]
		}
	}
	return rest, nil
}

// skip checks that key starts with one encoded value per builder and
// returns the bytes after them.
func skip(key []byte, bs []array.Builder) ([]byte, error) {
	for i, b := range bs {
		if len(key) == 0 || key[0] > 1 {
			return nil, fmt.Errorf("%w: column %d: no NULL flag", errKey, i)
		}
		null := key[0] == 0
		key = key[1:]
		if null {
			continue
		}
		n := 0
		switch b.(type) {
		case *array.Int64Builder, *array.Float64Builder, *array.TimestampBuilder, *array.DurationBuilder:
			n = 8
		case *array.Decimal128Builder:
			n = 16
		case *array.Date32Builder:
			n = 4
		case *array.BooleanBuilder:
			if len(key) > 0 && key[0] > 1 {
				return nil, fmt.Errorf("%w: column %d: bad boolean", errKey, i)
			}
			n = 1
		case *array.StringBuilder:
			l, m := binary.Uvarint(key)
			if m <= 0 || l > uint64(len(key)-m) {
				return nil, fmt.Errorf("%w: column %d: bad string length", errKey, i)
			}
			n = m + int(l)
		default:
			return nil, fmt.Errorf("rowkey: cannot decode into a %s builder", b.Type())
		}
		if len(key) < n {
			return nil, fmt.Errorf("%w: column %d: truncated", errKey, i)
		}
		key = key[n:]
	}
	return key, nil
}
