package accum

import (
	"cmp"
	"encoding/binary"
	"slices"

	"github.com/zeebo/xxh3"

	"github.com/eddysql/eddy/exec/internal/aggstate"
)

// countsets is a slot-indexed column of unordered multisets (value →
// count): the state of a DISTINCT filter, which needs no order (a MIN or
// MAX keeps its values in multisets, ordered). It keeps the bookkeeping of
// the memory estimate, as multisets does.
type countsets[V ordered] struct {
	columnAgg
	tally[V]
	clone  func(V) V
	hash   func(V) uint64
	sets   aggstate.Column[aggstate.CountSet[V]]
	tables int64 // bytes of the sets' tables
	keyLen int64 // the length of every value when they are decimal keys (DecKeys), else 0
}

// newCountsets returns empty sets whose values (strings) all have length
// keyLen, or any length for 0.
func newCountsets[V ordered](keyLen int) countsets[V] {
	return countsets[V]{tally: tally[V]{size: sizeOf[V]()}, clone: cloneOf[V](), hash: hashOf[V](), keyLen: int64(keyLen)}
}

// hashOf returns the hash of values of type V: the aggregate's integer
// hash, or xxh3 for strings.
func hashOf[V ordered]() func(V) uint64 {
	var zero V
	if _, ok := any(zero).(string); ok {
		return any(func(s string) uint64 { return xxh3.HashString(s) }).(func(V) uint64)
	}
	return any(func(v int64) uint64 { return aggstate.Hash64(v) }).(func(V) uint64)
}

// add adds w occurrences of v to group s and returns the count before.
func (m *countsets[V]) add(s int32, v V, w int64) (int64, error) {
	return m.addHashed(s, v, m.hash(v), w)
}

// addHashed is add of a value whose hash is h.
func (m *countsets[V]) addHashed(s int32, v V, h uint64, w int64) (int64, error) {
	set := m.sets.At(s)
	table := set.Bytes()
	before, err := set.Add(v, h, w, m.clone)
	m.tables += set.Bytes() - table
	if err != nil {
		return before, err
	}
	m.changed(v, before, before+w)
	return before, nil
}

func (m *countsets[V]) Grow(n int) { m.sets.Grow(n) }

func (m *countsets[V]) Free(s int32) {
	set := m.sets.At(s)
	set.Each(func(v V, n int64) { m.changed(v, n, 0) })
	m.tables -= set.Bytes()
	set.Reset()
}

// Touch reads each touched group's set header.
func (m *countsets[V]) Touch(b *Batch) int64 {
	var sum int64
	for _, s := range b.Touched {
		sum += int64(m.sets.At(s).Len())
	}
	return sum
}

func (m *countsets[V]) Bytes() int64 { return m.sets.Bytes() + m.tables + m.extra }

// appendSet appends the values of slot s and their counts in ascending
// order, as a multiset's are written (appendMultiset): the checkpoint
// format does not depend on which kind of set a DISTINCT keeps.
func (m *countsets[V]) appendSet(s int32, buf []byte, c valueCodec[V]) []byte {
	set := m.sets.At(s)
	type entry struct {
		v V
		n int64
	}
	entries := make([]entry, 0, set.Len())
	set.Each(func(v V, n int64) { entries = append(entries, entry{v, n}) })
	slices.SortFunc(entries, func(a, b entry) int { return cmp.Compare(a.v, b.v) })
	buf = binary.AppendUvarint(buf, uint64(len(entries)))
	for _, e := range entries {
		buf = c.put(buf, e.v)
		buf = binary.AppendUvarint(buf, uint64(e.n))
	}
	return buf
}

// loadSet reads the values appendSet wrote (or appendMultiset) into the
// empty set of slot s.
func (m *countsets[V]) loadSet(s int32, b []byte, c valueCodec[V]) ([]byte, error) {
	return loadValues(b, c, m.keyLen, m.size, func(v V, n int64) error {
		_, err := m.add(s, v, n)
		return err
	})
}
