package nexmark

import (
	"math"
	"math/bits"
)

// golden is SplitMix64's increment: 2^64 divided by the golden ratio, odd.
const golden = 0x9e3779b97f4a7c15

// mix64 is SplitMix64's output function (Stafford's "mix13" variant of the
// MurmurHash3 finalizer): a bijection of uint64 whose every output bit
// depends on every input bit.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// The tags that separate the random streams derived from one seed, so that
// event n, channel n and the padding pool never share a stream.
const (
	tagEvent   = 1
	tagChannel = 2
	tagPool    = 3
)

// streamKey derives the key of one family of random streams from the seed.
func streamKey(seed int64, tag uint64) uint64 {
	return mix64(uint64(seed) ^ mix64(tag*golden))
}

// rng is a SplitMix64 generator (Steele, Lea and Flood, "Fast splittable
// pseudorandom number generators", OOPSLA 2014): a Weyl sequence passed
// through mix64. It passes BigCrush, costs a handful of cycles per value,
// and its state is one word, so a fresh generator per event is free. The
// zero value is a valid generator.
type rng struct{ s uint64 }

// rngAt returns the generator of item i of the family with key k: its
// state is mix64(k ^ i), so items are independent of each other and any
// item can be generated without the ones before it.
func rngAt(k, i uint64) rng { return rng{s: mix64(k ^ i)} }

// next returns the next 64 random bits.
func (r *rng) next() uint64 {
	r.s += golden
	return mix64(r.s)
}

// intn returns a uniform integer in [0, n) for n > 0, by Lemire's
// multiply-shift: the high word of a 64×64-bit product. Its bias is below
// n/2^64, far under anything a test could see, and it needs no division.
func (r *rng) intn(n uint64) uint64 {
	hi, _ := bits.Mul64(r.next(), n)
	return hi
}

// digits peels successive uniform digits off one random word: each call
// treats the word as a binary fraction x in [0, 1), returns floor(x*base)
// and keeps the fraction of x*base. Each digit consumes log2(base) of the
// word's 64 bits, so a word yields several small digits for the price of
// one draw; callers take few enough that the last one keeps at least 16
// bits of resolution, so its bias stays below base/2^16.
type digits struct{ x uint64 }

// digit returns the next digit in [0, base).
func (d *digits) digit(base uint64) uint64 {
	hi, lo := bits.Mul64(d.x, base)
	d.x = lo
	return hi
}

// Prices are log-uniform between $1 and $1M: round(100 * 10^(6u)) cents
// for a uniform u in [0, 1) (NEXMARK.md §1.7). price computes the power
// from tables rather than with math.Exp, which cost a fifth of a bid's
// time: 6u splits into a decade k (0..5), a bin j of 1/priceBins of a
// decade, and a remainder r < 1/priceBins, and 10^(6u) = 10^k * 10^(j/
// priceBins) * 10^r, the last by a short Taylor series. Tables and series
// use only pure-Go arithmetic, with explicit conversions that forbid fused
// multiply-adds, so prices are the same on every platform.
const (
	priceBinBits = 10
	priceBins    = 1 << priceBinBits
)

// priceDecades[k] is 100 * 10^k, exactly.
var priceDecades = [6]float64{1e2, 1e3, 1e4, 1e5, 1e6, 1e7}

// priceFracs[j] is 10^(j/priceBins).
var priceFracs = func() *[priceBins]float64 {
	var t [priceBins]float64
	for j := range t {
		t[j] = math.Pow(10, float64(j)/priceBins)
	}
	return &t
}()

// ln10By2p64 scales the remainder's 64-bit fraction of a decade to
// r*ln(10).
const ln10By2p64 = math.Ln10 / (1 << 64)

// price turns 64 random bits x, read as u = x/2^64, into a price in cents
// between 100 and 10^8.
func price(x uint64) int64 {
	k, f := bits.Mul64(x, 6) // 6u = k + f/2^64
	j := f >> (64 - priceBinBits)
	// y = r*ln(10) < ln(10)/1024 < 2.3e-3, so the series to y^4 errs by
	// less than y^5/120 < 6e-16, relatively.
	y := float64(f&(1<<(64-priceBinBits)-1)) * ln10By2p64
	e := 1 + float64(y*(1+float64(y*(0.5+float64(y*(1.0/6+float64(y*(1.0/24))))))))
	return int64(math.Round(float64(priceDecades[k]*priceFracs[j]) * e))
}
