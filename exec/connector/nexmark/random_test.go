package nexmark

import (
	"math"
	"math/bits"
	"strconv"
	"testing"
)

// TestRNG checks that intn is uniform and that the generators of
// neighbouring items and seeds are unrelated.
func TestRNG(t *testing.T) {
	const draws = 60_000
	var counts [6]int
	r := rngAt(streamKey(0, tagEvent), 0)
	for range draws {
		counts[r.intn(6)]++
	}
	for v, c := range counts {
		within(t, "share of "+strconv.Itoa(v), float64(c)/draws, 1.0/6, 0.01)
	}
	// The first draws of consecutive events, and of one event under
	// consecutive seeds, agree in about half their bits.
	bitsSame := func(a, b uint64) int { return 64 - bits.OnesCount64(a^b) }
	var same, pairs int
	for n := uint64(0); n < 1000; n++ {
		a, b := rngAt(streamKey(0, tagEvent), n), rngAt(streamKey(0, tagEvent), n+1)
		c := rngAt(streamKey(1, tagEvent), n)
		x := a.next()
		same += bitsSame(x, b.next()) + bitsSame(x, c.next())
		pairs += 2
	}
	within(t, "mean equal bits of neighbouring generators", float64(same)/float64(pairs), 32, 1)
	if streamKey(0, tagEvent) == streamKey(0, tagChannel) || streamKey(0, tagEvent) == streamKey(1, tagEvent) {
		t.Error("stream keys collide")
	}
}

// TestPrice checks the table-driven price against round(100 * 10^(6u))
// computed with math.Pow: equal but for a rare off-by-one where the exact
// value lies within rounding error of a half cent.
func TestPrice(t *testing.T) {
	if p := price(0); p != 100 {
		t.Errorf("price(0) = %d, want 100", p)
	}
	if p := price(math.MaxUint64); p != 100_000_000 {
		t.Errorf("price(max) = %d, want 100000000", p)
	}
	r := rngAt(5, 6)
	off := 0
	const draws = 200_000
	for range draws {
		x := r.next()
		u := float64(x) / (1 << 64)
		want := int64(math.Round(100 * math.Pow(10, 6*u)))
		got := price(x)
		if got != want {
			off++
			if got-want > 1 || want-got > 1 {
				t.Fatalf("price(%#x) = %d, want %d", x, got, want)
			}
		}
	}
	if off > draws/1000 {
		t.Errorf("%d of %d prices differ from math.Pow's", off, draws)
	}
	// Monotone across bin and decade boundaries.
	prev := price(0)
	for k := uint64(1); k < 1<<16; k++ {
		p := price(k << 48)
		if p < prev {
			t.Fatalf("price(%#x) = %d < %d", k<<48, p, prev)
		}
		prev = p
	}
}

// TestExtraBounds checks that the pool holds the longest extra past its
// last offset and that extras stay within maxExtraLen.
func TestExtraBounds(t *testing.T) {
	if m := maxExtraLen(avgAuctionSize); m > poolSlack {
		t.Errorf("longest extra %d exceeds the pool's slack %d", m, poolSlack)
	}
	r := rngAt(7, 7)
	for _, size := range []int{0, 32, 54, 199, 200} {
		for range 1000 {
			off, n := nextExtra(&r, size, 200)
			if off < 0 || off >= poolSpan || n < 0 || n > maxExtraLen(200-size) {
				t.Fatalf("size %d: extra at %d of %d bytes", size, off, n)
			}
		}
	}
	if _, n := nextExtra(&r, 201, 200); n != 0 {
		t.Errorf("a row above the average got %d bytes of extra", n)
	}
}

// TestAppendString checks nextString's lengths, alphabet, trimming and
// share of specials.
func TestAppendString(t *testing.T) {
	r := rngAt(1, 2)
	var specials, chars int
	lens := map[int]int{}
	for range 20_000 {
		s := appendString(nil, &r, 7, '_')
		lens[len(s)]++
		for _, c := range s {
			switch {
			case c == '_':
				specials++
			case c < 'a' || c > 'z':
				t.Fatalf("character %q in %q", c, s)
			}
		}
		chars += len(s)
		sp := appendString([]byte("x"), &r, 20, ' ')
		if len(sp) > 20 || (len(sp) > 1 && (sp[1] == ' ' || sp[len(sp)-1] == ' ')) || sp[0] != 'x' {
			t.Fatalf("untrimmed %q", sp)
		}
	}
	for n := 3; n < 7; n++ {
		within(t, "share of length "+strconv.Itoa(n), float64(lens[n])/20_000, 0.25, 0.02)
	}
	if len(lens) != 4 {
		t.Errorf("lengths %v, want 3 to 6", lens)
	}
	within(t, "share of specials", float64(specials)/float64(chars), 1.0/13, 0.005)
}
