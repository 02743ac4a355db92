package aggstate

// intTable is an open-addressing hash table from int64 keys to int32 slots,
// used instead of a Go map for the single-integer-key fast path: a lookup
// costs one cache miss (key and slot share an entry, probes are linear)
// where a Go map costs two or three (control word, slot, table header),
// which is what dominates a batch once the groups no longer fit in cache.
//
// The table is split into intTableParts parts by the top bits of the hash,
// each growing on its own, so that a growth rehashes 1/intTableParts of the
// keys: no batch pays for rehashing the whole state at once.
type intTable struct {
	parts   [intTableParts]intPart
	n       int // keys
	entries int // entries allocated, over all parts
}

// Table shape. 256 parts bound a growth to 0.4% of the keys; a part holds
// at most intMaxLoadNum/intMaxLoadDen of its entries (1/2: the average
// successful probe then reads 1.1–1.5 entries, nearly always in one cache
// line), starting from intMinEntries entries once it holds a key.
const (
	intTableBits  = 8
	intTableParts = 1 << intTableBits
	intMaxLoadNum = 1
	intMaxLoadDen = 2
	intMinEntries = 8
)

// intEntry is a key and its slot plus one; 0 marks an empty entry.
type intEntry struct {
	key  int64
	slot int32
}

type intPart struct {
	entries []intEntry // length is a power of two, or 0
	n       int
	shift   uint8 // 64 - log2(len(entries))
}

// intHash mixes a key (the finalizer of MurmurHash3) so that keys that
// differ only in a few bits, such as timestamps, spread over all parts.
func intHash(k int64) uint64 {
	h := uint64(k)
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// home returns the part of a hash and its first probe position there.
func (t *intTable) home(h uint64) (*intPart, int) {
	p := &t.parts[h>>(64-intTableBits)]
	return p, int((h << intTableBits) >> p.shift)
}

// get returns the slot of k.
func (t *intTable) get(k int64) (int32, bool) { return t.getHashed(k, intHash(k)) }

// getHashed is get for a key whose hash is h.
func (t *intTable) getHashed(k int64, h uint64) (int32, bool) {
	p, i := t.home(h)
	if len(p.entries) == 0 {
		return 0, false
	}
	mask := len(p.entries) - 1
	for {
		e := &p.entries[i]
		if e.slot == 0 {
			return 0, false
		}
		if e.key == k {
			return e.slot - 1, true
		}
		i = (i + 1) & mask
	}
}

// put maps k, which must be absent, to slot.
func (t *intTable) put(k int64, slot int32) { t.putHashed(k, intHash(k), slot) }

// putHashed is put for a key whose hash is h.
func (t *intTable) putHashed(k int64, h uint64, slot int32) {
	p, _ := t.home(h)
	if (p.n+1)*intMaxLoadDen > len(p.entries)*intMaxLoadNum {
		t.entries -= len(p.entries)
		p.grow()
		t.entries += len(p.entries)
	}
	_, i := t.home(h)
	mask := len(p.entries) - 1
	for p.entries[i].slot != 0 {
		i = (i + 1) & mask
	}
	p.entries[i] = intEntry{key: k, slot: slot + 1}
	p.n++
	t.n++
}

// touch hashes every key into hashes and reads the entry where its probe
// starts, returning a value that depends on all of them. Go has no prefetch
// instruction; these loads serve as one: the loop has no data-dependent
// branch, so the processor keeps many of its cache misses in flight at
// once, and the lookups that follow find the entries in cache.
func (t *intTable) touch(keys []int64, hashes []uint64) int64 {
	var sum int64
	for i, k := range keys {
		h := intHash(k)
		hashes[i] = h
		if p, j := t.home(h); len(p.entries) > 0 {
			sum += p.entries[j].key
		}
	}
	return sum
}

// grow doubles the part's entries and reinserts its keys.
func (p *intPart) grow() {
	old := p.entries
	size := max(2*len(old), intMinEntries)
	p.entries = make([]intEntry, size)
	p.shift = uint8(64 - log2(size))
	mask := size - 1
	for _, e := range old {
		if e.slot == 0 {
			continue
		}
		i := int((intHash(e.key) << intTableBits) >> p.shift)
		for p.entries[i].slot != 0 {
			i = (i + 1) & mask
		}
		p.entries[i] = e
	}
}

func log2(n int) int {
	b := 0
	for n > 1 {
		n >>= 1
		b++
	}
	return b
}

// delete removes k, which must be present, shifting back the entries of
// its probe run so that no tombstones are left.
func (t *intTable) delete(k int64) {
	p, i := t.home(intHash(k))
	mask := len(p.entries) - 1
	for p.entries[i].key != k || p.entries[i].slot == 0 {
		i = (i + 1) & mask
	}
	for j := i; ; {
		j = (j + 1) & mask
		e := p.entries[j]
		if e.slot == 0 {
			break
		}
		// e may move into the hole at i if its home is not in (i, j].
		home := int((intHash(e.key) << intTableBits) >> p.shift)
		if (j > i && (home <= i || home > j)) || (j < i && home <= i && home > j) {
			p.entries[i] = e
			i = j
		}
	}
	p.entries[i] = intEntry{}
	p.n--
	t.n--
}

// bytes returns the memory held by the entries.
func (t *intTable) bytes() int64 { return int64(t.entries) * 16 }
