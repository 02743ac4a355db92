package nexmark

import (
	"math/bits"
	"strconv"
)

// The word lists of persons (NEXMARK.md §1.1).
var (
	firstNames = []string{"Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter", "Walter"}
	lastNames  = []string{"Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris"}
	cities     = []string{"Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland", "Bend", "Redmond", "Seattle", "Kent", "Cheyenne"}
	states     = []string{"AZ", "CA", "ID", "OR", "WA", "WY"}
)

// minStringLength is the shortest random string before trimming.
const minStringLength = 3

// charsPerWord is how many characters appendString peels off one random
// word: each takes log2(13*26) ≈ 8.4 bits, so five leave 22 bits of
// resolution for the last.
const charsPerWord = 5

// appendString appends a random string to dst as the reference
// nextString(maxLen, special) makes it (NEXMARK.md §1.8): its length is
// uniform in [3, maxLen), each character is special with probability 1/13
// and otherwise a uniform lowercase letter, and a space special is trimmed
// from both ends. The length takes one draw; the characters take one draw
// per charsPerWord of them.
func appendString(dst []byte, r *rng, maxLen int, special byte) []byte {
	n := minStringLength + int(r.intn(uint64(maxLen-minStringLength)))
	start := len(dst)
	var d digits
	for i := 0; i < n; i++ {
		if i%charsPerWord == 0 {
			d = digits{r.next()}
		}
		// 338 = 13*26 outcomes: 26 of them (1/13) are the special
		// character, the other 312 spread evenly over the 26 letters.
		c := d.digit(13 * 26)
		if c < 26 {
			dst = append(dst, special)
		} else {
			dst = append(dst, 'a'+byte(c%26))
		}
	}
	if special != ' ' {
		return dst
	}
	s := dst[start:]
	lo, hi := 0, len(s)
	for lo < hi && s[lo] == ' ' {
		lo++
	}
	for hi > lo && s[hi-1] == ' ' {
		hi--
	}
	if lo > 0 {
		copy(s, s[lo:hi])
	}
	return dst[:start+hi-lo]
}

// The padding pool: extras are substrings of one random string of
// lowercase letters per seed, as the current Flink generator takes them
// from one precomputed string (NEXMARK.md §1.8), so padding a row costs a
// copy rather than a draw per character.
const (
	// poolSpan is the number of distinct start offsets of an extra.
	poolSpan = 1 << 16
	// poolSlack covers the longest extra, maxExtraLen(500) = 600 bytes.
	poolSlack = 1024
	// lettersPerWord is how many letters newPool peels off one random
	// word (4.7 bits each), leaving 17 bits of resolution for the last.
	lettersPerWord = 10
)

// newPool returns the padding pool of the seed's pool key.
func newPool(key uint64) []byte {
	pool := make([]byte, poolSpan+poolSlack)
	r := rngAt(key, 0)
	var d digits
	for i := range pool {
		if i%lettersPerWord == 0 {
			d = digits{r.next()}
		}
		pool[i] = 'a' + byte(d.digit(26))
	}
	return pool
}

// nextExtra draws the padding of a row whose other fields are estimated at
// currentSize bytes, so that rows average avgSize (NEXMARK.md §1.8): none
// (and no draws) when currentSize > avgSize; otherwise, with d = avgSize -
// currentSize and delta = round(d/5), a length uniform in [d-delta,
// d+delta) (one draw when delta > 0) at a uniform pool offset (one draw).
// It returns the extra's offset and length in the pool.
func nextExtra(r *rng, currentSize, avgSize int) (off, n int) {
	if currentSize > avgSize {
		return 0, 0
	}
	d := avgSize - currentSize
	delta := (2*d + 5) / 10 // round(0.2*d); d/5 is never exactly half-way
	n = d - delta
	if delta > 0 {
		n += int(r.intn(uint64(2 * delta)))
	}
	return int(r.intn(poolSpan)), n
}

// maxExtraLen bounds the length of an extra that pads d bytes on average
// (d = avgSize - currentSize): d + round(d/5).
func maxExtraLen(d int) int { return d + (2*d+5)/10 }

// The bid channels (NEXMARK.md §1.8): half the bids come through one of
// four hot channels with fixed URLs, the rest through "channel-N", N <
// channelsNumber, each with one URL made from N and the seed.
const channelsNumber = 10_000

var hotChannels = [...]string{"Google", "Facebook", "Baidu", "Apple"}

// maxURLLen bounds a URL: "https://www.nexmark.com/", three path segments
// of at most 4 bytes each followed by '/', "item.htm?query=1" and
// "&channel_id=" with up to 10 digits.
const maxURLLen = 24 + 3*(4+1) + 16 + 12 + 10

// maxChannelLen bounds a channel name: "channel-9999".
const maxChannelLen = len("channel-9999")

// channels makes and caches the channel URLs of one seed. A channel's URL
// is a pure function of its number and the seed, made the first time a bid
// uses it and kept in one arena, so the cache costs no allocation per
// channel.
type channels struct {
	key    uint64
	arena  []byte   // the URLs made so far, back to back
	starts []uint32 // channel n's URL starts at arena[starts[n]]
	lens   []uint8  // and has lens[n] bytes; 0 until made (a URL is never empty)
	hot    [len(hotChannels)][]byte
}

// newChannels returns the channel cache of the seed's channel key, with the
// hot channels' URLs made.
func newChannels(key uint64) *channels {
	c := &channels{
		key:    key,
		arena:  make([]byte, 0, 1<<16),
		starts: make([]uint32, channelsNumber),
		lens:   make([]uint8, channelsNumber),
	}
	for i := range c.hot {
		c.hot[i] = appendURL(nil, key, channelsNumber+uint64(i), false)
	}
	return c
}

// url returns the URL of channel n < channelsNumber. The slice is valid
// until the next call.
func (c *channels) url(n int) []byte {
	if c.lens[n] == 0 {
		start := len(c.arena)
		c.arena = appendURL(c.arena, c.key, uint64(n), true)
		c.starts[n], c.lens[n] = uint32(start), uint8(len(c.arena)-start)
	}
	s := c.starts[n]
	return c.arena[s : s+uint32(c.lens[n])]
}

// appendURL appends the URL of channel n (hot channels are numbered from
// channelsNumber): three path segments of nextString(5, '_') and, for a
// numbered channel with probability 9/10, a channel_id query parameter of
// |reverse32(n)| (NEXMARK.md §1.8). The reversal is of a 32-bit signed int,
// as Java's Integer.reverse; its absolute value is taken in 64 bits, so
// channel 1 gets 2147483648 where Java's Math.abs would overflow.
func appendURL(b []byte, key, n uint64, numbered bool) []byte {
	r := rngAt(key, n)
	b = append(b, "https://www.nexmark.com/"...)
	for i := 0; i < 3; i++ {
		b = appendString(b, &r, 5, '_')
		b = append(b, '/')
	}
	b = append(b, "item.htm?query=1"...)
	if numbered && r.intn(10) > 0 {
		id := int64(int32(bits.Reverse32(uint32(n))))
		b = append(b, "&channel_id="...)
		b = strconv.AppendInt(b, max(id, -id), 10)
	}
	return b
}
