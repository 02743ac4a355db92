package exec

import (
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/storage"
)

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
// one exception that topnFloat corrects: it puts a double's NaN last, and
// types.Compare first. Values SQL considers equal encode equally (-0 and +0,
// all NaNs), so such rows are the same row here, and decode as +0 and NaN.

// topnField is one value of a key: its input ordinal, which is also its
// output column, and whether its bytes are inverted (ORDER BY .. DESC).
type topnField struct {
	ord  int
	desc bool
}

// topnLayout describes the two keys of a row.
type topnLayout struct {
	part []topnField      // the partition key
	sort []topnField      // the sort key
	phys []types.Physical // by input column
}

// newTopNLayout derives the keys' layout from a checked configuration.
func newTopNLayout(cfg *TopNConfig) topnLayout {
	var l topnLayout
	seen := make([]bool, len(cfg.Input))
	for _, c := range cfg.Partition {
		if !seen[c] {
			seen[c] = true
			l.part = append(l.part, topnField{ord: c})
		}
	}
	for _, k := range cfg.Order {
		if !seen[k.Col] {
			seen[k.Col] = true
			l.sort = append(l.sort, topnField{ord: k.Col, desc: k.Desc})
		}
	}
	for c := range cfg.Input {
		if !seen[c] {
			l.sort = append(l.sort, topnField{ord: c})
		}
	}
	for _, t := range cfg.Input {
		l.phys = append(l.phys, t.Physical())
	}
	return l
}

// encode makes the partition and sort keys of every row of b in t.pkeys and
// t.skeys, column by column.
func (t *TopN) encode(b arrow.RecordBatch) error {
	n := int(b.NumRows())
	t.skeys = topnResetKeys(t.skeys, n)
	for _, f := range t.layout.sort {
		if err := topnEncodeColumn(t.skeys, b.Column(f.ord), f.desc); err != nil {
			return err
		}
	}
	t.pkeys = topnResetKeys(t.pkeys, n)
	for _, f := range t.layout.part {
		if err := topnEncodeColumn(t.pkeys, b.Column(f.ord), false); err != nil {
			return err
		}
	}
	return nil
}

// topnResetKeys returns n empty key buffers, reusing those of keys.
func topnResetKeys(keys [][]byte, n int) [][]byte {
	if cap(keys) < n {
		keys = append(keys[:cap(keys)], make([][]byte, n-cap(keys))...)
	}
	keys = keys[:n]
	for i := range keys {
		keys[i] = keys[i][:0]
	}
	return keys
}

// topnEncodeColumn appends the encoding of every row of arr to its key in
// keys, inverted when desc.
func topnEncodeColumn(keys [][]byte, arr arrow.Array, desc bool) error {
	switch a := arr.(type) {
	case *array.Int64:
		for i := range keys {
			keys[i] = topnInt(keys[i], a.IsNull(i), a.Value(i), desc)
		}
	case *array.Timestamp:
		for i := range keys {
			keys[i] = topnInt(keys[i], a.IsNull(i), int64(a.Value(i)), desc)
		}
	case *array.Date32:
		for i := range keys {
			keys[i] = topnInt(keys[i], a.IsNull(i), int64(a.Value(i)), desc)
		}
	case *array.Duration:
		for i := range keys {
			keys[i] = topnInt(keys[i], a.IsNull(i), int64(a.Value(i)), desc)
		}
	case *array.Float64:
		for i := range keys {
			keys[i] = topnFloat(keys[i], a.IsNull(i), a.Value(i), desc)
		}
	case *array.String:
		for i := range keys {
			start := len(keys[i])
			if a.IsNull(i) {
				keys[i] = storage.AppendNull(keys[i])
			} else {
				keys[i] = storage.AppendString(keys[i], a.Value(i))
			}
			topnInvert(keys[i][start:], desc)
		}
	case *array.Decimal128:
		for i := range keys {
			start := len(keys[i])
			if a.IsNull(i) {
				keys[i] = storage.AppendNull(keys[i])
			} else {
				keys[i] = storage.AppendDecimal128(keys[i], a.Value(i))
			}
			topnInvert(keys[i][start:], desc)
		}
	case *array.Boolean:
		for i := range keys {
			start := len(keys[i])
			if a.IsNull(i) {
				keys[i] = storage.AppendNull(keys[i])
			} else {
				keys[i] = storage.AppendBool(keys[i], a.Value(i))
			}
			topnInvert(keys[i][start:], desc)
		}
	case *array.Null:
		for i := range keys {
			start := len(keys[i])
			keys[i] = storage.AppendNull(keys[i])
			topnInvert(keys[i][start:], desc)
		}
	default:
		return fmt.Errorf("top-n: cannot order a column of type %s", arr.DataType())
	}
	return nil
}

