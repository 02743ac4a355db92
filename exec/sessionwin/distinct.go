package sessionwin

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/internal/aggstate"
)

// mapEntryOverhead estimates the bytes a Go map spends per entry beyond
// the key itself (control bytes, load-factor slack), for the state gauge.
const mapEntryOverhead = 16

// valueSet is the set of distinct values a session has seen, and the bytes
// its strings hold.
type valueSet[K comparable] struct {
	m     map[K]struct{}
	bytes int64
}

// distinctAcc is COUNT, SUM or AVG over DISTINCT values: per session, the
// set of values seen so far; a value new to its session is fed to the inner
// accumulator (the input is append-only, so values only join sets). Merging
// two sessions feeds the values of one that the other has not seen, so a
// value both saw counts once. K is the value's comparison key: int64 for
// integer-like types, the canonical bits of a double, a decimal, a string.
type distinctAcc[K comparable] struct {
	inner accumulator
	load  loader[K]
	feed  func(s int32, k K) error
	sets  aggstate.Column[valueSet[K]]
	extra int64 // bytes of the sets' entries
	buf   []K
	valid []bool
}

// newDistinct wraps inner, which feed adds single values to, in a
// DISTINCT filter over values that load reads.
func newDistinct[K comparable](inner accumulator, load loader[K], feed func(s int32, k K) error) *distinctAcc[K] {
	return &distinctAcc[K]{inner: inner, load: load, feed: feed}
}

func (a *distinctAcc[K]) grow(n int) {
	a.inner.grow(n)
	a.sets.Grow(n)
}

func (a *distinctAcc[K]) bytes() int64 { return a.inner.bytes() + a.sets.Bytes() + a.extra }

// entryBytes estimates the memory of one set entry holding k.
func (a *distinctAcc[K]) entryBytes(k K) int64 {
	return int64(unsafe.Sizeof(k)) + mapEntryOverhead + keptBytes(k)
}

// insert adds k (owned by the state) to the set of slot s and feeds it to
// the inner accumulator if it is new.
func (a *distinctAcc[K]) insert(set *valueSet[K], s int32, k K, owned bool) error {
	if set.m == nil {
		set.m = make(map[K]struct{})
	} else if _, ok := set.m[k]; ok {
		return nil
	}
	if !owned {
		k = keep(k)
	}
	set.m[k] = struct{}{}
	b := a.entryBytes(k)
	set.bytes += b
	a.extra += b
	return a.feed(s, k)
}

func (a *distinctAcc[K]) add(slots []int32, arg arrow.Array) error {
	vals, buf, err := a.load(arg, a.buf)
	a.buf = buf
	if err != nil {
		return err
	}
	valid := validity(arg, a.valid)
	a.valid = valid
	for i, s := range slots {
		if s < 0 || (valid != nil && !valid[i]) {
			continue
		}
		if err := a.insert(a.sets.At(s), s, vals[i], false); err != nil {
			clear(a.buf)
			return err
		}
	}
	clear(a.buf) // strings point into the batch
	return nil
}

func (a *distinctAcc[K]) merge(d, s int32) error {
	dst := a.sets.At(d)
	for k := range a.sets.At(s).m {
		if err := a.insert(dst, d, k, true); err != nil {
			return err
		}
	}
	return nil
}

func (a *distinctAcc[K]) result(slots []int32, dst []types.Datum) error {
	return a.inner.result(slots, dst)
}

func (a *distinctAcc[K]) free(s int32) {
	set := a.sets.At(s)
	a.extra -= set.bytes
	*set = valueSet[K]{}
	a.inner.free(s)
}
