package aggstate

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
)

// encodedKeys concatenates keys, returning the buffer and the offsets
// FindAll takes.
func encodedKeys(keys []string) ([]byte, []int) {
	var buf []byte
	off := []int{0}
	for _, k := range keys {
		buf = append(buf, k...)
		off = append(off, len(buf))
	}
	return buf, off
}

// TestBytesGroupsFindAll checks FindAll against a map of the keys it was
// given, over batches with repeated keys, new keys (one of them empty),
// and groups deleted between batches, whose slots new groups reuse.
func TestBytesGroupsFindAll(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	g := NewBytesGroups()
	want := map[string]int32{}
	for round := range 200 {
		keys := make([]string, 1+rng.IntN(300))
		for i := range keys {
			if k := rng.IntN(3000); k > 0 {
				keys[i] = fmt.Sprintf("k%d", k*k)
			}
		}
		buf, off := encodedKeys(keys)
		slots := make([]int32, len(keys))
		g.FindAll(buf, off, slots)
		for i, k := range keys {
			s, ok := want[k]
			if !ok {
				want[k] = slots[i]
			} else if s != slots[i] {
				t.Fatalf("round %d: key %q in slot %d, was in %d", round, k, slots[i], s)
			}
			if g.Key(slots[i]) != k {
				t.Fatalf("round %d: slot %d holds %q, want %q", round, slots[i], g.Key(slots[i]), k)
			}
		}
		for k, s := range want {
			if rng.IntN(20) == 0 {
				g.Delete(s)
				delete(want, k)
			}
		}
		if g.Live() != len(want) {
			t.Fatalf("round %d: %d groups, want %d", round, g.Live(), len(want))
		}
	}
	for k, s := range want {
		if got, created := g.Find([]byte(k)); created || got != s {
			t.Fatalf("Find(%q) = %d, %v; want %d", k, got, created, s)
		}
	}
}

// BenchmarkBytesGroups looks up batches of 4,096 keys, each a random one of
// 4M resident string keys ("user-" and a number), one at a time (Find) and
// a batch at a time (FindAll).
func BenchmarkBytesGroups(b *testing.B) {
	const resident = 4 << 20
	g := NewBytesGroups()
	var key []byte
	for i := range resident {
		key = strconv.AppendInt(append(key[:0], "user-"...), int64(i), 10)
		g.Find(key)
	}
	r := rand.New(rand.NewPCG(1, 2))
	type batch struct {
		buf []byte
		off []int
	}
	batches := make([]batch, 64)
	for i := range batches {
		keys := make([]string, 4096)
		for j := range keys {
			keys[j] = "user-" + strconv.Itoa(r.IntN(resident))
		}
		batches[i].buf, batches[i].off = encodedKeys(keys)
	}
	slots := make([]int32, 4096)
	b.Run("Find", func(b *testing.B) {
		for i := range b.N {
			bt := batches[i%len(batches)]
			for j := range slots {
				slots[j], _ = g.Find(bt.buf[bt.off[j]:bt.off[j+1]])
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/4096, "ns/key")
	})
	b.Run("FindAll", func(b *testing.B) {
		for i := range b.N {
			bt := batches[i%len(batches)]
			g.FindAll(bt.buf, bt.off, slots)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/4096, "ns/key")
	})
}
