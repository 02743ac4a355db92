package rowstore

import (
	"hash/maphash"

	"github.com/eddysql/eddy/exec/internal/arena"
)

// interner lets the rows of a string column share the bytes of values
// they repeat: a channel's URL in every bid, a country in every order.
// It is a two-way set-associative cache of values the column stored
// lately (hash, offset, length), the newer of a set first: a value found
// there takes the earlier copy's offset instead of new bytes in the
// arena. What it saves is memory — state that
// keeps every bid of q20 holds half the string bytes — and the copying
// and page faults of fresh memory, which on a machine with slow faults
// cost more than the hashing.
//
// It costs a hash and a probe per value, so it watches itself, in trials
// of trialValues values. While one in sixteen or more of a trial's values
// miss the cache, the cache grows fourfold, up to maxSlots: values that repeat
// among more distinct ones than it holds find their copies in a larger
// one. When fewer than one in eight found its value in the largest cache,
// the column stores the next offValues values without looking, then tries
// again: a column of unique values (an order id, a random padding) pays
// for about one value in seventeen.
type interner struct {
	slots []internSlot // a power of two; nil until the first value
	seed  maphash.Seed
	// seen and hits count the current trial's values; skip is the
	// number of values left to store without looking.
	seen, hits, skip int
	// shared is the bytes rows hold without owning: the lengths of the
	// values found in the cache since the arena was last compacted.
	shared int64
}

// internSlot is a value the column stored: its hash, offset and length.
type internSlot struct {
	hash uint64
	off  uint64
	n    uint32
}

const (
	// minInterned is the shortest value looked up: shorter ones cost
	// little to copy, and their offset and length take 12 bytes anyway.
	minInterned = 16
	firstSlots  = 1 << 8
	maxSlots    = 1 << 14
	trialValues = 1 << 12
	offValues   = 1 << 16
)

// add stores v in a and returns its offset: an earlier copy's when the
// cache holds one.
func (in *interner) add(a *arena.Arena, v string) uint64 {
	if len(v) < minInterned {
		return a.AddString(v)
	}
	if in.skip > 0 {
		in.skip--
		return a.AddString(v)
	}
	if in.slots == nil {
		in.slots = make([]internSlot, firstSlots)
		in.seed = maphash.MakeSeed()
	}
	h := maphash.String(in.seed, v)
	set := in.slots[h&uint64(len(in.slots)-1)&^1:][:2]
	off, found := in.lookup(a, set, h, v)
	if found {
		in.hits++
		in.shared += int64(len(v))
	} else {
		off = a.AddString(v)
		set[1], set[0] = set[0], internSlot{hash: h, off: off, n: uint32(len(v))}
	}
	if in.seen++; in.seen == trialValues {
		in.endTrial()
	}
	return off
}

// lookup returns the offset of v's copy if set holds it.
func (in *interner) lookup(a *arena.Arena, set []internSlot, h uint64, v string) (uint64, bool) {
	for _, s := range set {
		if s.hash == h && s.n == uint32(len(v)) && a.String(s.off, s.n) == v {
			return s.off, true
		}
	}
	return 0, false
}

// endTrial decides, after a trial's values, whether to keep looking
// values up, and in how large a cache.
func (in *interner) endTrial() {
	switch {
	case (in.seen-in.hits)*16 > in.seen && len(in.slots) < maxSlots:
		// One in sixteen or more missed: a larger cache may hold more of the
		// values that repeat. The slots move by their hashes.
		bigger := make([]internSlot, 4*len(in.slots))
		mask := uint64(len(bigger)-1) &^ 1
		for _, s := range in.slots {
			if s.n == 0 {
				continue
			}
			if i := s.hash & mask; bigger[i].n == 0 {
				bigger[i] = s
			} else {
				bigger[i+1] = s
			}
		}
		in.slots = bigger
	case in.hits*8 < in.seen:
		in.skip = offValues
	}
	in.seen, in.hits = 0, 0
}

// forget empties the cache, whose offsets a compaction made stale.
func (in *interner) forget() {
	clear(in.slots)
	in.shared = 0
}
