package nexmark

// The constants of the reference generator (NEXMARK.md §1.2–1.4, 1.6).
const (
	// Per 50 consecutive event ids: 1 person, 3 auctions, 46 bids.
	personProportion  = 1
	auctionProportion = 3
	bidProportion     = 46
	totalProportion   = personProportion + auctionProportion + bidProportion

	firstPersonID   = 1000
	firstAuctionID  = 1000
	firstCategoryID = 10
	numCategories   = 5

	// Random persons and auctions may be up to this many ids ahead of the
	// last one created (references to not-yet-existing rows).
	personIDLead  = 10
	auctionIDLead = 10

	// P(hot) = 1 - 1/ratio: 1/2 of bids go to the hot auction, 3/4 of
	// auctions are by the hot seller and 3/4 of bids by the hot bidder.
	hotAuctionRatio = 2
	hotSellersRatio = 4
	hotBiddersRatio = 4
	// The hot auction, seller and bidder are the first (the bidder: the
	// second) of the current block of this many auctions or persons.
	hotBlock = 100

	// Random ids are drawn from the last numInFlightAuctions auctions and
	// the last numActivePeople persons.
	numInFlightAuctions = 100
	numActivePeople     = 1000

	// An auction lasts on average as long as it takes to create
	// numInFlightAuctions more auctions: this many events (1666).
	numEventsForAuctions = numInFlightAuctions * totalProportion / auctionProportion
)

// proportionOf returns the events of kind k among every totalProportion
// consecutive events.
func proportionOf(k kind) int {
	switch k {
	case kindPerson:
		return personProportion
	case kindAuction:
		return auctionProportion
	}
	return bidProportion
}

// kindOf returns the kind of event id: by its position in its group of 50.
func kindOf(id uint64) kind {
	switch r := id % totalProportion; {
	case r < personProportion:
		return kindPerson
	case r < personProportion+auctionProportion:
		return kindAuction
	}
	return kindBid
}

// lastBase0PersonID is the 0-based id of the last person created at or
// before event id: id/50 with the default proportions.
func lastBase0PersonID(id uint64) int64 {
	epoch, off := id/totalProportion, id%totalProportion
	if off >= personProportion {
		off = personProportion - 1
	}
	return int64(epoch*personProportion + off)
}

// lastBase0AuctionID is the 0-based id of the last auction created at or
// before event id: a person slot belongs to the previous group's last
// auction, a bid slot to its own group's last, an auction slot is itself.
// It is -1 for event 0, before any auction.
func lastBase0AuctionID(id uint64) int64 {
	epoch, off := int64(id/totalProportion), int64(id%totalProportion)
	switch {
	case off < personProportion:
		epoch--
		off = auctionProportion - 1
	case off >= personProportion+auctionProportion:
		off = auctionProportion - 1
	default:
		off -= personProportion
	}
	return epoch*auctionProportion + off
}

// nextBase0PersonID draws a random 0-based person id for event id: uniform
// over the last numActivePeople persons plus personIDLead not yet created.
func nextBase0PersonID(id uint64, r *rng) int64 {
	numPeople := lastBase0PersonID(id) + 1
	active := min(numPeople, numActivePeople)
	return numPeople - active + int64(r.intn(uint64(active+personIDLead)))
}

// nextBase0AuctionID draws a random 0-based auction id for event id:
// uniform over the last numInFlightAuctions+1 auctions plus auctionIDLead
// not yet created.
func nextBase0AuctionID(id uint64, r *rng) int64 {
	maxA := lastBase0AuctionID(id)
	minA := max(maxA-numInFlightAuctions, 0)
	return minA + int64(r.intn(uint64(maxA-minA+1+auctionIDLead)))
}

// clock stamps event numbers: event n happens at
// base + floor(n*1e6/rate)/1000 ms, i.e. floor(n*1000/rate) ms after base
// (the two floors compose). All splits share this one timeline.
type clock struct {
	base int64  // ms since the epoch of event 0
	rate uint64 // events per second of event time
}

// at returns the timestamp of event n in ms. It computes floor(n*1000/rate)
// as (n/rate)*1000 + (n%rate)*1000/rate, which cannot overflow for the
// n < MaxEvents and rate <= MaxRate that Config allows.
func (c clock) at(n uint64) int64 {
	return c.base + int64(n/c.rate*1000+n%c.rate*1000/c.rate)
}
