package sessionwin

import (
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/exec/internal/vec"
)

// loader reads an argument column of a chunk into Go values of type K;
// NULL rows hold arbitrary values (see validity). vals is either the
// array's own buffer or buf (newBuf is buf, possibly grown: the caller keeps
// it for the next chunk, and clears it after use when it holds strings that
// point into the batch). It is called once per chunk, so that accumulators
// loop over typed slices.
type loader[K any] func(arr arrow.Array, buf []K) (vals, newBuf []K, err error)

// validity returns, for an array with NULLs, whether each row is
// valid (reusing buf); nil when no row is NULL.
func validity(arr arrow.Array, buf []bool) []bool {
	n := arr.Len()
	if arr.NullN() == 0 {
		return nil
	}
	buf = vec.Resize(buf, n)
	bm := arr.NullBitmapBytes()
	if len(bm) == 0 { // a NULL-typed array: every row is NULL
		clear(buf)
		return buf
	}
	off := arr.Data().Offset()
	for i := range buf {
		buf[i] = bitutil.BitIsSet(bm, off+i)
	}
	return buf
}

// loadInts loads an integer-like column (BOOLEAN as 0/1, integers, DATE in
// days, TIMESTAMP and INTERVAL in ms) as int64s: the array's own values for
// int64, converted into buf otherwise.
func loadInts(arr arrow.Array, buf []int64) (vals, newBuf []int64, err error) {
	switch a := arr.(type) {
	case *array.Int64:
		return a.Int64Values(), buf, nil
	case *array.Timestamp:
		buf = vec.Resize(buf, a.Len())
		for i, v := range a.TimestampValues() {
			buf[i] = int64(v)
		}
	case *array.Date32:
		buf = vec.Resize(buf, a.Len())
		for i, v := range a.Date32Values() {
			buf[i] = int64(v)
		}
	case *array.Duration:
		buf = vec.Resize(buf, a.Len())
		for i, v := range a.DurationValues() {
			buf[i] = int64(v)
		}
	case *array.Boolean:
		buf = vec.Resize(buf, a.Len())
		for i := range buf {
			buf[i] = 0
			if a.Value(i) {
				buf[i] = 1
			}
		}
	default:
		return nil, buf, fmt.Errorf("expected an integer-like column, got %s", arr.DataType())
	}
	return buf, buf, nil
}

// loadFloats loads a double column.
func loadFloats(arr arrow.Array, buf []float64) (vals, newBuf []float64, err error) {
	a, ok := arr.(*array.Float64)
	if !ok {
		return nil, buf, fmt.Errorf("expected a float64 column, got %s", arr.DataType())
	}
	return a.Float64Values(), buf, nil
}

// loadFloatKeys loads a double column as the keys DISTINCT compares: the
// bits of each value, with -0 as 0 and every NaN as one NaN (as GROUP BY and
// DISTINCT treat them alike).
func loadFloatKeys(arr arrow.Array, buf []uint64) (keys, newBuf []uint64, err error) {
	vals, _, err := loadFloats(arr, nil)
	if err != nil {
		return nil, buf, err
	}
	buf = vec.Resize(buf, len(vals))
	for i, f := range vals {
		switch {
		case f != f:
			f = math.NaN()
		case f == 0:
			f = 0
		}
		buf[i] = math.Float64bits(f)
	}
	return buf, buf, nil
}

// loadDecimals loads a decimal column.
func loadDecimals(arr arrow.Array, buf []decimal128.Num) (vals, newBuf []decimal128.Num, err error) {
	a, ok := arr.(*array.Decimal128)
	if !ok {
		return nil, buf, fmt.Errorf("expected a decimal128 column, got %s", arr.DataType())
	}
	return a.Values(), buf, nil
}

// loadStrings loads a utf8 column. The strings point into the array's
// buffers: whatever keeps one beyond the chunk must clone it.
func loadStrings(arr arrow.Array, buf []string) (vals, newBuf []string, err error) {
	a, ok := arr.(*array.String)
	if !ok {
		return nil, buf, fmt.Errorf("expected a utf8 column, got %s", arr.DataType())
	}
	buf = vec.Resize(buf, a.Len())
	for i := range buf {
		buf[i] = a.Value(i)
	}
	return buf, buf, nil
}

// keep returns a copy of v that does not share memory with a batch:
// strings are cloned, other values are copies already.
func keep[K any](v K) K {
	if s, ok := any(v).(string); ok {
		return any(strings.Clone(s)).(K)
	}
	return v
}

// keptBytes is the memory a kept value holds beyond its own size: a
// string's bytes.
func keptBytes[K any](v K) int64 {
	if s, ok := any(v).(string); ok {
		return int64(len(s))
	}
	return 0
}
