package accum

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/axiomhq/hyperloglog"
)

// The encoding of one group's state, for checkpoints (see the
// "Snapshots" paragraph of the package documentation). Every accumulator
// appends its slot's state to a byte slice (AppendState) and reads it back
// into a fresh slot (LoadState); an operator concatenates its
// accumulators' states in order into one entry per group. The encoding is
// built from three items:
//
//   - a word of the arena or a count: a uvarint (counts and small values
//     take a byte or two, a double's bits at most ten);
//   - a signed value (an integer of a multiset, a carry, a count of
//     specials): a zig-zag varint;
//   - bytes (a string, a sketch): a uvarint length, then the bytes.
//
// A multiset is its number of distinct values, then each value (signed, or
// bytes) with its count, in ascending order. Decoding checks every length
// and count against the bytes left and the state's invariants, and fails
// with ErrCorruptState rather than panicking or building a state that
// Update would misread.

// ErrCorruptState is returned when a group's encoded state cannot be read.
var ErrCorruptState = errors.New("corrupt aggregate state")

// corrupt returns an ErrCorruptState error saying what was wrong.
func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorruptState, fmt.Sprintf(format, args...))
}

// readUvarint reads a uvarint from the start of b.
func readUvarint(b []byte) (uint64, []byte, error) {
	v, n := binary.Uvarint(b)
	if n <= 0 {
		return 0, b, corrupt("truncated or overlong uvarint")
	}
	return v, b[n:], nil
}

// readVarint reads a zig-zag varint from the start of b.
func readVarint(b []byte) (int64, []byte, error) {
	v, n := binary.Varint(b)
	if n <= 0 {
		return 0, b, corrupt("truncated or overlong varint")
	}
	return v, b[n:], nil
}

// readCount reads a count that must be positive (a multiset's occurrences).
func readCount(b []byte) (int64, []byte, error) {
	n, b, err := readUvarint(b)
	if err == nil && (n == 0 || n > math.MaxInt64) {
		err = corrupt("count %d out of range", n)
	}
	return int64(n), b, err
}

// readLen reads a length of items that each take at least one byte of b.
func readLen(b []byte) (int, []byte, error) {
	n, b, err := readUvarint(b)
	if err == nil && n > uint64(len(b)) {
		err = corrupt("length %d beyond the %d bytes left", n, len(b))
	}
	return int(n), b, err
}

// appendBytes appends v as a length and its bytes.
func appendBytes[T string | []byte](buf []byte, v T) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(v)))
	return append(buf, v...)
}

// readBytes reads bytes written by appendBytes; the result aliases b.
func readBytes(b []byte) ([]byte, []byte, error) {
	n, b, err := readLen(b)
	if err != nil {
		return nil, b, err
	}
	return b[:n], b[n:], nil
}

// appendWords appends words as uvarints.
func appendWords(buf []byte, words []uint64) []byte {
	for _, w := range words {
		buf = binary.AppendUvarint(buf, w)
	}
	return buf
}

// loadWords reads len(words) uvarints into words.
func loadWords(words []uint64, b []byte) ([]byte, error) {
	for i := range words {
		var err error
		if words[i], b, err = readUvarint(b); err != nil {
			return b, err
		}
	}
	return b, nil
}

// valueCodec encodes the values of a multiset: signed varints for int64
// (integers, and the keys of doubles), bytes for strings (and the keys of
// decimals).
type valueCodec[V ordered] struct {
	put func(buf []byte, v V) []byte
	get func(b []byte) (V, []byte, error)
}

func codecOf[V ordered]() valueCodec[V] {
	var zero V
	if _, ok := any(zero).(string); ok {
		return any(valueCodec[string]{
			put: appendBytes[string],
			get: func(b []byte) (string, []byte, error) {
				v, rest, err := readBytes(b)
				return string(v), rest, err
			},
		}).(valueCodec[V])
	}
	return any(valueCodec[int64]{put: binary.AppendVarint, get: readVarint}).(valueCodec[V])
}

// appendMultiset appends the multiset of slot s.
func (m *multisets[V]) appendMultiset(s int32, buf []byte, c valueCodec[V]) []byte {
	set := m.sets.At(s)
	buf = binary.AppendUvarint(buf, uint64(set.Len()))
	set.Each(func(v V, n int64) {
		buf = c.put(buf, v)
		buf = binary.AppendUvarint(buf, uint64(n))
	})
	return buf
}

