package exec

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/exec/aggstate"
)

// errAggAppendOnly is returned when an aggregate planned for an
// append-only input receives a retraction.
var errAggAppendOnly = errors.New("retraction reached an aggregate planned for append-only input")

// aggOrdered are the representations kept in ordered state (MIN/MAX and
// DISTINCT). Doubles are kept as int64 keys (aggFloatKey) and decimals as
// 16-byte string keys (aggDecKeys), both order-preserving.
type aggOrdered interface {
	int64 | string
}

// aggCloneOf returns the function that copies a value before the state keeps
// it (strings point into the batch's buffers), or nil.
func aggCloneOf[K aggOrdered]() func(K) K {
	var zero K
	if _, ok := any(zero).(string); ok {
		return any(strings.Clone).(func(K) K)
	}
	return nil
}

// aggSizeOf returns how many bytes a kept value points to (string bytes), or
// nil when values point to nothing.
func aggSizeOf[K aggOrdered]() func(K) int64 {
	var zero K
	if _, ok := any(zero).(string); ok {
		return any(func(s string) int64 { return int64(len(s)) }).(func(K) int64)
	}
	return nil
}

// aggMultisets is a per-slot column of ordered multisets (value → count), with
// the bookkeeping for the memory estimate. It is the state of a retractable
// MIN/MAX and of a DISTINCT filter.
type aggMultisets[V aggOrdered] struct {
	clone   func(V) V
	size    func(V) int64
	sets    []aggstate.Multiset[V]
	entries int64 // distinct values held, over all groups
	extra   int64 // bytes the held values point to
}

func newAggMultisets[V aggOrdered]() aggMultisets[V] {
	return aggMultisets[V]{clone: aggCloneOf[V](), size: aggSizeOf[V]()}
}

// add adds w occurrences of v to group s and returns the count before.
func (m *aggMultisets[V]) add(s int32, v V, w int64) (int64, error) {
	before, err := m.sets[s].Add(v, w, m.clone)
	if err != nil {
		return before, err
	}
	switch after := before + w; {
	case before == 0 && after > 0:
		m.entries++
		if m.size != nil {
			m.extra += m.size(v)
		}
	case before > 0 && after == 0:
		m.entries--
		if m.size != nil {
			m.extra -= m.size(v)
		}
	}
	return before, nil
}

func (m *aggMultisets[V]) grow(n int) { m.sets = aggGrow(m.sets, n) }

func (m *aggMultisets[V]) free(s int32) {
	set := &m.sets[s]
	if set.Len() > 0 {
		set.Each(func(v V, _ int64) {
			m.entries--
			if m.size != nil {
				m.extra -= m.size(v)
			}
		})
	}
	set.Reset()
}

// touch reads each group's multiset header and its smallest values.
func (m *aggMultisets[V]) touch(slots []int32) int64 {
	var sum int64
	for _, s := range slots {
		if set := &m.sets[s]; len(set.Small()) > 0 {
			sum += set.Small()[0].N
		}
	}
	return sum
}

func (m *aggMultisets[V]) stateBytes() int64 {
	var set aggstate.Multiset[V]
	return int64(len(m.sets))*int64(unsafe.Sizeof(set)) + m.entries*aggstate.EntryBytes[V]() + m.extra
}

// minMaxAgg is a retractable MIN or MAX: each group keeps its values in an
// ordered multiset, so retracting the current extreme finds the next one.
type minMaxAgg[V aggOrdered] struct {
	max bool
	aggMultisets[V]
}

func (a *minMaxAgg[V]) update(slots []int32, w []int64, arg *aggArgCol) error {
	vals := *aggTyped[V](&arg.aggValues)
	for i, s := range slots {
		if w[i] == 0 {
			continue
		}
		if _, err := a.add(s, vals[i], w[i]); err != nil {
			return fmt.Errorf("%s: %w", a.name(), err)
		}
	}
	return nil
}

func (a *minMaxAgg[V]) name() string {
	if a.max {
		return "MAX"
	}
	return "MIN"
}

func (a *minMaxAgg[V]) result(slots []int32, dst *aggVec) error {
	out := *aggTyped[V](&dst.aggValues)
	for j, s := range slots {
		if a.max {
			out[j], dst.valid[j] = a.sets[s].Last()
		} else {
			out[j], dst.valid[j] = a.sets[s].First()
		}
	}
	return nil
}

// extremeAgg is MIN or MAX over an append-only input: only the extreme value
// is kept per group.
type extremeAgg[V aggOrdered] struct {
	max   bool
	clone func(V) V
	size  func(V) int64
	acc   []extreme[V]
	extra int64
}

// extreme is one group's extreme value, if it has one.
type extreme[V aggOrdered] struct {
	v   V
	has bool
}

func newExtremeAgg[V aggOrdered](max bool) *extremeAgg[V] {
	return &extremeAgg[V]{max: max, clone: aggCloneOf[V](), size: aggSizeOf[V]()}
}

func (a *extremeAgg[V]) grow(n int) { a.acc = aggGrow(a.acc, n) }

func (a *extremeAgg[V]) touch(slots []int32) int64 {
	var sum int64
	for _, s := range slots {
		sum += int64(b2i(a.acc[s].has))
	}
	return sum
}

func (a *extremeAgg[V]) free(s int32) {
	if a.size != nil && a.acc[s].has {
		a.extra -= a.size(a.acc[s].v)
	}
	a.acc[s] = extreme[V]{}
}

