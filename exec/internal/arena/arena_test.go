package arena

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestArenaKeepsEveryValue adds values of every size, empty and larger
// than a block included, and reads each back at its offset.
func TestArenaKeepsEveryValue(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var a Arena
	var vals [][]byte
	var offs []uint64
	for i := range 3000 {
		n := r.IntN(2000)
		switch i % 500 {
		case 7:
			n = arenaBlock + r.IntN(3*arenaBlock)
		case 11:
			n = 0
		case 13:
			n = arenaBlock
		}
		v := make([]byte, n)
		for j := range v {
			v[j] = byte(r.Uint32())
		}
		if i%2 == 0 {
			offs = append(offs, a.Add(v))
		} else {
			offs = append(offs, a.AddString(string(v)))
		}
		vals = append(vals, v)
	}
	for i, v := range vals {
		if got := a.At(offs[i], uint32(len(v))); !bytes.Equal(got, v) || a.String(offs[i], uint32(len(v))) != string(v) {
			t.Fatalf("value %d (%d bytes at %d) reads back wrong", i, len(v), offs[i])
		}
	}
	var held int64
	for _, b := range a.blocks {
		held += int64(cap(b))
	}
	if held != a.bytes {
		t.Errorf("bytes %d, the blocks hold %d", a.bytes, held)
	}
}
