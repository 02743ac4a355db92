package accum

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"

	"github.com/eddysql/eddy/exec/internal/aggstate"
	"github.com/eddysql/eddy/exec/internal/vec"
)

// sharedDistinct is the state of up to aggstate.MaxPresence DISTINCT
// aggregates (COUNT, SUM, AVG) over an input that never retracts, kept in
// one aggstate.PresenceSet per group: a value and a bit for each
// aggregate that has seen it. A value that cannot be retracted needs no
// count, and aggregates whose arguments hold the same values (Spec.Share:
// COUNT(DISTINCT bidder) beside COUNT(DISTINCT CASE WHEN price < 10000
// THEN bidder END)) look a row's value up once and keep it once. Flink
// shares the state of the distinct aggregates of one field the same way.
// Members that see different values in a row stay right: each value is
// looked up on its own. Over an input that retracts, each DISTINCT
// aggregate keeps counts in a set of its own (distinctAgg).
//
// The members are Accumulators, each around its own inner accumulator;
// they update the sets together, when the last of them gets its argument
// (the operator calls every Update before any new Result), and each
// writes its own values in a checkpoint, in distinctAgg's format, with a
// count of 1.
type sharedDistinct[V ordered] struct {
	tally[V]
	clone   func(V) V
	hash    func(V) uint64
	keyLen  int64
	sets    aggstate.Column[aggstate.PresenceSet[V]]
	tables  int64 // bytes of the sets' tables
	members []*sharedMember[V]

	// The batch's arguments, by member, as their Updates give them.
	args  []*Arg
	ws    [][]int64
	vals  [][]V
	given uint64 // bit k: member k gave its argument
	hs    []uint64
	// peeked sums what the peeks read, so that their loads are not
	// dropped as unused.
	peeked int64

	// version counts changes to the sets; sorted holds the values of
	// slot sortedSlot in ascending order as of sortedVersion, for the
	// members' AppendState of one slot, one after the other.
	version       uint64
	sorted        []presentValue[V]
	sortedSlot    int32
	sortedVersion uint64
}

// presentValue is a value of a PresenceSet with its bits.
type presentValue[V ordered] struct {
	v    V
	bits uint32
}

// sharedMember is one aggregate of a sharedDistinct: bit k of its sets.
type sharedMember[V ordered] struct {
	s      *sharedDistinct[V]
	k      int
	kind   Kind
	inner  Accumulator
	arena  *aggstate.Arena
	ew     []int64 // by row: 1 where the row's value is new to the group
	merged mergeFeed[V]
}

// newShared returns the members of one sharedDistinct for values of kind
// k, one around each of inners.
func newShared(k Kind, inners []Accumulator) []Accumulator {
	if k == KindInt || k == KindFloat {
		return sharedMembers[int64](k, inners, 0)
	}
	return sharedMembers[string](k, inners, decKeyLen(k))
}

func sharedMembers[V ordered](kind Kind, inners []Accumulator, keyLen int) []Accumulator {
	n := len(inners)
	s := &sharedDistinct[V]{tally: tally[V]{size: sizeOf[V]()}, clone: cloneOf[V](), hash: hashOf[V](), keyLen: int64(keyLen),
		args: make([]*Arg, n), ws: make([][]int64, n), vals: make([][]V, n), sortedSlot: -1}
	out := make([]Accumulator, n)
	for k, in := range inners {
		m := &sharedMember[V]{s: s, k: k, kind: kind, inner: in}
		s.members = append(s.members, m)
		out[k] = m
	}
	return out
}

func (m *sharedMember[V]) Words() int { return m.inner.Words() }

func (m *sharedMember[V]) Bind(arena *aggstate.Arena, off int) {
	m.arena = arena
	m.inner.Bind(arena, off)
}

// Grow grows the sets' column (idempotent: once for all members) and the
// inner accumulator's.
func (m *sharedMember[V]) Grow(n int) {
	m.s.sets.Grow(n)
	m.inner.Grow(n)
}

// Free empties the group's set: the operator frees all its accumulators
// of a group together, so the first member's Free does it for all.
func (m *sharedMember[V]) Free(slot int32) {
	s := m.s
	set := s.sets.At(slot)
	if set.Len() > 0 {
		set.Each(func(v V, _ uint32) { s.changed(v, 1, 0) })
	}
	s.tables -= set.Bytes()
	set.Reset()
	s.version++
	m.inner.Free(slot)
}

// Touch reads the touched groups' set headers, once for all members.
func (m *sharedMember[V]) Touch(b *Batch) int64 {
	sum := m.inner.Touch(b)
	if m.k == 0 {
		for _, slot := range b.Touched {
			sum += int64(m.s.sets.At(slot).Len())
		}
	}
	return sum
}

// Bytes counts the sets once, with the first member.
func (m *sharedMember[V]) Bytes() int64 {
	n := m.inner.Bytes()
	if m.k == 0 {
		n += m.s.sets.Bytes() + m.s.tables + m.s.extra
	}
	return n
}

func (m *sharedMember[V]) Result(b *Batch, counts []int64, dst *Vector) error {
	return m.inner.Result(b, counts, dst)
}

// Update records the member's argument and weights; the last member's
// updates the sets for all of them, then each inner accumulator.
func (m *sharedMember[V]) Update(b *Batch, w []int64, arg *Arg) error {
	s := m.s
	if m.k == 0 {
		s.given = 0
	}
	s.args[m.k], s.ws[m.k], s.vals[m.k] = arg, w, *typed[V](&arg.Values)
	s.given |= 1 << m.k
	if m.k < len(s.members)-1 {
		return nil
	}
	if s.given != 1<<len(s.members)-1 {
		return fmt.Errorf("DISTINCT: shared sets updated without every aggregate's argument (%b)", s.given)
	}
	if err := s.update(b); err != nil {
		return err
	}
	for k, mem := range s.members {
		// The inner accumulator weighs the rows by their values' news.
		arg := s.args[k]
		ones := arg.Ones
		arg.Ones = false
		err := mem.inner.Update(b, mem.ew, arg)
		arg.Ones = ones
		if err != nil {
			return err
		}
	}
	return nil
}

