package statecore

import (
	"bytes"
	"errors"
	"slices"

	"github.com/eddysql/eddy/internal/giveway"
	"github.com/eddysql/eddy/internal/kvlog"
)

// segment is a run of an overlay's records that put was given the same
// prefix for, those from start to the next segment's start: the writes
// of one operator's snapshot to its table, usually. The sort groups the
// records by table with them (see latestRecords). The prefixes are
// tables' (storage.AppendString's encoding of their names), none of which
// is a prefix of another; a nil pre is a run whose prefix is unknown.
type segment struct {
	start int32
	pre   []byte
}

// span is a buffered DeleteRange of the keys in [lo, hi). It removes the
// records written before it, those before seq, and hides the committed
// keys it covers; a record written after it wins over it.
type span struct {
	lo, hi []byte
	seq    int32
}

func (s span) covers(k []byte) bool {
	return bytes.Compare(k, s.lo) >= 0 && bytes.Compare(k, s.hi) < 0
}

// maxLen bounds a buffered key's and value's length (the log's).
const maxLen = kvlog.MaxLen

// maxRecs bounds the records that put and del take into one overlay. The
// read index holds int32 record numbers; half of their range is left for
// under, which puts the writes of two overlays into one.
const maxRecs = 1 << 30

// errTooLarge is what put and del return for a write the overlay cannot
// hold.
var errTooLarge = errors.New("a key or value of 2 GiB or more, or over 2^30 writes in one epoch")

// overlay buffers writes as a log: put, del and deleteRange append to it
// and do nothing else, so a write costs a copy of its bytes and, now and
// then, a new chunk: the bytes already written are never copied again. Reads need an index, built by the first read and caught
// up by later ones (see overlay_index.go); sorted gives each key's last
// write once, in key order, for Commit.
type overlay struct {
	log kvlog.Log // the puts and deletes in the order made, records numbered from 0
	// pace, set on an overlay frozen for a commit, paces its sort as the
	// commit's background work (internal/giveway); nil otherwise.
	pace  *giveway.Pacer
	segs  []segment // the log's runs of records written to one table, in order
	spans []span    // the DeleteRanges in the order made

	// order is sorted's result: the records that decide their keys, in
	// key order, as of ordRecs records and ordSpans spans (fresh says
	// whether that is still all of them).
	order             []int32
	ordered           bool
	ordRecs, ordSpans int
	// tree indexes the records before tree.upto for reads of an overlay that took
	// writes since sorted (or was never sorted); nil until a read needs
	// it.
	tree *btree

	// pins counts the scans iterating over writes of the overlay that they
	// read under the store's mutex and use after it (table.scan); retired
	// is set once a commit made the overlay's writes the backend's. The
	// overlay's log goes back to the pool (release) when both are so: it
	// is retired and no scan pins it. The store's mutex guards both.
	pins    int
	retired bool
	// touched sums what touchRecords read, kept so that its loads are not
	// dropped as unused.
	touched byte
}

func newOverlay() *overlay { return &overlay{} }

// key returns record r's key.
func (o *overlay) key(r int32) []byte { return o.log.Key(r) }

// val returns record r's value, and false when r is a deletion.
func (o *overlay) val(r int32) ([]byte, bool) { return o.log.Val(r) }

// recs returns the number of records.
func (o *overlay) recs() int { return o.log.Len() }

// fits reports whether the overlay can take one more write of a klen
// bytes key and a vlen bytes value.
func (o *overlay) fits(klen, vlen int) error {
	if klen > maxLen || vlen > maxLen || o.recs() >= maxRecs {
		return errTooLarge
	}
	return nil
}

// add appends a record of the key pre+k and the value v (a deletion when
// del is set), which fits. pre is the prefix of the table written to
// (nil when the caller does not say), kept for the sort (see segment).
func (o *overlay) add(pre, k, v []byte, del bool) {
	if n := len(o.segs); n == 0 || !samePrefix(o.segs[n-1].pre, pre) {
		o.segs = append(o.segs, segment{start: int32(o.recs()), pre: pre})
	}
	o.log.Append(pre, k, v, del)
}

// unpin ends a pin of the overlay, releasing it when it is the last pin
// of a retired one. The caller holds the store's mutex.
func (o *overlay) unpin() {
	if o.pins--; o.pins == 0 && o.retired {
		o.release()
	}
}

// retire records that the overlay's writes are committed and that no
// reader will look at it again but the scans that pin it, releasing it
// unless one does. The caller holds the store's mutex.
func (o *overlay) retire() {
	if o.retired = true; o.pins == 0 {
		o.release()
	}
}

// release gives the log's memory to the pool for the next overlays and
// drops the indexes: the overlay is empty after it and must not be read.
func (o *overlay) release() {
	o.log.Release()
	o.segs, o.spans, o.order, o.tree = nil, nil, nil, nil
	o.ordered, o.ordRecs, o.ordSpans = false, 0, 0
}

