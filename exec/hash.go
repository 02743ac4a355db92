package exec

import (
	"fmt"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// NumKeyGroups is the number of key groups keys hash into. An instance owns
// a contiguous range of key groups, so rescaling moves whole key groups and
// never rehashes a key. 256 allows up to 256 instances per operator with an
// even split, and keeps per-group bookkeeping small.
const NumKeyGroups = 256

// hashSeed starts every row hash. It is fixed, never random: key groups are
// part of the state layout and must be stable across runs.
const hashSeed = 0x9E3779B97F4A7C15

// mix64 is a 64-bit finalizer (from MurmurHash3) that spreads the bits of
// h over the whole word.
func mix64(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// HashRows sets out[i] to the hash of row i's values in cols, combining the
// columns in order. Equal values hash equally whatever array holds them;
// NULL has its own hash. out must have the batch's length.
func HashRows(cols []arrow.Array, out []uint64) error {
	for i := range out {
		out[i] = hashSeed
	}
	for _, col := range cols {
		if err := hashColumn(col, out); err != nil {
			return err
		}
	}
	return nil
}

const nullHash = 0x5bd1e9955bd1e995

func combine(h, v uint64) uint64 { return mix64(h ^ (v + 0x9e3779b97f4a7c15 + (h << 6) + (h >> 2))) }

func hashColumn(col arrow.Array, out []uint64) error {
	switch a := col.(type) {
	case *array.Int64:
		hashFixed(a, a.Int64Values(), out)
	case *array.Timestamp:
		hashFixed(a, a.TimestampValues(), out)
	case *array.Date32:
		hashFixed(a, a.Date32Values(), out)
	case *array.Duration:
		hashFixed(a, a.DurationValues(), out)
	case *array.Float64:
		nulls := a.NullN() > 0
		for i, f := range a.Float64Values() {
			if f == 0 {
				f = 0 // -0 and +0 are equal, so they must hash equally
			}
			v := FloatBits(f)
			if nulls && a.IsNull(i) {
				v = nullHash
			}
			out[i] = combine(out[i], v)
		}
	case *array.Boolean:
		for i := range out {
			v := uint64(0)
			switch {
			case a.IsNull(i):
				v = nullHash
			case a.Value(i):
				v = 1
			}
			out[i] = combine(out[i], v)
		}
	case *array.String:
		for i := range out {
			v := uint64(nullHash)
			if !a.IsNull(i) {
				v = hashString(a.Value(i))
			}
			out[i] = combine(out[i], v)
		}
	case *array.Decimal128:
		for i := range out {
			if a.IsNull(i) {
				out[i] = combine(out[i], nullHash)
				continue
			}
			n := a.Value(i)
			out[i] = combine(combine(out[i], n.LowBits()), uint64(n.HighBits()))
		}
	default:
		return fmt.Errorf("exec: cannot hash a column of type %s", col.DataType())
	}
	return nil
}

// hashFixed mixes the values of a fixed-width integer-like column into out.
func hashFixed[T int64 | arrow.Timestamp | arrow.Date32 | arrow.Duration](a arrow.Array, vs []T, out []uint64) {
	nulls := a.NullN() > 0
	for i := range out {
		v := uint64(vs[i])
		if nulls && a.IsNull(i) {
			v = nullHash
		}
		out[i] = combine(out[i], v)
	}
}

// FloatBits returns the bits of f with -0 as 0 and every NaN alike: the
// identity of a double as GROUP BY and DISTINCT see it, unordered, which
// the operators' keys encode and a row's hash combines (rows of one group
// must go to one instance).
func FloatBits(f float64) uint64 {
	switch {
	case f == 0:
		return 0
	case f != f:
		return math.Float64bits(math.NaN())
	}
	return math.Float64bits(f)
}

// hashString is FNV-1a over the bytes, finalized with mix64.
func hashString(s string) uint64 {
	h := uint64(0xcbf29ce484222325)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 0x100000001b3
	}
	return mix64(h)
}

// KeyGroup maps a row hash to its key group.
func KeyGroup(h uint64) int { return int(h % NumKeyGroups) }

// IntKeyGroup returns the key group of a row whose one hashed column is
// integer-like (BIGINT, DATE, TIMESTAMP, INTERVAL or BOOLEAN, its value v
// as an int64, a boolean's 0 or 1), or NULL when null: what RowKeyGroups
// computes for such a column, without building it. An operator that
// keeps such keys as int64s (the hash aggregate) finds its entries' key
// groups with it.
func IntKeyGroup(v int64, null bool) int {
	if null {
		return NewRowHash().Null().KeyGroup()
	}
	return NewRowHash().Int(v).KeyGroup()
}

// RowHash is the hash of one row's hashed columns, combined a column at a
// time, in order, as HashRows combines them: for an operator that keeps
// its keys as values rather than Arrow columns (the hash aggregate's
// encoded group keys) and must find their key groups as the exchange
// does, without building columns.
type RowHash uint64

// NewRowHash returns the hash of a row before its first column.
func NewRowHash() RowHash { return RowHash(hashSeed) }

// Int combines an integer-like value: BIGINT, DATE, TIMESTAMP, INTERVAL,
// or a BOOLEAN's 0 or 1.
func (h RowHash) Int(v int64) RowHash { return RowHash(combine(uint64(h), uint64(v))) }

// Float combines a double.
func (h RowHash) Float(f float64) RowHash { return RowHash(combine(uint64(h), FloatBits(f))) }

// Decimal combines a decimal, by its two words.
func (h RowHash) Decimal(lo uint64, hi int64) RowHash {
	return RowHash(combine(combine(uint64(h), lo), uint64(hi)))
}

// String combines a string.
func (h RowHash) String(s string) RowHash { return RowHash(combine(uint64(h), hashString(s))) }

// Null combines a NULL, of any type.
func (h RowHash) Null() RowHash { return RowHash(combine(uint64(h), nullHash)) }

// KeyGroup returns the key group of the row.
func (h RowHash) KeyGroup() int { return KeyGroup(uint64(h)) }

// RowKeyGroups sets groups[i] to the key group of row i of cols, as the
// hash exchange computes it, hashing into hashes, which it resizes to the
// rows and returns for reuse. groups must have a row's length.
func RowKeyGroups(cols []arrow.Array, hashes []uint64, groups []int) ([]uint64, error) {
	hashes = slices.Grow(hashes[:0], len(groups))[:len(groups)]
	if err := HashRows(cols, hashes); err != nil {
		return hashes, err
	}
	for i, h := range hashes {
		groups[i] = KeyGroup(h)
	}
	return hashes, nil
}

// InstanceForKeyGroup returns the instance (of p) that owns key group kg:
// instance i owns the contiguous range [i·G/p, (i+1)·G/p).
func InstanceForKeyGroup(kg, p int) int { return kg * p / NumKeyGroups }