// update adds the batch's values to the sets and records, by member and
// row, whether the row's value is new to the member's group.
func (s *sharedDistinct[V]) update(b *Batch) error {
	s.version++
	slots := b.RowSlots()
	for _, m := range s.members {
		m.ew = vec.Resize(m.ew, len(slots))
		clear(m.ew)
	}
	s.hs = vec.Resize(s.hs, len(slots))
	nm := len(s.members)
	for i, slot := range slots {
		if i%peekAhead == 0 {
			s.peek(slots, i, min(i+peekAhead, len(slots)))
		}
		var pending uint32
		for k := range nm {
			switch w := s.ws[k][i]; {
			case w > 0:
				pending |= 1 << k
			case w < 0:
				return fmt.Errorf("DISTINCT: %w", ErrAppendOnly)
			}
		}
		set := s.sets.At(slot)
		h := s.hs[i] // the hash of the first value
		for pending != 0 {
			k0 := bits.TrailingZeros32(pending)
			v := s.vals[k0][i]
			var seen uint32
			for k := k0; k < nm; k++ {
				if pending&(1<<k) != 0 && s.vals[k][i] == v {
					seen |= 1 << k
				}
			}
			pending &^= seen
			table := set.Bytes()
			before := set.Add(v, h, seen, s.clone)
			s.tables += set.Bytes() - table
			if before == 0 {
				s.changed(v, 0, 1)
			}
			for news := seen &^ before; news != 0; news &= news - 1 {
				s.members[bits.TrailingZeros32(news)].ew[i] = 1
			}
			if pending != 0 {
				h = s.hash(s.vals[bits.TrailingZeros32(pending)][i])
			}
		}
	}
	return nil
}

// peek hashes the first value of each of rows from..to-1 of slots that a
// member adds and touches its home slot (see distinctAgg.peek).
func (s *sharedDistinct[V]) peek(slots []int32, from, to int) {
	var sum int64
	for i := from; i < to; i++ {
		for k := range s.members {
			if s.ws[k][i] != 0 {
				h := s.hash(s.vals[k][i])
				s.hs[i] = h
				sum += s.sets.At(slots[i]).Peek(h)
				break
			}
		}
	}
	s.peeked += sum
}

// Merge marks the values member k saw in group src as seen in group dst,
// and feeds those dst had not seen to its inner accumulator. Each member
// merges its own bit; the operator frees src once all have.
func (m *sharedMember[V]) Merge(dst, src int32) error {
	s, f := m.s, &m.merged
	s.version++
	f.vals = f.vals[:0]
	bit := uint32(1) << m.k
	set := s.sets.At(dst)
	s.sets.At(src).Each(func(v V, bits uint32) {
		if bits&bit == 0 {
			return
		}
		table := set.Bytes()
		before := set.Add(v, s.hash(v), bit, s.clone)
		s.tables += set.Bytes() - table
		if before == 0 {
			s.changed(v, 0, 1)
		}
		if before&bit == 0 {
			f.vals = append(f.vals, v)
		}
	})
	return f.feed(m.inner, m.kind, m.arena, dst)
}

// AppendState appends the values member k has seen, each with a count of
// 1, then its inner accumulator's state.
func (m *sharedMember[V]) AppendState(slot int32, buf []byte) ([]byte, error) {
	c := codecOf[V]()
	vals := m.s.sortedOf(slot)
	bit := uint32(1) << m.k
	n := 0
	for i := range vals {
		n += b2i(vals[i].bits&bit != 0)
	}
	buf = binary.AppendUvarint(buf, uint64(n))
	for i := range vals {
		if vals[i].bits&bit != 0 {
			buf = c.put(buf, vals[i].v)
			buf = binary.AppendUvarint(buf, 1)
		}
	}
	return m.inner.AppendState(slot, buf)
}

// sortedOf returns the values of slot's set in ascending order, sorting
// them once for all members.
func (s *sharedDistinct[V]) sortedOf(slot int32) []presentValue[V] {
	if slot == s.sortedSlot && s.version == s.sortedVersion {
		return s.sorted
	}
	s.sorted = s.sorted[:0]
	s.sets.At(slot).Each(func(v V, bits uint32) { s.sorted = append(s.sorted, presentValue[V]{v, bits}) })
	slices.SortFunc(s.sorted, func(a, b presentValue[V]) int { return cmp.Compare(a.v, b.v) })
	s.sortedSlot, s.sortedVersion = slot, s.version
	return s.sorted
}

// LoadState marks the values of the state as seen by member k (whatever
// their counts: a state written with counts reads the same), then reads
// its inner accumulator's state.
func (m *sharedMember[V]) LoadState(slot int32, b []byte) ([]byte, error) {
	s := m.s
	s.version++
	set := s.sets.At(slot)
	b, err := loadValues(b, codecOf[V](), s.keyLen, s.size, func(v V, _ int64) error {
		table := set.Bytes()
		if set.Add(v, s.hash(v), 1<<m.k, s.clone) == 0 {
			s.changed(v, 0, 1)
		}
		s.tables += set.Bytes() - table
		return nil
	})
	if err != nil {
		return b, err
	}
	return m.inner.LoadState(slot, b)
}
