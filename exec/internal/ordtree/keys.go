package ordtree

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/storage"
)

// SortKey is one ORDER BY key: a column and its direction.
type SortKey struct {
	Col  int
	Desc bool
}

// A Top-N row is held as two byte strings made with the order-preserving
// key codec of package storage, so that comparing rows is comparing bytes:
//
//   - the partition key: the PARTITION BY columns;
//   - the sort key: the ORDER BY columns (each DESC one with its bytes
//     inverted, which reverses its order because the codec's encodings are
//     prefix-free), then every other column ascending, which breaks ties
//     deterministically. A column already in the partition key or earlier
//     in the sort key is left out: it cannot change the order.
//
// Every input column is in exactly one of the two keys, so an output row is
// decoded from them. The codec orders values as types.Compare does, with
// one exception that appendFloat corrects: it puts a double's NaN last, and
// types.Compare first. Values SQL considers equal encode equally (-0 and +0,
// all NaNs), so such rows are the same row here, and decode as +0 and NaN.

// Field is one value of a key: its input ordinal, which is also its
// output column, and whether its bytes are inverted (ORDER BY .. DESC).
type Field struct {
	Ord  int
	Desc bool
}

// Layout describes the two keys of a row.
type Layout struct {
	Part []Field          // the partition key
	Sort []Field          // the sort key
	Phys []types.Physical // by input column
}

// CheckLayout checks that rows of types input can be keyed by the columns
// partition and ordered by order: there are columns, each of a type the
// keys encode, and the ordinals are in range.
func CheckLayout(input []types.T, partition []int, order []SortKey) error {
	if len(input) == 0 {
		return errors.New("no input columns")
	}
	for i, t := range input {
		if t.Physical() == types.PhysNull && t.Kind != types.Null {
			return fmt.Errorf("input column %d has unsupported type %s", i, t)
		}
	}
	for _, ord := range partition {
		if ord < 0 || ord >= len(input) {
			return fmt.Errorf("partition ordinal %d out of range", ord)
		}
	}
	for _, k := range order {
		if k.Col < 0 || k.Col >= len(input) {
			return fmt.Errorf("order ordinal %d out of range", k.Col)
		}
	}
	return nil
}

// NewLayout derives the keys' layout of rows of types input,
// partitioned by the columns partition and ordered by order.
func NewLayout(input []types.T, partition []int, order []SortKey) Layout {
	var l Layout
	seen := make([]bool, len(input))
	for _, c := range partition {
		if !seen[c] {
			seen[c] = true
			l.Part = append(l.Part, Field{Ord: c})
		}
	}
	for _, k := range order {
		if !seen[k.Col] {
			seen[k.Col] = true
			l.Sort = append(l.Sort, Field{Ord: k.Col, Desc: k.Desc})
		}
	}
	for c := range input {
		if !seen[c] {
			l.Sort = append(l.Sort, Field{Ord: c})
		}
	}
	for _, t := range input {
		l.Phys = append(l.Phys, t.Physical())
	}
	return l
}

// ResetKeys returns n empty key buffers, reusing those of keys.
func ResetKeys(keys [][]byte, n int) [][]byte {
	if cap(keys) < n {
		keys = append(keys[:cap(keys)], make([][]byte, n-cap(keys))...)
	}
	keys = keys[:n]
	for i := range keys {
		keys[i] = keys[i][:0]
	}
	return keys
}

// EncodeColumn appends the encoding of every row of arr to its key in
// keys, inverted when desc.
func EncodeColumn(keys [][]byte, arr arrow.Array, desc bool) error {
	return EncodeColumnRows(keys, arr, nil, desc)
}

