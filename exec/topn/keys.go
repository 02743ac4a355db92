package topn

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/ordtree"
	"github.com/eddysql/eddy/storage"
)

// encode makes the partition and sort keys of the rows of chunks (rows
// sels[k] of chunks[k], or every row when sels is nil), part after part, in
// t.pkeys and t.skeys, column by column.
func (t *Operator) encode(chunks []exec.Chunk, sels [][]int32) error {
	n := 0
	for k, c := range chunks {
		if sels != nil {
			n += len(sels[k])
		} else {
			n += c.NumRows()
		}
	}
	t.skeys = ordtree.ResetKeys(t.skeys, n)
	for _, f := range t.layout.Sort {
		if err := encodeParts(t.skeys, chunks, sels, f.Ord, f.Desc); err != nil {
			return err
		}
	}
	t.pkeys = ordtree.ResetKeys(t.pkeys, n)
	for _, f := range t.layout.Part {
		if err := encodeParts(t.pkeys, chunks, sels, f.Ord, false); err != nil {
			return err
		}
	}
	return nil
}

// encodeParts appends column ord of the rows of chunks to keys, part after
// part, as encode does.
func encodeParts(keys [][]byte, chunks []exec.Chunk, sels [][]int32, ord int, desc bool) error {
	off := 0
	for k, c := range chunks {
		var rows []int32
		n := c.NumRows()
		if sels != nil {
			rows, n = sels[k], len(sels[k])
		}
		if err := ordtree.EncodeColumnRows(keys[off:off+n], c.Batch.Column(ord), rows, desc); err != nil {
			return err
		}
		off += n
	}
	return nil
}

// appendRow appends the row with partition key part and sort key key to the
// output builders.
func (t *Operator) appendRow(part, key string) error {
	if err := t.decodeKey(t.layout.Part, part); err != nil {
		return err
	}
	return t.decodeKey(t.layout.Sort, key)
}

// decodeKey decodes the values of a key into their output builders. An
// inverted value is decoded from an inverted copy of the rest of the key.
func (t *Operator) decodeKey(fields []ordtree.Field, key string) error {
	src := ordtree.Bytes(key)
	for _, f := range fields {
		b, phys := t.builders[f.Ord], t.layout.Phys[f.Ord]
		if !f.Desc {
			rest, err := t.decodeValue(b, phys, src)
			if err != nil {
				return err
			}
			src = rest
			continue
		}
		inv := append(t.decodeBuf[:0], src[:min(len(src), encodedMax(phys))]...)
		t.decodeBuf = inv
		ordtree.Invert(inv, true)
		rest, err := t.decodeValue(b, phys, inv)
		if err != nil {
			return err
		}
		src = src[len(inv)-len(rest):]
	}
	if len(src) != 0 {
		return fmt.Errorf("top-n: %d bytes left after decoding a row: %w", len(src), storage.ErrBadKey)
	}
	return nil
}

// encodedMax returns the most bytes a key value of physical type phys
// takes (a tag and the value, or a NULL's tag), so that an inverted value
// is decoded from an inverted copy of just its bytes rather than of the
// rest of the key; a string's length is not known before it is decoded.
func encodedMax(phys types.Physical) int {
	switch phys {
	case types.PhysBool:
		return 2
	case types.PhysInt64, types.PhysTimestamp, types.PhysDate32, types.PhysDuration, types.PhysFloat64:
		return 9
	case types.PhysDecimal:
		return 17
	}
	return math.MaxInt
}

// decodeValue decodes one value of physical type phys from src into b and
// returns the rest of src.
func (t *Operator) decodeValue(b array.Builder, phys types.Physical, src []byte) ([]byte, error) {
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
		if v != v {
			// The key holds one NaN (appendFloat); decode it as
			// math.NaN(), the NaN the input's values carry, so that a
			// snapshot hashes a partition of NaN as the exchange did.
			v = math.NaN()
		}
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