// segEnd returns the end of segment i: the next one's start.
func (o *overlay) segEnd(i int) int {
	if i+1 < len(o.segs) {
		return int(o.segs[i+1].start)
	}
	return o.recs()
}

// samePrefix reports whether a and b are the same prefix: most often the
// same slice, a table's, given again.
func samePrefix(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	return len(a) == 0 || &a[0] == &b[0] || bytes.Equal(a, b)
}

// put buffers setting the key pre+k to v.
func (o *overlay) put(pre, k, v []byte) error {
	if err := o.fits(len(pre)+len(k), len(v)); err != nil {
		return err
	}
	o.add(pre, k, v, false)
	return nil
}

// del buffers deleting the key pre+k.
func (o *overlay) del(pre, k []byte) error {
	if err := o.fits(len(pre)+len(k), 0); err != nil {
		return err
	}
	o.add(pre, k, nil, true)
	return nil
}

// deleteRange buffers deleting the keys in [lo, hi).
func (o *overlay) deleteRange(lo, hi []byte) {
	o.addSpan(bytes.Clone(lo), bytes.Clone(hi))
}

// addSpan appends a span of lo and hi, which it keeps.
func (o *overlay) addSpan(lo, hi []byte) {
	o.spans = append(o.spans, span{lo: lo, hi: hi, seq: int32(o.recs())})
}

// coveredAfter reports whether a span written after record r covers k;
// with r = -1, whether any span does.
func (o *overlay) coveredAfter(k []byte, r int32) bool {
	for i := len(o.spans) - 1; i >= 0 && o.spans[i].seq > r; i-- {
		if o.spans[i].covers(k) {
			return true
		}
	}
	return false
}

// disjoint returns the keys spans cover as disjoint spans in key order.
func disjoint(spans []span) []span {
	if len(spans) == 0 {
		return nil
	}
	sorted := slices.Clone(spans)
	slices.SortFunc(sorted, func(a, b span) int { return bytes.Compare(a.lo, b.lo) })
	out := sorted[:1]
	for _, sp := range sorted[1:] {
		last := &out[len(out)-1]
		if bytes.Compare(sp.lo, last.hi) <= 0 {
			if bytes.Compare(sp.hi, last.hi) > 0 {
				last.hi = sp.hi
			}
			continue
		}
		out = append(out, sp)
	}
	return out
}

// lookup says what the overlay knows of k: decided is false when k falls
// through to the layers below; otherwise val and ok are k's value.
func (o *overlay) lookup(k []byte) (val []byte, ok, decided bool) {
	if r, found := o.find(k); found {
		val, ok = o.val(r)
		return val, ok, true
	}
	if o.coveredAfter(k, -1) {
		return nil, false, true
	}
	return nil, false, false
}

// decides reports whether the overlay decides k: holds a write of it or
// a span over it.
func (o *overlay) decides(k []byte) bool {
	_, _, decided := o.lookup(k)
	return decided
}

// kv is a buffered write seen by a scan.
type kv struct {
	key, val []byte
	del      bool
}

// view merges layers (the top one first) over [lo, hi): the writes that
// decide keys there, in key order, and the spans that hide committed keys.
func view(layers []*overlay, lo, hi []byte) ([]kv, []span) {
	var kvs []kv
	var spans []span
	from := 0 // the layers that gave kvs
	for i, o := range layers {
		if o == nil {
			continue
		}
		n := len(kvs)
	keys:
		for _, r := range o.keysIn(lo, hi) {
			k := o.key(r)
			for _, upper := range layers[:i] {
				if upper != nil && upper.decides(k) {
					continue keys
				}
			}
			v, ok := o.val(r)
			kvs = append(kvs, kv{key: k, val: v, del: !ok})
		}
		if len(kvs) > n {
			from++
		}
		spans = append(spans, o.spans...)
	}
	if from > 1 {
		sortKVs(kvs)
	}
	return kvs, spans
}

// under returns an overlay holding o's writes followed by top's, for
// putting the writes of a failed commit back under the newer ones. It
// replays top's log onto o's, spans in their places among the records.
func under(o, top *overlay) *overlay {
	s, seg := 0, 0
	for i := range top.recs() {
		for seg+1 < len(top.segs) && int(top.segs[seg+1].start) <= i {
			seg++
		}
		for ; s < len(top.spans) && int(top.spans[s].seq) <= i; s++ {
			o.addSpan(top.spans[s].lo, top.spans[s].hi)
		}
		// o and top hold at most maxRecs records each, keys and values
		// that fit: the records fit together.
		r := int32(i)
		v, ok := top.val(r)
		pre := top.segs[seg].pre
		o.add(pre, top.key(r)[len(pre):], v, !ok)
	}
	for ; s < len(top.spans); s++ {
		o.addSpan(top.spans[s].lo, top.spans[s].hi)
	}
	return o
}