// topnInt appends an integer-like value (or NULL).
func topnInt(dst []byte, null bool, v int64, desc bool) []byte {
	start := len(dst)
	if null {
		dst = storage.AppendNull(dst)
	} else {
		dst = storage.AppendInt64(dst, v)
	}
	topnInvert(dst[start:], desc)
	return dst
}

// topnFloat appends a double (or NULL). NaN is encoded with an all-zero
// payload, below -Inf's, so that it sorts before every number as in
// types.Compare; no other double encodes so (the codec makes every NaN one
// positive NaN), and storage.DecodeFloat64 decodes it as a NaN.
func topnFloat(dst []byte, null bool, v float64, desc bool) []byte {
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
	topnInvert(dst[start:], desc)
	return dst
}

// topnInvert inverts the bits of b when desc.
func topnInvert(b []byte, desc bool) {
	if desc {
		for i := range b {
			b[i] = ^b[i]
		}
	}
}

// topnView returns a string sharing b's bytes, for lookups that do not
// keep it; the tree copies a key it stores.
func topnView(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// topnBytes returns the bytes of s without copying, for the decoders, which
// only read them.
func topnBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// appendRow appends the row with partition key part and sort key key to the
// output builders.
func (t *TopN) appendRow(part, key string) error {
	if err := t.decodeKey(t.layout.part, part); err != nil {
		return err
	}
	return t.decodeKey(t.layout.sort, key)
}

// decodeKey decodes the values of a key into their output builders. An
// inverted value is decoded from an inverted copy of the rest of the key.
func (t *TopN) decodeKey(fields []topnField, key string) error {
	src := topnBytes(key)
	for _, f := range fields {
		b, phys := t.builders[f.ord], t.layout.phys[f.ord]
		if !f.desc {
			rest, err := t.decodeValue(b, phys, src)
			if err != nil {
				return err
			}
			src = rest
			continue
		}
		inv := append(t.decodeBuf[:0], src...)
		t.decodeBuf = inv
		topnInvert(inv, true)
		rest, err := t.decodeValue(b, phys, inv)
		if err != nil {
			return err
		}
		src = src[len(src)-len(rest):]
	}
	if len(src) != 0 {
		return fmt.Errorf("top-n: %d bytes left after decoding a row: %w", len(src), storage.ErrBadKey)
	}
	return nil
}

// decodeValue decodes one value of physical type phys from src into b and
// returns the rest of src.
func (t *TopN) decodeValue(b array.Builder, phys types.Physical, src []byte) ([]byte, error) {
	if storage.IsNull(src) {
		b.AppendNull()
		return storage.DecodeNull(src)
	}
	var rest []byte
	var err error
	switch phys {
	case types.PhysBool:
		var v bool
		v, rest, err = storage.DecodeBool(src)
		b.(*array.BooleanBuilder).Append(v)
	case types.PhysInt64, types.PhysTimestamp, types.PhysDate32, types.PhysDuration:
		var v int64
		v, rest, err = storage.DecodeInt64(src)
		switch b := b.(type) {
		case *array.Int64Builder:
			b.Append(v)
		case *array.TimestampBuilder:
			b.Append(arrow.Timestamp(v))
		case *array.Date32Builder:
			b.Append(arrow.Date32(v))
		case *array.DurationBuilder:
			b.Append(arrow.Duration(v))
		}
	case types.PhysFloat64:
		var v float64
		v, rest, err = storage.DecodeFloat64(src)
		b.(*array.Float64Builder).Append(v)
	case types.PhysDecimal:
		var v decimal128.Num
		v, rest, err = storage.DecodeDecimal128(src)
		b.(*array.Decimal128Builder).Append(v)
	case types.PhysString:
		t.stringBuf, rest, err = storage.DecodeBytes(t.stringBuf[:0], src)
		b.(*array.StringBuilder).BinaryBuilder.Append(t.stringBuf)
	default:
		return nil, fmt.Errorf("top-n: a non-NULL value in a NULL column: %w", storage.ErrBadKey)
	}
	if err != nil {
		return nil, fmt.Errorf("top-n: decoding a row: %w", err)
	}
	return rest, nil
}
