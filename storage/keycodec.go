package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// The key codec encodes values so that bytes.Compare of two encodings
// orders them as the values order, and so that a tuple encodes as the
// concatenation of its values' encodings: every encoding is self-delimiting
// and none is a proper prefix of another, so tuples compare
// lexicographically, value by value. Each value starts with a tag byte;
// NULL's tag is the smallest, so NULL sorts before every value of its
// column. Values of one tuple position are expected to share a type; the
// tags differ per type only so that decoding the wrong type is an error.
//
// Orders:
//   - bool: false < true.
//   - int64: numeric (the sign bit flipped, big-endian).
//   - float64: -Inf < negatives < -0 == +0 < positives < +Inf < NaN. -0 is
//     encoded as +0 and every NaN as one canonical NaN, so values SQL
//     considers equal (and all NaNs, as PostgreSQL groups them) encode
//     equally. Decoding returns +0 and math.NaN().
//   - decimal128: numeric, as a signed 128-bit integer; all values of one
//     column must have the same scale, which the key does not record.
//   - string and bytes: bytewise, with 0x00 escaped as 0x00 0xFF and the
//     end marked by 0x00 0x01, so "a" < "a\x00" < "ab".
const (
	tagNull    = 0x01
	tagBool    = 0x10
	tagInt64   = 0x20
	tagFloat64 = 0x30
	tagDecimal = 0x40
	tagBytes   = 0x50

	escByte  = 0x00 // starts an escape inside bytes
	escZero  = 0xFF // 0x00 0xFF is a literal zero byte
	escEnd   = 0x01 // 0x00 0x01 ends the bytes
	signBit  = uint64(1) << 63
	nanBits  = 0x7FF8000000000001 // math.NaN()'s bits, the canonical NaN
	wordSize = 8
)

// ErrBadKey is wrapped by every key decoding error.
var ErrBadKey = errors.New("storage: malformed key")

func badKey(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadKey, fmt.Sprintf(format, args...))
}

// AppendNull appends the encoding of NULL, which sorts before every value.
func AppendNull(dst []byte) []byte { return append(dst, tagNull) }

// AppendBool appends the encoding of v (false < true).
func AppendBool(dst []byte, v bool) []byte {
	if v {
		return append(dst, tagBool, 1)
	}
	return append(dst, tagBool, 0)
}

// AppendInt64 appends the encoding of v in numeric order. Dates,
// timestamps and durations encode as their int64 counts.
func AppendInt64(dst []byte, v int64) []byte {
	dst = append(dst, tagInt64)
	return binary.BigEndian.AppendUint64(dst, uint64(v)^signBit)
}

// AppendFloat64 appends the encoding of v in the total order described in
// the package's key codec comment (-0 == +0, NaN last).
func AppendFloat64(dst []byte, v float64) []byte {
	var u uint64
	switch {
	case v != v:
		u = nanBits
	case v == 0:
		u = 0
	default:
		u = math.Float64bits(v)
	}
	if u&signBit != 0 {
		u = ^u
	} else {
		u |= signBit
	}
	dst = append(dst, tagFloat64)
	return binary.BigEndian.AppendUint64(dst, u)
}

// AppendDecimal128 appends the encoding of v in numeric order among values
// of the same scale.
func AppendDecimal128(dst []byte, v decimal128.Num) []byte {
	dst = append(dst, tagDecimal)
	dst = binary.BigEndian.AppendUint64(dst, uint64(v.HighBits())^signBit)
	return binary.BigEndian.AppendUint64(dst, v.LowBits())
}

// AppendString appends the encoding of v in bytewise order.
func AppendString(dst []byte, v string) []byte {
	dst = append(dst, tagBytes)
	for {
		i := indexZero(v)
		if i < 0 {
			dst = append(dst, v...)
			return append(dst, escByte, escEnd)
		}
		dst = append(dst, v[:i]...)
		dst = append(dst, escByte, escZero)
		v = v[i+1:]
	}
}

// AppendBytes appends the encoding of v; it equals AppendString's for the
// same bytes.
func AppendBytes(dst []byte, v []byte) []byte {
	dst = append(dst, tagBytes)
	for {
		i := bytes.IndexByte(v, 0)
		if i < 0 {
			dst = append(dst, v...)
			return append(dst, escByte, escEnd)
		}
		dst = append(dst, v[:i+1]...)
		dst = append(dst, escZero)
		v = v[i+1:]
	}
}

func indexZero(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return i
		}
	}
	return -1
}

// PrefixEnd returns the smallest key greater than every key that starts
// with prefix, or nil when there is none (prefix is empty or all 0xFF).
// [prefix, PrefixEnd(prefix)) is the range of keys with the prefix.
func PrefixEnd(prefix []byte) []byte {
	end := bytes.Clone(prefix)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] != 0xFF {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}
