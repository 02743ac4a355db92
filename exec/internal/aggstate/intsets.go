package aggstate

// InlineValues is how many distinct values an IntSets multiset keeps in
// its group's arena row before it spills. Four values and their counts,
// with the header word, are nine words: with a row count and a two-word
// SUM beside them a row is 96 bytes of a 128-byte stride. Groups whose
// values repeat (an upsert stream retracting and re-inserting a key's
// value, a MAX over a few categories) stay inline; a group with more
// distinct values pays one more pointer to follow, as every group did
// before inlining.
const InlineValues = 4

// IntSetWords is the number of arena words an IntSets multiset takes.
const IntSetWords = 1 + 2*InlineValues

// A multiset's words: a header, then InlineValues values in ascending
// order, then their counts. The header is the number of inline values, or
// spillFlag plus the index in the pool of a spilled multiset.
const (
	spillFlag  = 1 << 63
	valuesWord = 1
	countsWord = 1 + InlineValues
)

// unspillAt is the size a spilled multiset must shrink to before it moves
// back inline: half the inline capacity, so that a group whose number of
// values hovers around InlineValues does not move back and forth.
const unspillAt = InlineValues / 2

// IntSets are ordered multisets of int64 values with counts, one per
// group: the state of a retractable MIN/MAX over integers (or the
// order-preserving keys of doubles). A multiset of up to InlineValues
// distinct values lives in IntSetWords words of its group's arena row, so
// that touching a group reads its multiset with the rest of its state, in
// the same cache lines; a larger one spills to a Multiset in a pool,
// addressed from the row, and moves back when it shrinks.
type IntSets struct {
	arena   *Arena
	off     int
	pool    []Multiset[int64] // spilled multisets, by index
	free    []int32           // unused pool indexes
	entries int64             // distinct values held in the pool
}

// Bind places the multisets at words off..off+IntSetWords-1 of every row
// of a.
func (m *IntSets) Bind(a *Arena, off int) { m.arena, m.off = a, off }

// Words returns slot s's multiset words, for the methods that take them
// (a caller that has already found the row passes its words directly).
func (m *IntSets) Words(s int32) []uint64 {
	return m.arena.Row(s)[m.off : m.off+IntSetWords : m.off+IntSetWords]
}

// Add adds w occurrences of v (w < 0 removes them) to the multiset in
// words r and returns the count of v before. A value whose count reaches
// zero is removed. If the count would become negative, Add changes nothing
// and returns ErrNegativeCount.
func (m *IntSets) Add(r []uint64, v, w int64) (before int64, err error) {
	r = r[:IntSetWords]
	if r[0]&spillFlag != 0 {
		return m.addSpilled(r, v, w)
	}
	n := int(r[0])
	// v's position, counted without a data-dependent branch: values
	// arrive in no predictable order. Unused entries are not counted.
	i := 0
	for t := range InlineValues {
		i += b2i(t < n) & b2i(int64(r[valuesWord+t]) < v)
	}
	if i < n && int64(r[valuesWord+i]) == v {
		c := &r[countsWord+i]
		before = int64(*c)
		switch after := before + w; {
		case after < 0:
			return before, ErrNegativeCount
		case after == 0:
			copy(r[valuesWord+i:valuesWord+n], r[valuesWord+i+1:valuesWord+n])
			copy(r[countsWord+i:countsWord+n], r[countsWord+i+1:countsWord+n])
			r[valuesWord+n-1], r[countsWord+n-1] = 0, 0
			r[0] = uint64(n - 1)
		default:
			*c = uint64(after)
		}
		return before, nil
	}
	switch {
	case w < 0:
		return 0, ErrNegativeCount
	case w == 0:
		return 0, nil
	case n == InlineValues:
		m.spill(r)
		return m.addSpilled(r, v, w)
	}
	copy(r[valuesWord+i+1:valuesWord+n+1], r[valuesWord+i:valuesWord+n])
	copy(r[countsWord+i+1:countsWord+n+1], r[countsWord+i:countsWord+n])
	r[valuesWord+i], r[countsWord+i] = uint64(v), uint64(w)
	r[0] = uint64(n + 1)
	return 0, nil
}

// AddRows adds a batch's values: for each row i whose weight w[i] is not
// zero, w[i] occurrences of vals[i] to the multiset at words off onwards of
// rows[groups[i]]. It stops at the first error (see Add).
//
// The common case, a value already held whose count stays positive, is
// handled in the loop itself, without the calls and the checks of Add.
func (m *IntSets) AddRows(rows [][]uint64, off int, groups []int32, vals, w []int64) error {
	vals, w = vals[:len(groups)], w[:len(groups)]
	end := off + IntSetWords
	for i, g := range groups {
		wi := w[i]
		if wi == 0 {
			continue
		}
		r, v := rows[g][off:end:end], vals[i]
		if n := r[0]; n <= InlineValues { // not spilled
			p := 0
			for t := range InlineValues {
				p += b2i(uint64(t) < n) & b2i(int64(r[valuesWord+t]) < v)
			}
			if uint64(p) < n && int64(r[valuesWord+p]) == v {
				if c := int64(r[countsWord+p]) + wi; c > 0 {
					r[countsWord+p] = uint64(c)
					continue
				}
			}
		} else if small := m.pool[n&^spillFlag].small; small != nil {
			if p, found := search(small, v); found && small[p].N+wi > 0 {
				small[p].N += wi
				continue
			}
		}
		if _, err := m.Add(r, v, wi); err != nil {
			return err
		}
	}
	return nil
}

