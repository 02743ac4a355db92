package storage

import (
	"bytes"
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// IsNull reports whether the next value in src is NULL.
func IsNull(src []byte) bool { return len(src) > 0 && src[0] == tagNull }

// DecodeNull consumes a NULL from src and returns the rest.
func DecodeNull(src []byte) (rest []byte, err error) {
	if !IsNull(src) {
		return nil, expectTag(src, tagNull)
	}
	return src[1:], nil
}

// DecodeBool consumes a bool from src.
func DecodeBool(src []byte) (v bool, rest []byte, err error) {
	if len(src) < 2 || src[0] != tagBool {
		return false, nil, expectTag(src, tagBool)
	}
	switch src[1] {
	case 0:
		return false, src[2:], nil
	case 1:
		return true, src[2:], nil
	}
	return false, nil, badKey("bool byte %#x", src[1])
}

// DecodeInt64 consumes an int64 from src.
func DecodeInt64(src []byte) (v int64, rest []byte, err error) {
	if len(src) < 1+wordSize || src[0] != tagInt64 {
		return 0, nil, expectTag(src, tagInt64)
	}
	u := binary.BigEndian.Uint64(src[1:])
	return int64(u ^ signBit), src[1+wordSize:], nil
}

// DecodeFloat64 consumes a float64 from src. -0 decodes as +0 and NaN as
// math.NaN(), as they were encoded.
func DecodeFloat64(src []byte) (v float64, rest []byte, err error) {
	if len(src) < 1+wordSize || src[0] != tagFloat64 {
		return 0, nil, expectTag(src, tagFloat64)
	}
	u := binary.BigEndian.Uint64(src[1:])
	if u&signBit != 0 {
		u &^= signBit
	} else {
		u = ^u
	}
	return math.Float64frombits(u), src[1+wordSize:], nil
}

// DecodeDecimal128 consumes a decimal128 from src.
func DecodeDecimal128(src []byte) (v decimal128.Num, rest []byte, err error) {
	if len(src) < 1+2*wordSize || src[0] != tagDecimal {
		return decimal128.Num{}, nil, expectTag(src, tagDecimal)
	}
	hi := int64(binary.BigEndian.Uint64(src[1:]) ^ signBit)
	lo := binary.BigEndian.Uint64(src[1+wordSize:])
	return decimal128.New(hi, lo), src[1+2*wordSize:], nil
}

// DecodeString consumes a string from src.
func DecodeString(src []byte) (v string, rest []byte, err error) {
	b, rest, err := DecodeBytes(nil, src)
	return string(b), rest, err
}

// DecodeBytes consumes bytes from src, appending them unescaped to dst.
func DecodeBytes(dst, src []byte) (v, rest []byte, err error) {
	if len(src) < 1 || src[0] != tagBytes {
		return nil, nil, expectTag(src, tagBytes)
	}
	src = src[1:]
	for {
		i := bytes.IndexByte(src, escByte)
		if i < 0 || i+1 >= len(src) {
			return nil, nil, badKey("unterminated bytes")
		}
		dst = append(dst, src[:i]...)
		switch src[i+1] {
		case escEnd:
			return dst, src[i+2:], nil
		case escZero:
			dst = append(dst, 0)
			src = src[i+2:]
		default:
			return nil, nil, badKey("bad escape %#x", src[i+1])
		}
	}
}

// Skip consumes one value of any type from src.
func Skip(src []byte) (rest []byte, err error) {
	if len(src) == 0 {
		return nil, badKey("empty key")
	}
	switch src[0] {
	case tagNull:
		return src[1:], nil
	case tagBool:
		_, rest, err = DecodeBool(src)
	case tagInt64:
		_, rest, err = DecodeInt64(src)
	case tagFloat64:
		_, rest, err = DecodeFloat64(src)
	case tagDecimal:
		_, rest, err = DecodeDecimal128(src)
	case tagBytes:
		src = src[1:]
		for {
			i := bytes.IndexByte(src, escByte)
			if i < 0 || i+1 >= len(src) || (src[i+1] != escEnd && src[i+1] != escZero) {
				return nil, badKey("malformed bytes")
			}
			if src[i+1] == escEnd {
				return src[i+2:], nil
			}
			src = src[i+2:]
		}
	default:
		return nil, badKey("unknown tag %#x", src[0])
	}
	return rest, err
}

func expectTag(src []byte, want byte) error {
	if len(src) == 0 {
		return badKey("want tag %#x, key ended", want)
	}
	if src[0] == want {
		return badKey("value with tag %#x is truncated", want)
	}
	return badKey("want tag %#x, got %#x", want, src[0])
}