// loadMultiset reads a multiset into the empty one of slot s.
func (m *multisets[V]) loadMultiset(s int32, b []byte, c valueCodec[V]) ([]byte, error) {
	return loadValues(b, c, m.keyLen, m.size, func(v V, n int64) error {
		_, err := m.add(s, v, n)
		return err
	})
}

// loadValues reads values and their counts, as appendMultiset writes them
// (in ascending order, decimal keys of keyLen bytes when keyLen > 0), and
// adds each.
func loadValues[V ordered](b []byte, c valueCodec[V], keyLen int64, size func(V) int64, add func(v V, n int64) error) ([]byte, error) {
	n, b, err := readLen(b)
	if err != nil {
		return b, err
	}
	var prev V
	for i := range n {
		var v V
		var cnt int64
		if v, b, err = c.get(b); err != nil {
			return b, err
		}
		if cnt, b, err = readCount(b); err != nil {
			return b, err
		}
		if i > 0 && v <= prev {
			return b, corrupt("multiset values out of order")
		}
		if keyLen > 0 && size(v) != keyLen {
			return b, corrupt("a decimal key of %d bytes", size(v))
		}
		prev = v
		if err := add(v, cnt); err != nil {
			return b, err
		}
	}
	return b, nil
}

// The accumulators whose state is all in arena words, or in another
// accumulator (countStarAgg keeps nothing: the operator keeps the row
// count).

func (a *countStarAgg) AppendState(_ int32, buf []byte) ([]byte, error) { return buf, nil }
func (a *countStarAgg) LoadState(_ int32, b []byte) ([]byte, error)     { return b, nil }
func (a *countAgg) AppendState(s int32, buf []byte) ([]byte, error) {
	return appendWords(buf, a.slot(s)[:1]), nil
}
func (a *countAgg) LoadState(s int32, b []byte) ([]byte, error) { return loadWords(a.slot(s)[:1], b) }
func (a *intExtremeAgg) AppendState(s int32, buf []byte) ([]byte, error) {
	return appendWords(buf, a.slot(s)[:2]), nil
}
func (a *intExtremeAgg) LoadState(s int32, b []byte) ([]byte, error) {
	return loadWords(a.slot(s)[:2], b)
}
func (a *decSumAgg) AppendState(s int32, buf []byte) ([]byte, error) {
	return appendWords(buf, a.slot(s)[:3]), nil
}
func (a *decSumAgg) LoadState(s int32, b []byte) ([]byte, error) { return loadWords(a.slot(s)[:3], b) }
func (a *minMaxAgg[V]) AppendState(s int32, buf []byte) ([]byte, error) {
	return a.appendMultiset(s, buf, codecOf[V]()), nil
}
func (a *minMaxAgg[V]) LoadState(s int32, b []byte) ([]byte, error) {
	return a.loadMultiset(s, b, codecOf[V]())
}

// AppendState appends the multiset, then the inner accumulator's state.
func (a *distinctAgg[V]) AppendState(s int32, buf []byte) ([]byte, error) {
	return a.inner.AppendState(s, a.appendSet(s, buf, codecOf[V]()))
}

// LoadState reads the multiset, then the inner accumulator's state, which
// the multiset's distinct values determine but which holds more (the
// compensation of a double sum, a carry) than summing them again would
// give bit for bit.
func (a *distinctAgg[V]) LoadState(s int32, b []byte) ([]byte, error) {
	b, err := a.loadSet(s, b, codecOf[V]())
	if err != nil {
		return b, err
	}
	return a.inner.LoadState(s, b)
}

// AppendState appends the multiset of values of slot s.
func (a *intMinMaxAgg) AppendState(s int32, buf []byte) ([]byte, error) {
	r := a.sets.Words(s)
	buf = binary.AppendUvarint(buf, uint64(a.sets.Len(r)))
	a.sets.Each(r, func(v, n int64) {
		buf = binary.AppendVarint(buf, v)
		buf = binary.AppendUvarint(buf, uint64(n))
	})
	return buf, nil
}

