package catalog

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/zeebo/xxh3"
)

// The hashes fed to sketches must be the same in every process, since
// sketches are persisted and merged later: fixed functions, no random seed
// (which rules out hash/maphash).

// mix64 is the SplitMix64 finalizer: a bijection of uint64 whose every
// output bit depends on every input bit, so consecutive integers land on
// unrelated HyperLogLog registers.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// falseHash and trueHash are the hashes of the two BOOLEAN values.
var falseHash, trueHash = mix64(0), mix64(1)

// hashColumn appends the hash of every non-NULL value of arr to dst and
// returns it with the bits the values take in Arrow's layout: the
// fixed-width values, or a string's 32-bit offset and its bytes. Validity
// bitmaps are the caller's to count, so that the width does not depend on
// how rows were cut into batches.
func hashColumn(dst []uint64, arr arrow.Array) ([]uint64, int64, error) {
	n := int64(arr.Len())
	switch a := arr.(type) {
	case *array.Int64:
		return hashInts(dst, a, a.Int64Values()), 64 * n, nil
	case *array.Timestamp:
		return hashInts(dst, a, a.TimestampValues()), 64 * n, nil
	case *array.Duration:
		return hashInts(dst, a, a.DurationValues()), 64 * n, nil
	case *array.Date32:
		return hashInts(dst, a, a.Date32Values()), 32 * n, nil
	case *array.Float64:
		return hashFloats(dst, a), 64 * n, nil
	case *array.Decimal128:
		for i, v := range a.Values() {
			if a.IsValid(i) {
				dst = append(dst, mix64(v.LowBits()^mix64(uint64(v.HighBits()))))
			}
		}
		return dst, 128 * n, nil
	case *array.String:
		return hashStrings(dst, a)
	case *array.Boolean:
		for i := range a.Len() {
			if a.IsValid(i) {
				if a.Value(i) {
					dst = append(dst, trueHash)
				} else {
					dst = append(dst, falseHash)
				}
			}
		}
		return dst, n, nil
	case *array.Null:
		return dst, 0, nil
	}
	return dst, 0, fmt.Errorf("no statistics for Arrow type %s", arr.DataType())
}

// hashInts hashes integer-like values (int64, timestamps, durations, dates).
func hashInts[T ~int64 | ~int32](dst []uint64, arr arrow.Array, vals []T) []uint64 {
	if arr.NullN() == 0 {
		for _, v := range vals {
			dst = append(dst, mix64(uint64(v)))
		}
		return dst
	}
	for i, v := range vals {
		if arr.IsValid(i) {
			dst = append(dst, mix64(uint64(v)))
		}
	}
	return dst
}

// hashFloats hashes doubles as SQL compares them: -0 equals 0, and every
// NaN is one value.
func hashFloats(dst []uint64, a *array.Float64) []uint64 {
	nulls := a.NullN() > 0
	for i, v := range a.Float64Values() {
		if nulls && a.IsNull(i) {
			continue
		}
		bits := math.Float64bits(v)
		switch {
		case v == 0:
			bits = 0
		case v != v:
			bits = math.Float64bits(math.NaN())
		}
		dst = append(dst, mix64(bits))
	}
	return dst
}

// hashStrings hashes strings' bytes in place and returns the bits of
// their offsets and data.
func hashStrings(dst []uint64, a *array.String) ([]uint64, int64, error) {
	offs := a.ValueOffsets()
	data := a.ValueBytes()
	base := offs[0]
	nulls := a.NullN() > 0
	for i := 0; i+1 < len(offs); i++ {
		if nulls && a.IsNull(i) {
			continue
		}
		dst = append(dst, xxh3.Hash(data[offs[i]-base:offs[i+1]-base]))
	}
	return dst, 32*int64(a.Len()) + 8*int64(offs[len(offs)-1]-base), nil
}
