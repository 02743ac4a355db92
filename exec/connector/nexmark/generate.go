package nexmark

import "strconv"

// The average row sizes the extra padding aims at, and the size estimate of
// a bid without its extra (NEXMARK.md §1.8).
const (
	avgPersonSize  = 200
	avgAuctionSize = 500
	avgBidSize     = 100
	bidSize        = 8 + 8 + 8 + 8
)

// hotChannelsRatio makes 1 - 1/2 of the bids come through a hot channel.
const hotChannelsRatio = 2

// generator makes the events of one table as pure functions of their event
// number n and the seed. Each event draws from its own generator,
// rngAt(eventKey, n), in a fixed order that depends only on the values
// drawn, never on which columns are declared: a column that is not declared
// still has its values drawn, and only the work of turning them into the
// column (a price's power of ten, a copy, a channel lookup) is skipped. So
// every declared column has the same values whatever else is declared, and
// any split can compute any event without state.
type generator struct {
	kind     kind
	eventKey uint64
	clock    clock
	pool     []byte
	chans    *channels // bid table only
	scratch  []byte    // person and auction strings, before they are copied
}

// newGenerator returns the generator of cfg's table (cfg is validated).
func newGenerator(k kind, cfg *Config) *generator {
	rate := cfg.FirstEventRate
	if rate == 0 {
		rate = DefaultFirstEventRate
	}
	g := &generator{
		kind:     k,
		eventKey: streamKey(cfg.Seed, tagEvent),
		clock:    clock{base: cfg.BaseTime, rate: uint64(rate)},
		pool:     newPool(streamKey(cfg.Seed, tagPool)),
		scratch:  make([]byte, 0, 256),
	}
	if k == kindBid {
		g.chans = newChannels(streamKey(cfg.Seed, tagChannel))
	}
	return g
}

// event appends event n, which is of the generator's kind, to b.
func (g *generator) event(n uint64, b *batch) {
	switch g.kind {
	case kindBid:
		g.bid(n, b)
	case kindAuction:
		g.auction(n, b)
	default:
		g.person(n, b)
	}
	b.rows++
}

// bid writes bid n as row b.rows. Draws: hot auction, [random auction],
// hot bidder, [random bidder], price, hot channel, channel, [extra length],
// extra offset.
func (g *generator) bid(n uint64, b *batch) {
	i, r := b.rows, rngAt(g.eventKey, n)
	var auction int64
	if r.intn(hotAuctionRatio) > 0 {
		auction = lastBase0AuctionID(n) / hotBlock * hotBlock
	} else {
		auction = nextBase0AuctionID(n, &r)
	}
	var bidder int64
	if r.intn(hotBiddersRatio) > 0 {
		// The second person of the block, so that the hot bidder is not
		// also the hot seller.
		bidder = lastBase0PersonID(n)/hotBlock*hotBlock + 1
	} else {
		bidder = nextBase0PersonID(n, &r)
	}
	p := r.next()
	hot := r.intn(hotChannelsRatio) > 0
	var ch int
	if hot {
		ch = int(r.intn(uint64(len(hotChannels))))
	} else {
		ch = int(r.intn(channelsNumber))
	}
	off, ln := nextExtra(&r, bidSize, avgBidSize)

	b.setInt(bidAuction, auction+firstAuctionID)
	b.setInt(bidBidder, bidder+firstPersonID)
	if c := b.ints[bidPrice]; c != nil {
		c[i] = price(p)
	}
	if c := b.strs[bidChannel]; c != nil {
		if hot {
			put(c, i, hotChannels[ch])
		} else {
			c.addNumbered(i, "channel-", uint32(ch))
		}
	}
	if c := b.strs[bidURL]; c != nil {
		if hot {
			put(c, i, g.chans.hot[ch])
		} else {
			put(c, i, g.chans.url(ch))
		}
	}
	if c := b.ints[bidDateTime]; c != nil {
		c[i] = g.clock.at(n)
	}
	setStr(b, bidExtra, g.pool[off:off+ln])
}

