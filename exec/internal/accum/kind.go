package accum

import (
	"encoding/binary"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/internal/vec"
)

// Kind is the Go representation of a column's values inside an aggregate:
// every SQL type an aggregate holds maps onto one of four.
type Kind uint8

const (
	KindInt   Kind = iota // BOOLEAN (0/1), integers, DATE (days), TIMESTAMP and INTERVAL (ms)
	KindFloat             // FLOAT, DOUBLE
	KindDec               // DECIMAL
	KindStr               // VARCHAR
)

// KindOf returns the representation of t, and false for types an
// aggregate cannot hold (NULL, UNKNOWN).
func KindOf(t types.T) (Kind, bool) {
	switch t.Physical() {
	case types.PhysBool, types.PhysInt64, types.PhysDate32, types.PhysTimestamp, types.PhysDuration:
		return KindInt, true
	case types.PhysFloat64:
		return KindFloat, true
	case types.PhysDecimal:
		return KindDec, true
	case types.PhysString:
		return KindStr, true
	}
	return 0, false
}

// value is the set of Go types that hold values (see Kind).
type value interface {
	int64 | float64 | decimal128.Num | string
}

// Values is a column of values; only the slice of its kind is used.
type Values struct {
	I []int64
	F []float64
	D []decimal128.Num
	S []string
}

// typed returns the slice of v that holds values of type V.
func typed[V value](v *Values) *[]V {
	var zero V
	switch any(zero).(type) {
	case int64:
		return any(&v.I).(*[]V)
	case float64:
		return any(&v.F).(*[]V)
	case decimal128.Num:
		return any(&v.D).(*[]V)
	}
	return any(&v.S).(*[]V)
}

// Vector is one value per group of a batch (old or new aggregate results,
// or decoded group keys), with validity.
type Vector struct {
	Kind  Kind
	Valid []bool
	Values
}

// Resize makes v hold n values, keeping its buffers.
func (v *Vector) Resize(n int) {
	v.Valid = vec.Resize(v.Valid, n)
	switch v.Kind {
	case KindInt:
		v.I = vec.Resize(v.I, n)
	case KindFloat:
		v.F = vec.Resize(v.F, n)
	case KindDec:
		v.D = vec.Resize(v.D, n)
	case KindStr:
		clear(v.S)
		v.S = vec.Resize(v.S, n)
	}
}

// Append appends value j of u (of v's kind) to v; a string is copied, so
// that it outlives the state u's was read from.
func (v *Vector) Append(u *Vector, j int) {
	v.Valid = append(v.Valid, u.Valid[j])
	switch v.Kind {
	case KindInt:
		v.I = append(v.I, u.I[j])
	case KindFloat:
		v.F = append(v.F, u.F[j])
	case KindDec:
		v.D = append(v.D, u.D[j])
	case KindStr:
		v.S = append(v.S, strings.Clone(u.S[j]))
	}
}

// Move sets value k of v to its value j.
func (v *Vector) Move(k, j int) {
	v.Valid[k] = v.Valid[j]
	switch v.Kind {
	case KindInt:
		v.I[k] = v.I[j]
	case KindFloat:
		v.F[k] = v.F[j]
	case KindDec:
		v.D[k] = v.D[j]
	case KindStr:
		v.S[k] = v.S[j]
	}
}

// DropFirst removes the first n values of v, moving the others down.
func (v *Vector) DropFirst(n int) {
	live := len(v.Valid) - n
	copy(v.Valid, v.Valid[n:])
	switch v.Kind {
	case KindInt:
		copy(v.I, v.I[n:])
	case KindFloat:
		copy(v.F, v.F[n:])
	case KindDec:
		copy(v.D, v.D[n:])
	case KindStr:
		copy(v.S, v.S[n:])
	}
	v.Truncate(live)
}

// Truncate keeps the first n values of v.
func (v *Vector) Truncate(n int) {
	v.Valid = v.Valid[:n]
	switch v.Kind {
	case KindInt:
		v.I = v.I[:n]
	case KindFloat:
		v.F = v.F[:n]
	case KindDec:
		v.D = v.D[:n]
	case KindStr:
		clear(v.S[n:])
		v.S = v.S[:n]
	}
}

// MarkChanged sets changed[j] for every j where old and new differ (NULL
// equals NULL; doubles compare by their bits, so NaN is unchanged).
func MarkChanged(old, new *Vector, changed []bool) {
	for j := range changed {
		if old.Valid[j] != new.Valid[j] {
			changed[j] = true
		}
	}
	switch old.Kind {
	case KindInt:
		for j := range changed {
			if new.Valid[j] && old.I[j] != new.I[j] {
				changed[j] = true
			}
		}
	case KindFloat:
		for j := range changed {
			if new.Valid[j] && math.Float64bits(old.F[j]) != math.Float64bits(new.F[j]) {
				changed[j] = true
			}
		}
	case KindDec:
		for j := range changed {
			if new.Valid[j] && old.D[j] != new.D[j] {
				changed[j] = true
			}
		}
	case KindStr:
		for j := range changed {
			if new.Valid[j] && old.S[j] != new.S[j] {
				changed[j] = true
			}
		}
	}
}

// Same reports whether value i of v and value j of u (of v's kind) are
// the same, as MarkChanged compares them.
func (v *Vector) Same(i int, u *Vector, j int) bool {
	if v.Valid[i] != u.Valid[j] {
		return false
	}
	if !v.Valid[i] {
		return true
	}
	switch v.Kind {
	case KindInt:
		return v.I[i] == u.I[j]
	case KindFloat:
		return math.Float64bits(v.F[i]) == math.Float64bits(u.F[j])
	case KindDec:
		return v.D[i] == u.D[j]
	}
	return v.S[i] == u.S[j]
}

// FloatKey maps a double to an int64 whose order is the order of
// types.Compare: NaN first, then -Inf ... +Inf, with -0 equal to 0 (it maps
// to 0's key, as GROUP BY and DISTINCT treat them alike).
func FloatKey(f float64) int64 {
	switch {
	case f != f:
		return math.MinInt64
	case f == 0:
		return 0
	}
	b := int64(math.Float64bits(f))
	return b ^ int64(uint64(b>>63)>>1)
}

// FloatFromKey inverts FloatKey.
func FloatFromKey(k int64) float64 {
	if k == math.MinInt64 {
		return math.NaN()
	}
	return math.Float64frombits(uint64(k ^ int64(uint64(k>>63)>>1)))
}

// DecKeys encodes each decimal as 16 bytes whose byte order is the
// numeric order (the high word with its sign bit flipped, then the low word,
// big-endian), written into buf, and returns one string holding them all so
// that a batch costs one allocation.
func DecKeys(vals []decimal128.Num, buf []byte) (string, []byte) {
	buf = vec.Resize(buf, 16*len(vals))
	for i, v := range vals {
		binary.BigEndian.PutUint64(buf[16*i:], uint64(v.HighBits())^(1<<63))
		binary.BigEndian.PutUint64(buf[16*i+8:], v.LowBits())
	}
	return string(buf), buf
}

// DecFromKey decodes a key made by DecKeys.
func DecFromKey(k string) decimal128.Num {
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

// Results returns a Vector for the results of each of specs, of the kind
// of its result type.
func Results(specs []Spec) []Vector {
	vs := make([]Vector, len(specs))
	for i, s := range specs {
		vs[i].Kind, _ = KindOf(s.Type)
	}
	return vs
}