func (a *extremeAgg[V]) stateBytes() int64 {
	return int64(len(a.acc))*int64(unsafe.Sizeof(extreme[V]{})) + a.extra
}

func (a *extremeAgg[V]) update(slots []int32, w []int64, arg *aggArgCol) error {
	vals := *aggTyped[V](&arg.aggValues)
	for i, s := range slots {
		switch {
		case w[i] == 0:
			continue
		case w[i] < 0:
			return errAggAppendOnly
		}
		v, acc := vals[i], &a.acc[s]
		if acc.has {
			c := cmp.Compare(v, acc.v)
			if (a.max && c <= 0) || (!a.max && c >= 0) {
				continue
			}
			if a.size != nil {
				a.extra -= a.size(acc.v)
			}
		}
		if a.clone != nil {
			v = a.clone(v)
		}
		if a.size != nil {
			a.extra += a.size(v)
		}
		acc.v, acc.has = v, true
	}
	return nil
}

func (a *extremeAgg[V]) result(slots []int32, dst *aggVec) error {
	out := *aggTyped[V](&dst.aggValues)
	for j, s := range slots {
		out[j], dst.valid[j] = a.acc[s].v, a.acc[s].has
	}
	return nil
}

// distinctAgg is COUNT, SUM or AVG of DISTINCT values: each group keeps its
// aggValues with their counts, and the inner aggregate sees a value once when
// its count rises from zero and once (retracted) when it falls back to zero.
type distinctAgg[V aggOrdered] struct {
	aggMultisets[V]
	inner aggState
	ew    []int64
}

func (a *distinctAgg[V]) grow(n int) {
	a.aggMultisets.grow(n)
	a.inner.grow(n)
}

func (a *distinctAgg[V]) free(s int32) {
	a.aggMultisets.free(s)
	a.inner.free(s)
}

func (a *distinctAgg[V]) touch(slots []int32) int64 {
	return a.aggMultisets.touch(slots) + a.inner.touch(slots)
}

func (a *distinctAgg[V]) stateBytes() int64 {
	return a.aggMultisets.stateBytes() + a.inner.stateBytes()
}

func (a *distinctAgg[V]) update(slots []int32, w []int64, arg *aggArgCol) error {
	vals := *aggTyped[V](&arg.aggValues)
	a.ew = aggResize(a.ew, len(slots))
	for i, s := range slots {
		a.ew[i] = 0
		if w[i] == 0 {
			continue
		}
		before, err := a.add(s, vals[i], w[i])
		if err != nil {
			return fmt.Errorf("DISTINCT: %w", err)
		}
		after := before + w[i]
		switch {
		case before == 0 && after > 0:
			a.ew[i] = 1
		case before > 0 && after == 0:
			a.ew[i] = -1
		}
	}
	return a.inner.update(slots, a.ew, arg)
}

func (a *distinctAgg[V]) result(slots []int32, dst *aggVec) error {
	return a.inner.result(slots, dst)
}

// aggKeyedMinMax is MIN or MAX over doubles or decimals: the inner state
// orders their keys, and results are decoded back.
type aggKeyedMinMax struct {
	aggState
	keys aggVec // of kind aggInt (doubles) or aggStr (decimals)
}

func (a *aggKeyedMinMax) result(slots []int32, dst *aggVec) error {
	a.keys.resize(len(slots))
	if err := a.aggState.result(slots, &a.keys); err != nil {
		return err
	}
	for j := range slots {
		if dst.valid[j] = a.keys.valid[j]; !dst.valid[j] {
			continue
		}
		if a.keys.kind == aggInt {
			dst.f[j] = aggFloatFromKey(a.keys.i[j])
		} else {
			dst.d[j] = aggDecFromKey(a.keys.s[j])
		}
	}
	return nil
}

// aggFloatKey maps a double to an int64 whose order is the order of
// types.Compare: NaN first, then -Inf ... +Inf, with -0 equal to 0 (it maps
// to 0's key, as GROUP BY and DISTINCT treat them alike).
func aggFloatKey(f float64) int64 {
	switch {
	case f != f:
		return math.MinInt64
	case f == 0:
		return 0
	}
	b := int64(math.Float64bits(f))
	return b ^ int64(uint64(b>>63)>>1)
}

// aggFloatFromKey inverts aggFloatKey.
func aggFloatFromKey(k int64) float64 {
	if k == math.MinInt64 {
		return math.NaN()
	}
	return math.Float64frombits(uint64(k ^ int64(uint64(k>>63)>>1)))
}

// aggDecKeys encodes each decimal as 16 bytes whose byte order is the
// numeric order (the high word with its sign bit flipped, then the low word,
// big-endian), written into buf, and returns one string holding them all so
// that a batch costs one allocation.
func aggDecKeys(vals []decimal128.Num, buf []byte) (string, []byte) {
	buf = aggResize(buf, 16*len(vals))
	for i, v := range vals {
		binary.BigEndian.PutUint64(buf[16*i:], uint64(v.HighBits())^(1<<63))
		binary.BigEndian.PutUint64(buf[16*i+8:], v.LowBits())
	}
	return string(buf), buf
}

// aggDecFromKey decodes a key made by aggDecKeys.
func aggDecFromKey(k string) decimal128.Num {
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
