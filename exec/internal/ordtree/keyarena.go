package ordtree

import (
	"math"

	"github.com/eddysql/eddy/exec/internal/arena"
)

// keyArena holds sort keys: those of one tree (a tree's own, which it
// compacts itself), or those of every partition of an operator
// (Partitions' shared one, which Partitions compacts). A shared arena
// fills blocks of arena's size one after another, so that a partition's
// keys never grow by copies: with an arena each, the many partitions of
// a few rows (q19's ten highest bids per auction) each grew theirs by
// doubling from a few dozen bytes, and touched about twice their keys'
// bytes in fresh memory on the way.
type keyArena struct {
	a arena.Arena
	// dead counts the bytes of keys removed since the last compaction,
	// their padding included.
	dead int64
	// shift: slots hold offsets in units of 1<<shift bytes. A tree's own
	// arena addresses bytes (4 GiB); a shared one 8-byte units (32 GiB),
	// each key padded to a multiple of 8.
	shift uint8
}

// sharedShift is the offset unit of a shared arena.
const sharedShift = 3

// padding is what a key of a shared arena is padded with.
var padding [1 << sharedShift]byte

// shared reports whether the arena holds the keys of many trees.
func (ka *keyArena) shared() bool { return ka.shift != 0 }

// span returns the bytes a key of n bytes takes in the arena.
func (ka *keyArena) span(n int) int64 {
	unit := int64(1) << ka.shift
	return (int64(n) + unit - 1) &^ (unit - 1)
}

// full reports whether a key of n bytes could take an offset past what a
// slot addresses (a value may start the next block: room for one more).
func (ka *keyArena) full(n int) bool {
	return (ka.a.Next()+uint64(n)+arena.BlockSize)>>ka.shift > math.MaxUint32
}

// add appends key s and returns its offset as a slot holds it.
func (ka *keyArena) add(s string) uint32 {
	off := ka.a.AddString(s)
	if pad := int(ka.span(len(s))) - len(s); pad > 0 {
		ka.a.Add(padding[:pad])
	}
	return uint32(off >> ka.shift)
}

// str returns the n bytes of the key at slot offset off.
func (ka *keyArena) str(off, n uint32) string {
	return ka.a.String(uint64(off)<<ka.shift, n)
}

// moveKeys copies the keys of tree t to dst, which t then uses: a walk
// over its leaves. Views of the old keys stay valid (the old arena is not
// written over).
func (t *Tree) moveKeys(dst *keyArena) {
	if t.root != nil {
		n := t.root
		for !n.leaf {
			n = n.children[0]
		}
		for ; n != nil; n = n.next {
			for i := range n.entries {
				e := &n.entries[i]
				e.off = dst.add(t.key(e))
			}
		}
	}
	t.keys = dst
}

// sharedCompactMin is the fewest dead bytes a compaction of a shared arena
// drops: it walks every partition.
const sharedCompactMin = 1 << 20

// sharedKeys returns the partitions' shared key arena, making it.
func (ps *Partitions) sharedKeys() *keyArena {
	if ps.keys == nil {
		ps.keys = &keyArena{shift: sharedShift}
	}
	return ps.keys
}

// compactKeys copies the keys of every partition to a new shared arena
// once most of the one they use is dead: amortized over at least as many
// dead bytes as it copies.
func (ps *Partitions) compactKeys() {
	ka := ps.keys
	if ka == nil || ka.dead < sharedCompactMin || 2*ka.dead < ka.a.Used() {
		return
	}
	fresh := &keyArena{shift: sharedShift}
	_ = ps.m.each(func(p *Partition) error {
		if p.Tree.keys == ka {
			p.Tree.moveKeys(fresh)
		}
		return nil
	})
	ps.keys = fresh
}