// auction writes auction n as row b.rows. Draws: hot seller, [random
// seller], category, initial bid, expiry, item name, description, reserve,
// [extra length, extra offset].
func (g *generator) auction(n uint64, b *batch) {
	i, r := b.rows, rngAt(g.eventKey, n)
	var seller int64
	if r.intn(hotSellersRatio) > 0 {
		seller = lastBase0PersonID(n) / hotBlock * hotBlock
	} else {
		seller = nextBase0PersonID(n, &r)
	}
	category := firstCategoryID + int64(r.intn(numCategories))
	p1 := r.next()
	ts := g.clock.at(n)
	// Expiry: uniform with mean the time until numInFlightAuctions more
	// auctions are created (NEXMARK.md §1.6).
	horizon := g.clock.at(n+numEventsForAuctions) - ts
	expires := ts + 1 + int64(r.intn(uint64(max(2*horizon, 1))))
	s := appendString(g.scratch[:0], &r, 20, ' ')
	nameEnd := len(s)
	s = appendString(s, &r, 100, ' ')
	g.scratch = s
	p2 := r.next()
	size := 8 + len(s) + 5*8 // item name and description are s
	off, ln := nextExtra(&r, size, avgAuctionSize)

	if c := b.ints[auctionID]; c != nil {
		c[i] = lastBase0AuctionID(n) + firstAuctionID
	}
	setStr(b, auctionItemName, s[:nameEnd])
	setStr(b, auctionDescription, s[nameEnd:])
	ci, cr := b.ints[auctionInitialBid], b.ints[auctionReserve]
	if ci != nil || cr != nil {
		initial := price(p1)
		if ci != nil {
			ci[i] = initial
		}
		if cr != nil {
			cr[i] = initial + price(p2)
		}
	}
	b.setInt(auctionDateTime, ts)
	b.setInt(auctionExpires, expires)
	b.setInt(auctionSeller, seller+firstPersonID)
	b.setInt(auctionCategory, category)
	setStr(b, auctionExtra, g.pool[off:off+ln])
}

// person writes person n as row b.rows. Draws: first name, last name,
// email (two strings), four credit card groups, city, state, [extra length,
// extra offset].
func (g *generator) person(n uint64, b *batch) {
	i, r := b.rows, rngAt(g.eventKey, n)
	s := g.scratch[:0]
	s = append(s, firstNames[r.intn(uint64(len(firstNames)))]...)
	s = append(s, ' ')
	s = append(s, lastNames[r.intn(uint64(len(lastNames)))]...)
	nameEnd := len(s)
	s = appendString(s, &r, 7, ' ')
	s = append(s, '@')
	s = appendString(s, &r, 5, ' ')
	s = append(s, ".com"...)
	emailEnd := len(s)
	for k := 0; k < 4; k++ {
		if k > 0 {
			s = append(s, ' ')
		}
		s = appendPadded4(s, r.intn(10_000))
	}
	g.scratch = s
	city := cities[r.intn(uint64(len(cities)))]
	state := states[r.intn(uint64(len(states)))]
	size := 8 + len(s) + len(city) + len(state) // name, email and card are s
	off, ln := nextExtra(&r, size, avgPersonSize)

	if c := b.ints[personID]; c != nil {
		c[i] = lastBase0PersonID(n) + firstPersonID
	}
	setStr(b, personName, s[:nameEnd])
	setStr(b, personEmail, s[nameEnd:emailEnd])
	setStr(b, personCreditCard, s[emailEnd:])
	setStr(b, personCity, city)
	setStr(b, personState, state)
	if c := b.ints[personDateTime]; c != nil {
		c[i] = g.clock.at(n)
	}
	setStr(b, personExtra, g.pool[off:off+ln])
}

// appendPadded4 appends v < 10000 as four digits, zero-padded (%04d).
func appendPadded4(dst []byte, v uint64) []byte {
	for p := uint64(1000); p > 1 && v < p; p /= 10 {
		dst = append(dst, '0')
	}
	return strconv.AppendUint(dst, v, 10)
}