// LoadState adds the values to the empty multiset of slot s: it is inline
// or spilled as its size says, which a retracting group may have reached
// otherwise (see aggstate.IntSets), with the same values.
func (a *intMinMaxAgg) LoadState(s int32, b []byte) ([]byte, error) {
	n, b, err := readLen(b)
	if err != nil {
		return b, err
	}
	r := a.sets.Words(s)
	prev := int64(math.MinInt64)
	for i := range n {
		var v, cnt int64
		if v, b, err = readVarint(b); err != nil {
			return b, err
		}
		if cnt, b, err = readCount(b); err != nil {
			return b, err
		}
		if i > 0 && v <= prev {
			return b, corrupt("multiset values out of order")
		}
		prev = v
		if _, err := a.sets.Add(r, v, cnt); err != nil {
			return b, err
		}
	}
	return b, nil
}

// AppendState appends 0 for no extreme, or 1 and the extreme.
func (a *strExtremeAgg) AppendState(s int32, buf []byte) ([]byte, error) {
	e := a.acc.At(s)
	if !e.has {
		return append(buf, 0), nil
	}
	return appendBytes(append(buf, 1), e.v), nil
}

func (a *strExtremeAgg) LoadState(s int32, b []byte) ([]byte, error) {
	if len(b) == 0 || b[0] > 1 {
		return b, corrupt("bad extreme tag")
	}
	if b[0] == 0 {
		return b[1:], nil
	}
	v, b, err := readBytes(b[1:])
	if err != nil {
		return b, err
	}
	if a.keyLen > 0 && len(v) != a.keyLen {
		return b, corrupt("a decimal key of %d bytes", len(v))
	}
	e := a.acc.At(s)
	e.v, e.has = string(v), true
	a.extra += int64(len(v))
	return b, nil
}

// AppendState appends the two words and the carry.
func (a *intSumAgg) AppendState(s int32, buf []byte) ([]byte, error) {
	var carry int64
	if len(a.carry) > 0 {
		carry = a.carry[s]
	}
	return binary.AppendVarint(appendWords(buf, a.slot(s)[:2]), carry), nil
}

func (a *intSumAgg) LoadState(s int32, b []byte) ([]byte, error) {
	b, err := loadWords(a.slot(s)[:2], b)
	if err != nil {
		return b, err
	}
	carry, b, err := readVarint(b)
	if err == nil && carry != 0 {
		a.addCarry(s, carry)
	}
	return b, err
}

// AppendState appends the three words and the counts of infinities and
// NaNs.
func (a *floatSumAgg) AppendState(s int32, buf []byte) ([]byte, error) {
	buf = appendWords(buf, a.slot(s)[:3])
	var sp Specials
	if len(a.special) > 0 {
		sp = a.special[s]
	}
	for _, n := range sp {
		buf = binary.AppendVarint(buf, n)
	}
	return buf, nil
}

func (a *floatSumAgg) LoadState(s int32, b []byte) ([]byte, error) {
	b, err := loadWords(a.slot(s)[:3], b)
	if err != nil {
		return b, err
	}
	var sp Specials
	for i := range sp {
		if sp[i], b, err = readVarint(b); err != nil {
			return b, err
		}
	}
	if sp != (Specials{}) {
		if a.special == nil {
			a.special = make(map[int32]Specials)
		}
		a.special[s] = sp
	}
	return b, nil
}

// AppendState appends the two words (the last estimate, and whether it is
// current), then the sketch's encoding as bytes, empty when there is none.
func (a *approxAgg) AppendState(s int32, buf []byte) ([]byte, error) {
	buf = appendWords(buf, a.slot(s)[:2])
	sk := *a.sketches.At(s)
	if sk == nil {
		return append(buf, 0), nil
	}
	enc, err := sk.AppendBinary(a.enc[:0])
	if err != nil {
		return buf, fmt.Errorf("APPROX_COUNT_DISTINCT: %w", err)
	}
	a.enc = enc
	return appendBytes(buf, enc), nil
}

func (a *approxAgg) LoadState(s int32, b []byte) ([]byte, error) {
	r := a.slot(s)
	b, err := loadWords(r[:2], b)
	if err != nil {
		return b, err
	}
	enc, b, err := readBytes(b)
	if err != nil || len(enc) == 0 {
		return b, err
	}
	sk := new(hyperloglog.Sketch)
	if err := sk.UnmarshalBinary(enc); err != nil {
		return b, fmt.Errorf("%w: %w", ErrCorruptState, err)
	}
	*a.sketches.At(s) = sk
	a.bytes += approxSketchBytes(int64(r[0]))
	return b, nil
}
