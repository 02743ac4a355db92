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

// TestRoom checks that a value of at most Room bytes is added without a
// new allocation, and that Room is 0 before the first value.
func TestRoom(t *testing.T) {
	var a Arena
	if a.Room() != 0 {
		t.Fatalf("an empty arena has room %d", a.Room())
	}
	a.Reserve(100)
	if a.Room() != 100 {
		t.Fatalf("after Reserve(100) room is %d", a.Room())
	}
	a.AddString("0123456789")
	if a.Room() != 90 || a.Bytes() != 100 {
		t.Fatalf("after 10 bytes: room %d, bytes %d; want 90, 100", a.Room(), a.Bytes())
	}
	a.AddString(string(make([]byte, 90)))
	if a.Room() != 0 || a.Bytes() != 100 {
		t.Fatalf("after filling it: room %d, bytes %d; want 0, 100", a.Room(), a.Bytes())
	}
	// Past the first block, room is what the current block has left.
	for a.Next() < arenaBlock+10 {
		a.AddString(string(make([]byte, 1000)))
	}
	want := arenaBlock - int(a.Next()&arenaMask)
	if a.Room() != want {
		t.Fatalf("in the second block room is %d, want %d", a.Room(), want)
	}
}
