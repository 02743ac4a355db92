package nexmark

import (
	"math/big"
	"slices"
	"testing"
)

// TestIDFormulas checks the worked example of NEXMARK.md §1.3: event 0 is
// person 1000, events 1–3 auctions 1000–1002, 4–49 bids, 50 person 1001,
// 51–53 auctions 1003–1005, and so on.
func TestIDFormulas(t *testing.T) {
	for n := uint64(0); n < 200; n++ {
		g, off := int64(n/50), n%50
		var want kind
		switch {
		case off == 0:
			want = kindPerson
		case off <= 3:
			want = kindAuction
		default:
			want = kindBid
		}
		if got := kindOf(n); got != want {
			t.Fatalf("kindOf(%d) = %d, want %d", n, got, want)
		}
		if got := lastBase0PersonID(n); got != g {
			t.Errorf("lastBase0PersonID(%d) = %d, want %d", n, got, g)
		}
		wantA := g*3 + 2 // a bid: the group's last auction
		switch {
		case off == 0:
			wantA = g*3 - 1 // a person: the previous group's last auction
		case off <= 3:
			wantA = g*3 + int64(off) - 1
		}
		if got := lastBase0AuctionID(n); got != wantA {
			t.Errorf("lastBase0AuctionID(%d) = %d, want %d", n, got, wantA)
		}
	}
}

// TestFirst200Events generates the first 200 events as the three tables
// and checks kinds, ids, timestamps and the ranges of the foreign keys.
func TestFirst200Events(t *testing.T) {
	const events = 200
	base := DefaultBaseTime

	persons := readAll(t, testConfig(TablePerson, events))
	if len(persons) != 4 {
		t.Fatalf("%d persons, want 4", len(persons))
	}
	for i, r := range persons {
		n := int64(50 * i)
		if r[personID].I != 1000+int64(i) || r[personDateTime].I != base+n/10 {
			t.Errorf("person %d: id %d at %d, want %d at %d", i, r[personID].I, r[personDateTime].I, 1000+i, base+n/10)
		}
	}

	auctions := readAll(t, testConfig(TableAuction, events))
	if len(auctions) != 12 {
		t.Fatalf("%d auctions, want 12", len(auctions))
	}
	for i, r := range auctions {
		n := uint64(50*(i/3) + 1 + i%3)
		if r[auctionID].I != 1000+int64(i) || r[auctionDateTime].I != base+int64(n/10) {
			t.Errorf("auction %d: id %d at %d, want %d at %d", i, r[auctionID].I, r[auctionDateTime].I, 1000+i, base+int64(n/10))
		}
		checkPersonRef(t, "seller", n, r[auctionSeller].I, 0)
		if c := r[auctionCategory].I; c < 10 || c > 14 {
			t.Errorf("auction %d: category %d", i, c)
		}
		if r[auctionExpires].I <= r[auctionDateTime].I {
			t.Errorf("auction %d expires at %d, not after %d", i, r[auctionExpires].I, r[auctionDateTime].I)
		}
	}

	bids := readAll(t, testConfig(TableBid, events))
	if len(bids) != 4*46 {
		t.Fatalf("%d bids, want %d", len(bids), 4*46)
	}
	ns := splitEvents(kindBid, 0, 1, events)
	for i, r := range bids {
		n := ns[i]
		if got := r[bidDateTime].I; got != base+int64(n/10) {
			t.Errorf("bid %d (event %d) at %d, want %d", i, n, got, base+int64(n/10))
		}
		checkAuctionRef(t, n, r[bidAuction].I)
		checkPersonRef(t, "bidder", n, r[bidBidder].I, 1)
	}
}

// checkPersonRef checks a person id referenced by event n: the hot one
// (the block's first person plus hot) or one of the active persons or the
// lead.
func checkPersonRef(t *testing.T, what string, n uint64, id int64, hot int64) {
	t.Helper()
	last := lastBase0PersonID(n)
	if id == last/hotBlock*hotBlock+hot+firstPersonID {
		return
	}
	lo := max(last+1-numActivePeople, 0) + firstPersonID
	hi := last + personIDLead + firstPersonID
	if id < lo || id > hi {
		t.Errorf("event %d: %s %d outside [%d, %d]", n, what, id, lo, hi)
	}
}

// checkAuctionRef checks the auction a bid at event n references: the hot
// one or one of the last 101 auctions or the lead.
func checkAuctionRef(t *testing.T, n uint64, id int64) {
	t.Helper()
	last := lastBase0AuctionID(n)
	if id == last/hotBlock*hotBlock+firstAuctionID {
		return
	}
	lo := max(last-numInFlightAuctions, 0) + firstAuctionID
	hi := last + auctionIDLead + firstAuctionID
	if id < lo || id > hi {
		t.Errorf("event %d: auction %d outside [%d, %d]", n, id, lo, hi)
	}
}

// TestClock checks event timestamps against the reference formula
// base + floor(floor(n*1e6/rate)/1000), in exact arithmetic.
func TestClock(t *testing.T) {
	rates := []uint64{1, 3, 7, 999, 10_000, 10_000_000, 999_999_937, uint64(MaxRate)}
	ns := []uint64{0, 1, 2, 9, 10, 11, 999, 1_000_001, 123_456_789_012, uint64(MaxEvents) - 1}
	for _, rate := range rates {
		c := clock{base: DefaultBaseTime, rate: rate}
		for _, n := range ns {
			us := new(big.Int).Mul(new(big.Int).SetUint64(n), big.NewInt(1_000_000))
			us.Quo(us, new(big.Int).SetUint64(rate))
			want := us.Quo(us, big.NewInt(1000)).Int64() + DefaultBaseTime
			if got := c.at(n); got != want {
				t.Errorf("rate %d: at(%d) = %d, want %d", rate, n, got, want)
			}
		}
	}
}

// TestCursor checks that a split visits exactly the events of its kind in
// its blocks, at every parallelism up to 60 (so including splits that
// have no events at all), with blocks of 1 to 70 events (below, at and
// above the period of 50 of the kinds) and of SplitBlock.
func TestCursor(t *testing.T) {
	const events = 1000
	for _, block := range []uint64{1, 7, 49, 50, 51, 70, SplitBlock} {
		for _, k := range []kind{kindPerson, kindAuction, kindBid} {
			for p := 1; p <= 60; p++ {
				for i := 0; i < p; i++ {
					testCursor(t, k, i, p, events, block)
				}
			}
		}
	}
}

// testCursor checks split i of p over events with blocks of block: the
// events it visits, and the counts up to a few limits.
func testCursor(t *testing.T, k kind, i, p int, events, block uint64) {
	t.Helper()
	want := blockEvents(k, i, p, events, block)
	c := newBlockCursor(k, i, p, int64(events), block)
	for _, limit := range []uint64{0, 49, 333, events, ^uint64(0)} {
		n := 0
		for _, e := range want {
			if e <= limit {
				n++
			}
		}
		for _, most := range []int{1, 5, 1 << 30} {
			if got := c.count(limit, most); got != min(n, most) {
				t.Fatalf("kind %d, split %d/%d, block %d: count(%d, %d) = %d, want %d", k, i, p, block, limit, most, got, min(n, most))
			}
		}
	}
	var got []uint64
	for c.seek() {
		got = append(got, c.n)
		c.advance()
	}
	if !slices.Equal(got, want) {
		t.Fatalf("kind %d, split %d/%d, block %d: events %v, want %v", k, i, p, block, got, want)
	}
}