// Touch reads the spilled multisets among those at words off onwards of
// rows (the pool entry, then both ends of the values) and returns a value
// depending on them: a prefetch, as the inline ones were read with their
// rows. Without it a batch that touches a thousand spilled multisets waits
// for two misses of each, one after the other.
func (m *IntSets) Touch(rows [][]uint64, off int) int64 {
	var sum int64
	spilled := 0
	for _, r := range rows {
		h := r[off]
		if h&spillFlag != 0 {
			sum += int64(len(m.pool[h&^spillFlag].small))
			spilled++
		}
	}
	if spilled == 0 {
		return sum
	}
	for _, r := range rows {
		if h := r[off]; h&spillFlag != 0 {
			if small := m.pool[h&^spillFlag].small; len(small) > 0 {
				sum += small[0].N + small[len(small)-1].N
			}
		}
	}
	return sum
}

// spill moves the full inline multiset of r to a pool entry.
func (m *IntSets) spill(r []uint64) {
	var idx int32
	if k := len(m.free); k > 0 {
		idx = m.free[k-1]
		m.free = m.free[:k-1]
	} else {
		m.pool = append(m.pool, Multiset[int64]{})
		idx = int32(len(m.pool) - 1)
	}
	small := make([]Entry[int64], InlineValues, 2*InlineValues)
	for i := range small {
		small[i] = Entry[int64]{Val: int64(r[valuesWord+i]), N: int64(r[countsWord+i])}
	}
	m.pool[idx] = Multiset[int64]{small: small}
	m.entries += InlineValues
	clear(r[1:])
	r[0] = spillFlag | uint64(idx)
}

// addSpilled is Add for a spilled multiset; it moves the multiset back
// inline when it has shrunk to unspillAt values.
func (m *IntSets) addSpilled(r []uint64, v, w int64) (int64, error) {
	idx := int32(r[0] &^ spillFlag)
	set := &m.pool[idx]
	n := set.Len()
	before, err := set.Add(v, w, nil)
	if err != nil {
		return before, err
	}
	m.entries += int64(set.Len() - n)
	if set.Len() <= unspillAt {
		i := 0
		set.Each(func(v, c int64) {
			r[valuesWord+i], r[countsWord+i] = uint64(v), uint64(c)
			i++
		})
		r[0] = uint64(i)
		m.release(idx)
	}
	return before, nil
}

// release empties pool entry idx and makes it reusable.
func (m *IntSets) release(idx int32) {
	m.entries -= int64(m.pool[idx].Len())
	m.pool[idx].Reset()
	m.free = append(m.free, idx)
}

// First returns the smallest value of the multiset in words r, and false if
// it is empty.
func (m *IntSets) First(r []uint64) (int64, bool) {
	switch h := r[0]; {
	case h&spillFlag != 0:
		return m.pool[h&^spillFlag].First()
	case h == 0:
		return 0, false
	}
	return int64(r[valuesWord]), true
}

// Last returns the largest value of the multiset in words r, and false if
// it is empty.
func (m *IntSets) Last(r []uint64) (int64, bool) {
	switch h := r[0]; {
	case h&spillFlag != 0:
		return m.pool[h&^spillFlag].Last()
	case h == 0:
		return 0, false
	}
	return int64(r[valuesWord+int(r[0])-1]), true
}

// Each calls fn for every distinct value of the multiset in words r, in
// ascending order, with its count.
func (m *IntSets) Each(r []uint64, fn func(v, n int64)) {
	if h := r[0]; h&spillFlag != 0 {
		m.pool[h&^spillFlag].Each(fn)
		return
	}
	for i := range int(r[0]) {
		fn(int64(r[valuesWord+i]), int64(r[countsWord+i]))
	}
}

// Len returns the number of distinct values in the multiset in words r.
func (m *IntSets) Len(r []uint64) int {
	if h := r[0]; h&spillFlag != 0 {
		return m.pool[h&^spillFlag].Len()
	}
	return int(r[0])
}

// Free empties slot s's multiset, releasing its pool entry if it spilled.
func (m *IntSets) Free(s int32) {
	r := m.Words(s)
	if h := r[0]; h&spillFlag != 0 {
		m.release(int32(h &^ spillFlag))
	}
	clear(r)
}

// Spilled returns the number of multisets in the pool.
func (m *IntSets) Spilled() int { return len(m.pool) - len(m.free) }

// Bytes returns the memory held outside the arena: the pool's headers and
// the spilled values.
func (m *IntSets) Bytes() int64 {
	return int64(cap(m.pool))*32 + int64(cap(m.free))*4 + m.entries*EntryBytes[int64]()
}
