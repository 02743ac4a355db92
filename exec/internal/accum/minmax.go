package accum

import (
	"errors"
	"fmt"
	"strings"

	"github.com/eddysql/eddy/exec/internal/aggstate"
)

// ErrAppendOnly is returned when an aggregate planned for an
// append-only input receives a retraction.
var ErrAppendOnly = errors.New("retraction reached an aggregate planned for append-only input")

// ordered are the representations kept in ordered state (MIN/MAX and
// DISTINCT). Doubles are kept as int64 keys (FloatKey) and decimals as
// 16-byte string keys (DecKeys), both order-preserving.
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
	tally[V]
	clone  func(V) V
	sets   aggstate.Column[aggstate.Multiset[V]]
	keyLen int64 // the length of every value when they are decimal keys (DecKeys), else 0
}

// newMultisets returns empty multisets whose values (strings) all have
// length keyLen, or any length for 0.
func newMultisets[V ordered](keyLen int) multisets[V] {
	return multisets[V]{tally: tally[V]{size: sizeOf[V]()}, clone: cloneOf[V](), keyLen: int64(keyLen)}
}

// add adds w occurrences of v to group s and returns the count before.
func (m *multisets[V]) add(s int32, v V, w int64) (int64, error) {
	before, err := m.sets.At(s).Add(v, w, m.clone)
	if err != nil {
		return before, err
	}
	m.tally.changed(v, before, before+w)
	return before, nil
}

// tally counts the distinct values a column of sets holds and the bytes
// they point to, for the memory estimate.
type tally[V ordered] struct {
	size    func(V) int64
	entries int64 // distinct values held, over all groups
	extra   int64 // bytes the held values point to
}

// changed records that v's count went from before to after.
func (t *tally[V]) changed(v V, before, after int64) {
	switch {
	case before == 0 && after > 0:
		t.entries++
		if t.size != nil {
			t.extra += t.size(v)
		}
	case before > 0 && after == 0:
		t.entries--
		if t.size != nil {
			t.extra -= t.size(v)
		}
	}
}

func (m *multisets[V]) Grow(n int) { m.sets.Grow(n) }

func (m *multisets[V]) Free(s int32) {
	set := m.sets.At(s)
	if set.Len() > 0 {
		set.Each(func(v V, n int64) { m.changed(v, n, 0) })
	}
	set.Reset()
}

// Touch reads each group's multiset header, then both ends of its values
// (MIN and MAX read them; a small multiset spans a line or two): two loops,
// so that the misses of each are independent of one another.
func (m *multisets[V]) Touch(b *Batch) int64 {
	slots := b.Touched
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

func (m *multisets[V]) Bytes() int64 {
	return m.sets.Bytes() + m.entries*aggstate.EntryBytes[V]() + m.extra
}

// minMaxAgg is a retractable MIN or MAX of strings (or decimal keys): each
// group keeps its values in an ordered multiset, so retracting the current
// extreme finds the next one.
type minMaxAgg[V ordered] struct {
	max bool
	multisets[V]
}

func (a *minMaxAgg[V]) Update(b *Batch, w []int64, arg *Arg) error {
	vals := *typed[V](&arg.Values)
	for i, s := range b.RowSlots() {
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

func (a *minMaxAgg[V]) Result(b *Batch, _ []int64, dst *Vector) error {
	out := *typed[V](&dst.Values)
	for j, s := range b.Touched {
		if a.max {
			out[j], dst.Valid[j] = a.sets.At(s).Last()
		} else {
			out[j], dst.Valid[j] = a.sets.At(s).First()
		}
	}
	return nil
}

// strExtremeAgg is MIN or MAX of strings (or decimal keys) over an
// append-only input: a column of each group's extreme value.
type strExtremeAgg struct {
	columnAgg
	max    bool
	acc    aggstate.Column[strExtreme]
	extra  int64 // string bytes held
	keyLen int   // the length of every value when they are decimal keys (DecKeys), else 0
}

// strExtreme is one group's extreme string, if it has one.
type strExtreme struct {
	v   string
	has bool
}

func (a *strExtremeAgg) Grow(n int) { a.acc.Grow(n) }

func (a *strExtremeAgg) Touch(b *Batch) int64 {
	slots := b.Touched
	var sum int64
	for _, s := range slots {
		sum += int64(len(a.acc.At(s).v))
	}
	return sum
}

func (a *strExtremeAgg) Free(s int32) {
	e := a.acc.At(s)
	a.extra -= int64(len(e.v))
	*e = strExtreme{}
}

func (a *strExtremeAgg) Bytes() int64 { return a.acc.Bytes() + a.extra }

func (a *strExtremeAgg) Update(b *Batch, w []int64, arg *Arg) error {
	vals := arg.S
	for i, s := range b.RowSlots() {
		switch {
		case w[i] == 0:
			continue
		case w[i] < 0:
			return ErrAppendOnly
		}
		e, v := a.acc.At(s), vals[i]
		if !a.better(e, v) {
			continue
		}
		a.extra += int64(len(v) - len(e.v))
		e.v, e.has = strings.Clone(v), true
	}
	return nil
}

// better reports whether v replaces e's extreme.
func (a *strExtremeAgg) better(e *strExtreme, v string) bool {
	return !e.has || (a.max && v > e.v) || (!a.max && v < e.v)
}

// Merge keeps the better extreme; src's string moves to dst.
func (a *strExtremeAgg) Merge(dst, src int32) error {
	d, e := a.acc.At(dst), a.acc.At(src)
	if e.has && a.better(d, e.v) {
		a.extra -= int64(len(d.v))
		*d, *e = *e, strExtreme{}
	}
	return nil
}

func (a *strExtremeAgg) Result(b *Batch, _ []int64, dst *Vector) error {
	for j, s := range b.Touched {
		e := a.acc.At(s)
		dst.S[j], dst.Valid[j] = e.v, e.has
	}
	return nil
}

// keyedMinMax is MIN or MAX over doubles or decimals: the inner
// accumulator orders their keys, and results are decoded back.
type keyedMinMax struct {
	Accumulator
	keys Vector // of kind KindInt (doubles) or KindStr (decimals)
}

// keyedMerger is a keyedMinMax whose inner accumulator merges.
type keyedMerger struct {
	keyedMinMax
	m Merger
}

func (a *keyedMerger) Merge(dst, src int32) error { return a.m.Merge(dst, src) }

func (a *keyedMinMax) Result(b *Batch, counts []int64, dst *Vector) error {
	a.keys.Resize(len(b.Touched))
	if err := a.Accumulator.Result(b, counts, &a.keys); err != nil {
		return err
	}
	a.decode(len(b.Touched), dst)
	return nil
}

// decode writes the values of the first m keys to dst.
func (a *keyedMinMax) decode(m int, dst *Vector) {
	for j := range m {
		if dst.Valid[j] = a.keys.Valid[j]; !dst.Valid[j] {
			continue
		}
		if a.keys.Kind == KindInt {
			dst.F[j] = FloatFromKey(a.keys.I[j])
		} else {
			dst.D[j] = DecFromKey(a.keys.S[j])
		}
	}
}
