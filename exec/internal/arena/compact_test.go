package arena

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// testValues is a Values over values kept at offs, tagged by index.
type testValues struct {
	offs []uint64
	vals [][]byte
	keep []bool
}

func (v *testValues) Each(visit func(tag uint32)) {
	for i, k := range v.keep {
		if k {
			visit(uint32(i))
		}
	}
}

func (v *testValues) Value(tag uint32) (uint64, uint32) {
	return v.offs[tag], uint32(len(v.vals[tag]))
}

func (v *testValues) Moved(tag uint32, off uint64) { v.offs[tag] = off }

// TestCompactKeepsTheLiveValues fills an arena of many blocks with
// values of every size (empty, larger than a block), compacts it keeping
// a random half, adds more and compacts again, several times: every
// value kept reads back at its new offset, its bytes counted; the new
// arena's blocks are, but for a few, the old ones reused; and values
// added after a compaction take emptied blocks first.
func TestCompactKeepsTheLiveValues(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var a Arena
	v := &testValues{}
	addSome := func(count int) {
		for i := range count {
			n := r.IntN(3000)
			switch i % 4000 {
			case 17:
				n = arenaBlock + r.IntN(arenaBlock)
			case 23:
				n = 0
			}
			val := make([]byte, n)
			for j := range val {
				val[j] = byte(r.Uint32())
			}
			v.offs = append(v.offs, a.Add(val))
			v.vals = append(v.vals, val)
			v.keep = append(v.keep, true)
		}
	}
	check := func(round int) {
		t.Helper()
		var used int64
		for i, val := range v.vals {
			if !v.keep[i] {
				continue
			}
			used += int64(len(val))
			if got := a.At(v.offs[i], uint32(len(val))); !bytes.Equal(got, val) {
				t.Fatalf("round %d: value %d (%d bytes at %d) reads back wrong", round, i, len(val), v.offs[i])
			}
		}
		if a.Used() != used {
			t.Fatalf("round %d: used %d, the values kept are %d bytes", round, a.Used(), used)
		}
		held := int64(len(a.free)) * arenaBlock
		for _, b := range a.blocks {
			held += int64(cap(b))
		}
		if held != a.bytes {
			t.Fatalf("round %d: bytes %d, the blocks hold %d", round, a.bytes, held)
		}
	}
	var order []uint32
	addSome(30000)
	for round := range 5 {
		old := map[*byte]bool{}
		for _, b := range append(a.blocks, a.free...) {
			if cap(b) == arenaBlock {
				old[unsafe.SliceData(b[:1])] = true
			}
		}
		for i := range v.keep {
			v.keep[i] = v.keep[i] && r.IntN(2) == 0
		}
		order = a.Compact(v, order)
		check(round)
		fresh := 0
		for _, b := range append(a.blocks, a.free...) {
			if b != nil && cap(b) == arenaBlock && !old[unsafe.SliceData(b[:1])] {
				fresh++
			}
		}
		if fresh > 1 {
			t.Fatalf("round %d: %d fresh blocks after the compaction, want at most 1", round, fresh)
		}
		free := len(a.free)
		addSome(3000)
		check(round)
		if free > 0 && len(a.free) == free {
			t.Fatalf("round %d: values added after the compaction took no emptied block (%d free)", round, free)
		}
	}
}

// TestCompactEmpty compacts an empty arena and one keeping nothing.
func TestCompactEmpty(t *testing.T) {
	var a Arena
	v := &testValues{}
	a.Compact(v, nil)
	if a.Used() != 0 || a.Bytes() != 0 {
		t.Fatalf("an empty arena compacted holds %d bytes of %d", a.Used(), a.Bytes())
	}
	v.offs = []uint64{a.Add([]byte("abc"))}
	v.vals = [][]byte{[]byte("abc")}
	v.keep = []bool{false}
	a.Compact(v, nil)
	if a.Used() != 0 || len(a.blocks) != 0 {
		t.Fatalf("nothing kept: %d bytes used in %d blocks", a.Used(), len(a.blocks))
	}
	if off := a.Add([]byte("de")); string(a.At(off, 2)) != "de" {
		t.Fatal("an arena compacted to nothing does not take values again")
	}
}
