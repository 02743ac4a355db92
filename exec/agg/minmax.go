package agg

import (
	"errors"
	"fmt"
	"strings"

	"github.com/eddysql/eddy/exec/internal/aggstate"
	"github.com/eddysql/eddy/exec/internal/vec"
)

// errAppendOnly is returned when an aggregate planned for an
// append-only input receives a retraction.
var errAppendOnly = errors.New("retraction reached an aggregate planned for append-only input")

// ordered are the representations kept in ordered state (MIN/MAX and
// DISTINCT). Doubles are kept as int64 keys (floatKey) and decimals as
// 16-byte string keys (decKeys), both order-preserving.
type ordered interface {
	int64 | string
}

// cloneOf returns the function that copies a value before the state keeps
// it (strings point into the batch's buffers), or nil.
func cloneOf[K ordered]() func(K) K {
	var zero K
	if _, ok := any(zero).(string); ok {
		return any(strings.Clone).(func(K) K)
	}
	return nil
}

// sizeOf returns how many bytes a kept value points to (string bytes), or
// nil when values point to nothing.
func sizeOf[K ordered]() func(K) int64 {
	var zero K
	if _, ok := any(zero).(string); ok {
		return any(func(s string) int64 { return int64(len(s)) }).(func(K) int64)
	}
	return nil
}

// multisets is a slot-indexed column of ordered multisets (value →
// count), with the bookkeeping for the memory estimate. It is the state of
// a retractable MIN/MAX of strings or decimals and of a DISTINCT filter
// (MIN/MAX of numbers keeps its multisets in the arena: intMinMaxAgg).
type multisets[V ordered] struct {
	columnAgg
	clone   func(V) V
	size    func(V) int64
	sets    aggstate.Column[aggstate.Multiset[V]]
	entries int64 // distinct values held, over all groups
	extra   int64 // bytes the held values point to
}

func newMultisets[V ordered]() multisets[V] {
	return multisets[V]{clone: cloneOf[V](), size: sizeOf[V]()}
}

