package statecore

import (
	"bytes"
	"slices"
	"sort"
	"strings"
)

// entry is a buffered write of one key: its new value or its deletion.
type entry struct {
	val []byte
	del bool
}

// span is a buffered DeleteRange of the committed keys in [lo, hi).
type span struct{ lo, hi []byte }

func (s span) covers(k []byte) bool {
	return bytes.Compare(k, s.lo) >= 0 && bytes.Compare(k, s.hi) < 0
}

// overlay buffers writes. An entry always wins over a span: DeleteRange
// removes the entries it covers, so any entry in a span was written after
// it.
type overlay struct {
	entries map[string]entry
	spans   []span
	keys    []string // entries' keys in order, rebuilt when stale
	stale   bool
}

func newOverlay() *overlay { return &overlay{entries: map[string]entry{}} }

func (o *overlay) set(k []byte, e entry) {
	key := string(k)
	if _, ok := o.entries[key]; !ok {
		o.stale = true
	}
	o.entries[key] = e
}

func (o *overlay) put(k, v []byte) { o.set(k, entry{val: bytes.Clone(v)}) }

func (o *overlay) del(k []byte) { o.set(k, entry{del: true}) }

func (o *overlay) deleteRange(lo, hi []byte) {
	sp := span{lo: bytes.Clone(lo), hi: bytes.Clone(hi)}
	for k := range o.entries {
		if sp.covers([]byte(k)) {
			delete(o.entries, k)
			o.stale = true
		}
	}
	o.spans = append(o.spans, sp)
}

// lookup says what the overlay knows of k: decided is false when k falls
// through to the layers below; otherwise val and ok are k's value.
func (o *overlay) lookup(k []byte) (val []byte, ok, decided bool) {
	if e, found := o.entries[string(k)]; found {
		return e.val, !e.del, true
	}
	if o.covered(k) {
		return nil, false, true
	}
	return nil, false, false
}

func (o *overlay) covered(k []byte) bool {
	for _, sp := range o.spans {
		if sp.covers(k) {
			return true
		}
	}
	return false
}

// sorted returns the entries' keys in order. Once an overlay is frozen,
// sorted only reads it, so concurrent readers are safe after one call
// under the store's lock.
func (o *overlay) sorted() []string {
	if o.stale {
		o.keys = o.keys[:0]
		for k := range o.entries {
			o.keys = append(o.keys, k)
		}
		slices.Sort(o.keys)
		o.stale = false
	}
	return o.keys
}

// keysIn returns the sorted keys in [lo, hi).
func (o *overlay) keysIn(lo, hi []byte) []string {
	keys := o.sorted()
	i := sort.SearchStrings(keys, string(lo))
	j := sort.SearchStrings(keys, string(hi))
	return keys[i:j]
}

// kv is a buffered entry seen by a scan.
type kv struct {
	key string
	entry
}

// view merges layers (the top one first) over [lo, hi): the entries that
// decide keys there, in key order, and the spans that hide committed keys.
func view(layers []*overlay, lo, hi []byte) ([]kv, []span) {
	var kvs []kv
	var spans []span
	for i, o := range layers {
		if o == nil {
			continue
		}
	keys:
		for _, k := range o.keysIn(lo, hi) {
			for _, upper := range layers[:i] {
				if upper == nil {
					continue
				}
				if _, shadowed := upper.entries[k]; shadowed || upper.covered([]byte(k)) {
					continue keys
				}
			}
			kvs = append(kvs, kv{key: k, entry: o.entries[k]})
		}
		spans = append(spans, o.spans...)
	}
	slices.SortFunc(kvs, func(a, b kv) int { return strings.Compare(a.key, b.key) })
	return kvs, spans
}

// under returns an overlay holding o's writes followed by top's, for
// putting the writes of a failed commit back under the newer ones.
func under(o, top *overlay) *overlay {
	for _, sp := range top.spans {
		o.deleteRange(sp.lo, sp.hi)
	}
	for k, e := range top.entries {
		o.set([]byte(k), e)
	}
	return o
}