// EncodeColumnRows appends the encoding of row rows[i] of arr to keys[i],
// inverted when desc; nil rows means row i, as in EncodeColumn. An
// operator that takes a hash partition's rows in place (exec.PartsProcessor)
// encodes the rows of each part so, without a copy of the part.
func EncodeColumnRows(keys [][]byte, arr arrow.Array, rows []int32, desc bool) error {
	row := func(i int) int {
		if rows == nil {
			return i
		}
		return int(rows[i])
	}
	switch a := arr.(type) {
	case *array.Int64:
		for i := range keys {
			r := row(i)
			keys[i] = appendInt(keys[i], a.IsNull(r), a.Value(r), desc)
		}
	case *array.Timestamp:
		for i := range keys {
			r := row(i)
			keys[i] = appendInt(keys[i], a.IsNull(r), int64(a.Value(r)), desc)
		}
	case *array.Date32:
		for i := range keys {
			r := row(i)
			keys[i] = appendInt(keys[i], a.IsNull(r), int64(a.Value(r)), desc)
		}
	case *array.Duration:
		for i := range keys {
			r := row(i)
			keys[i] = appendInt(keys[i], a.IsNull(r), int64(a.Value(r)), desc)
		}
	case *array.Float64:
		for i := range keys {
			r := row(i)
			keys[i] = appendFloat(keys[i], a.IsNull(r), a.Value(r), desc)
		}
	case *array.String:
		for i := range keys {
			r, start := row(i), len(keys[i])
			if a.IsNull(r) {
				keys[i] = storage.AppendNull(keys[i])
			} else {
				keys[i] = storage.AppendString(keys[i], a.Value(r))
			}
			Invert(keys[i][start:], desc)
		}
	case *array.Decimal128:
		for i := range keys {
			r, start := row(i), len(keys[i])
			if a.IsNull(r) {
				keys[i] = storage.AppendNull(keys[i])
			} else {
				keys[i] = storage.AppendDecimal128(keys[i], a.Value(r))
			}
			Invert(keys[i][start:], desc)
		}
	case *array.Boolean:
		for i := range keys {
			r, start := row(i), len(keys[i])
			if a.IsNull(r) {
				keys[i] = storage.AppendNull(keys[i])
			} else {
				keys[i] = storage.AppendBool(keys[i], a.Value(r))
			}
			Invert(keys[i][start:], desc)
		}
	case *array.Null:
		for i := range keys {
			start := len(keys[i])
			keys[i] = storage.AppendNull(keys[i])
			Invert(keys[i][start:], desc)
		}
	default:
		return fmt.Errorf("top-n: cannot order a column of type %s", arr.DataType())
	}
	return nil
}

// appendInt appends an integer-like value (or NULL).
func appendInt(dst []byte, null bool, v int64, desc bool) []byte {
	start := len(dst)
	if null {
		dst = storage.AppendNull(dst)
	} else {
		dst = storage.AppendInt64(dst, v)
	}
	Invert(dst[start:], desc)
	return dst
}

// appendFloat appends a double (or NULL). NaN is encoded with an all-zero
// payload, below -Inf's, so that it sorts before every number as in
// types.Compare; no other double encodes so (the codec makes every NaN one
// positive NaN), and storage.DecodeFloat64 decodes it as a NaN.
func appendFloat(dst []byte, null bool, v float64, desc bool) []byte {
	start := len(dst)
	switch {
	case null:
		dst = storage.AppendNull(dst)
	case v != v:
		dst = storage.AppendFloat64(dst, 0)
		clear(dst[len(dst)-8:])
	default:
		dst = storage.AppendFloat64(dst, v)
	}
	Invert(dst[start:], desc)
	return dst
}

// Invert inverts the bits of b when desc.
func Invert(b []byte, desc bool) {
	if desc {
		for i := range b {
			b[i] = ^b[i]
		}
	}
}

// View returns a string sharing b's bytes, for lookups that do not
// keep it; the tree copies a key it stores.
func View(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// Bytes returns the bytes of s without copying, for the decoders, which
// only read them.
func Bytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// Delta is a change a chunk made to a partition's rows: w copies of
// the row with sort key key in partition touched[part] of its operator. A
// window aggregate also records an input row holding the values (the
// first, once netted) and the length of the key's ORDER BY prefix.
type Delta struct {
	Part int32
	Key
	W    int64
	Row  int32
	OLen int32
}