// add adds w occurrences of v to group s and returns the count before.
func (m *multisets[V]) add(s int32, v V, w int64) (int64, error) {
	before, err := m.sets.At(s).Add(v, w, m.clone)
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

func (m *multisets[V]) grow(n int) { m.sets.Grow(n) }

func (m *multisets[V]) free(s int32) {
	set := m.sets.At(s)
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

// touch reads each group's multiset header, then both ends of its values
// (MIN and MAX read them; a small multiset spans a line or two): two loops,
// so that the misses of each are independent of one another (see
// touchRows).
func (m *multisets[V]) touch(b *batch) int64 {
	slots := b.touched
	var sum int64
	for _, s := range slots {
		sum += int64(m.sets.At(s).Len())
	}
	for _, s := range slots {
		if small := m.sets.At(s).Small(); len(small) > 0 {
			sum += small[0].N + small[len(small)-1].N
		}
	}
	return sum
}

func (m *multisets[V]) stateBytes() int64 {
	return m.sets.Bytes() + m.entries*aggstate.EntryBytes[V]() + m.extra
}

// minMaxAgg is a retractable MIN or MAX of strings (or decimal keys): each
// group keeps its values in an ordered multiset, so retracting the current
// extreme finds the next one.
type minMaxAgg[V ordered] struct {
	max bool
	multisets[V]
}

func (a *minMaxAgg[V]) update(b *batch, w []int64, arg *argCol) error {
	vals := *typed[V](&arg.values)
	for i, s := range b.rowSlots() {
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

func (a *minMaxAgg[V]) result(b *batch, _ []int64, dst *vector) error {
	out := *typed[V](&dst.values)
	for j, s := range b.touched {
		if a.max {
			out[j], dst.valid[j] = a.sets.At(s).Last()
		} else {
			out[j], dst.valid[j] = a.sets.At(s).First()
		}
	}
	return nil
}

// strExtremeAgg is MIN or MAX of strings (or decimal keys) over an
// append-only input: a column of each group's extreme value.
type strExtremeAgg struct {
	columnAgg
	max   bool
	acc   aggstate.Column[strExtreme]
	extra int64 // string bytes held
}

// strExtreme is one group's extreme string, if it has one.
type strExtreme struct {
	v   string
	has bool
}

func (a *strExtremeAgg) grow(n int) { a.acc.Grow(n) }

func (a *strExtremeAgg) touch(b *batch) int64 {
	slots := b.touched
	var sum int64
	for _, s := range slots {
		sum += int64(len(a.acc.At(s).v))
	}
	return sum
}

func (a *strExtremeAgg) free(s int32) {
	e := a.acc.At(s)
	a.extra -= int64(len(e.v))
	*e = strExtreme{}
}

func (a *strExtremeAgg) stateBytes() int64 { return a.acc.Bytes() + a.extra }

func (a *strExtremeAgg) update(b *batch, w []int64, arg *argCol) error {
	vals := arg.s
	for i, s := range b.rowSlots() {
		switch {
		case w[i] == 0:
			continue
		case w[i] < 0:
			return errAppendOnly
		}
		e, v := a.acc.At(s), vals[i]
		if e.has && ((a.max && v <= e.v) || (!a.max && v >= e.v)) {
			continue
		}
		a.extra += int64(len(v) - len(e.v))
		e.v, e.has = strings.Clone(v), true
	}
	return nil
}

func (a *strExtremeAgg) result(b *batch, _ []int64, dst *vector) error {
	for j, s := range b.touched {
		e := a.acc.At(s)
		dst.s[j], dst.valid[j] = e.v, e.has
	}
	return nil
}

// distinctAgg is COUNT, SUM or AVG of DISTINCT values: each group keeps its
// values with their counts, and the inner aggregate sees a value once when
// its count rises from zero and once (retracted) when it falls back to zero.
type distinctAgg[V ordered] struct {
	multisets[V]
	inner state
	ew    []int64
}

func (a *distinctAgg[V]) words() int { return a.inner.words() }

func (a *distinctAgg[V]) bind(arena *aggstate.Arena, off int) { a.inner.bind(arena, off) }

func (a *distinctAgg[V]) grow(n int) {
	a.multisets.grow(n)
	a.inner.grow(n)
}

func (a *distinctAgg[V]) free(s int32) {
	a.multisets.free(s)
	a.inner.free(s)
}

func (a *distinctAgg[V]) touch(b *batch) int64 {
	return a.multisets.touch(b) + a.inner.touch(b)
}

func (a *distinctAgg[V]) stateBytes() int64 {
	return a.multisets.stateBytes() + a.inner.stateBytes()
}

func (a *distinctAgg[V]) update(b *batch, w []int64, arg *argCol) error {
	vals := *typed[V](&arg.values)
	slots := b.rowSlots()
	a.ew = vec.Resize(a.ew, len(slots))
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
		a.ew[i] = int64(b2i(after > 0) - b2i(before > 0))
	}
	return a.inner.update(b, a.ew, arg)
}

func (a *distinctAgg[V]) result(b *batch, counts []int64, dst *vector) error {
	return a.inner.result(b, counts, dst)
}

// keyedMinMax is MIN or MAX over doubles or decimals: the inner state
// orders their keys, and results are decoded back.
type keyedMinMax struct {
	state
	keys vector // of kind kindInt (doubles) or kindStr (decimals)
}

func (a *keyedMinMax) result(b *batch, counts []int64, dst *vector) error {
	a.keys.resize(len(b.touched))
	if err := a.state.result(b, counts, &a.keys); err != nil {
		return err
	}
	for j := range b.touched {
		if dst.valid[j] = a.keys.valid[j]; !dst.valid[j] {
			continue
		}
		if a.keys.kind == kindInt {
			dst.f[j] = floatFromKey(a.keys.i[j])
		} else {
			dst.d[j] = decFromKey(a.keys.s[j])
		}
	}
	return nil
}
