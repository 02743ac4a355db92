package agg

import (
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/internal/vec"
)

// kind is the Go representation of a column's values inside the hash
// aggregate: every SQL type maps onto one of four.
type kind uint8

const (
	kindInt   kind = iota // BOOLEAN (0/1), integers, DATE (days), TIMESTAMP and INTERVAL (ms)
	kindFloat             // FLOAT, DOUBLE
	kindDec               // DECIMAL
	kindStr               // VARCHAR
)

// kindOf returns the representation of t, and false for types the hash
// aggregate cannot hold (NULL, UNKNOWN).
func kindOf(t types.T) (kind, bool) {
	switch t.Physical() {
	case types.PhysBool, types.PhysInt64, types.PhysDate32, types.PhysTimestamp, types.PhysDuration:
		return kindInt, true
	case types.PhysFloat64:
		return kindFloat, true
	case types.PhysDecimal:
		return kindDec, true
	case types.PhysString:
		return kindStr, true
	}
	return 0, false
}

// value is the set of Go types that hold values (see kind).
type value interface {
	int64 | float64 | decimal128.Num | string
}

// values is a column of values; only the slice of its kind is used.
type values struct {
	i []int64
	f []float64
	d []decimal128.Num
	s []string
}

// typed returns the slice of v that holds values of type V.
func typed[V value](v *values) *[]V {
	var zero V
	switch any(zero).(type) {
	case int64:
		return any(&v.i).(*[]V)
	case float64:
		return any(&v.f).(*[]V)
	case decimal128.Num:
		return any(&v.d).(*[]V)
	}
	return any(&v.s).(*[]V)
}

// vector is one output value per touched group (old or new aggregate results,
// or decoded group keys), with validity.
type vector struct {
	kind  kind
	valid []bool
	values
}

// resize makes v hold n values, keeping its buffers.
func (v *vector) resize(n int) {
	v.valid = vec.Resize(v.valid, n)
	switch v.kind {
	case kindInt:
		v.i = vec.Resize(v.i, n)
	case kindFloat:
		v.f = vec.Resize(v.f, n)
	case kindDec:
		v.d = vec.Resize(v.d, n)
	case kindStr:
		clear(v.s)
		v.s = vec.Resize(v.s, n)
	}
}

// markChanged sets changed[j] for every j where old and new differ (NULL
// equals NULL; doubles compare by their bits, so NaN is unchanged).
func markChanged(old, new *vector, changed []bool) {
	for j := range changed {
		if old.valid[j] != new.valid[j] {
			changed[j] = true
		}
	}
	switch old.kind {
	case kindInt:
		for j := range changed {
			if new.valid[j] && old.i[j] != new.i[j] {
				changed[j] = true
			}
		}
	case kindFloat:
		for j := range changed {
			if new.valid[j] && math.Float64bits(old.f[j]) != math.Float64bits(new.f[j]) {
				changed[j] = true
			}
		}
	case kindDec:
		for j := range changed {
			if new.valid[j] && old.d[j] != new.d[j] {
				changed[j] = true
			}
		}
	case kindStr:
		for j := range changed {
			if new.valid[j] && old.s[j] != new.s[j] {
				changed[j] = true
			}
		}
	}
}

// floatKey maps a double to an int64 whose order is the order of
// types.Compare: NaN first, then -Inf ... +Inf, with -0 equal to 0 (it maps
// to 0's key, as GROUP BY and DISTINCT treat them alike).
func floatKey(f float64) int64 {
	switch {
	case f != f:
		return math.MinInt64
	case f == 0:
		return 0
	}
	b := int64(math.Float64bits(f))
	return b ^ int64(uint64(b>>63)>>1)
}

// floatFromKey inverts floatKey.
func floatFromKey(k int64) float64 {
	if k == math.MinInt64 {
		return math.NaN()
	}
	return math.Float64frombits(uint64(k ^ int64(uint64(k>>63)>>1)))
}

// decKeys encodes each decimal as 16 bytes whose byte order is the
// numeric order (the high word with its sign bit flipped, then the low word,
// big-endian), written into buf, and returns one string holding them all so
// that a batch costs one allocation.
func decKeys(vals []decimal128.Num, buf []byte) (string, []byte) {
	buf = vec.Resize(buf, 16*len(vals))
	for i, v := range vals {
		binary.BigEndian.PutUint64(buf[16*i:], uint64(v.HighBits())^(1<<63))
		binary.BigEndian.PutUint64(buf[16*i+8:], v.LowBits())
	}
	return string(buf), buf
}

// decFromKey decodes a key made by decKeys.
func decFromKey(k string) decimal128.Num {
	hi := uint64(0)
	lo := uint64(0)
	for i := range 8 {
		hi = hi<<8 | uint64(k[i])
		lo = lo<<8 | uint64(k[8+i])
	}
	return decimal128.New(int64(hi^(1<<63)), lo)
}

// b2i is 1 for true and 0 for false, without a branch.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
