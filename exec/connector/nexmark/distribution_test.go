package nexmark

import (
	"math/bits"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
)

// distEvents is the length of the sequences the distribution tests draw
// from: 92,000 bids, 6,000 auctions and 2,000 persons.
const distEvents = 100_000

// distRows returns the rows of table among the first distEvents events of
// seed, and the event number of each row.
func distRows(t *testing.T, table string, seed int64) ([][]types.Datum, []uint64) {
	t.Helper()
	cfg := testConfig(table, distEvents)
	cfg.Seed = seed
	k, ok := tableKind(table)
	if !ok {
		t.Fatalf("no table %s", table)
	}
	return readAll(t, cfg), splitEvents(k, 0, 1, distEvents)
}

// TestBidDistributions checks the skew and shapes of 100K events' bids
// against NEXMARK.md §1.4, §1.7 and §1.8.
func TestBidDistributions(t *testing.T) {
	rows, ns := distRows(t, TableBid, 3)
	total := float64(len(rows))

	var hotAuction, hotBidder, hotChannel, numbered, withID int
	var decades [6]int
	var extraSum int
	url := regexp.MustCompile(`^https://www\.nexmark\.com/[a-z_]{3,4}/[a-z_]{3,4}/[a-z_]{3,4}/item\.htm\?query=1(&channel_id=([0-9]+))?$`)
	hotURLs := map[string]string{}
	for i, r := range rows {
		n := ns[i]
		if r[bidAuction].I == lastBase0AuctionID(n)/hotBlock*hotBlock+firstAuctionID {
			hotAuction++
		}
		if r[bidBidder].I == lastBase0PersonID(n)/hotBlock*hotBlock+1+firstPersonID {
			hotBidder++
		}
		p := r[bidPrice].I
		if p < 100 || p > 100_000_000 {
			t.Fatalf("bid %d: price %d outside [100, 1e8]", i, p)
		}
		decades[min(len(strconv.FormatInt(p, 10))-3, 5)]++

		ch, u := r[bidChannel].S, r[bidURL].S
		m := url.FindStringSubmatch(u)
		if m == nil {
			t.Fatalf("bid %d: url %q", i, u)
		}
		if slices.Contains(hotChannels[:], ch) {
			hotChannel++
			if m[1] != "" {
				t.Fatalf("bid %d: hot channel %s with a channel_id: %q", i, ch, u)
			}
			if prev, ok := hotURLs[ch]; ok && prev != u {
				t.Fatalf("hot channel %s has URLs %q and %q", ch, prev, u)
			}
			hotURLs[ch] = u
		} else {
			num, ok := strings.CutPrefix(ch, "channel-")
			c, err := strconv.Atoi(num)
			if !ok || err != nil || c < 0 || c >= channelsNumber {
				t.Fatalf("bid %d: channel %q", i, ch)
			}
			numbered++
			if m[1] != "" {
				withID++
				id := int64(int32(bits.Reverse32(uint32(c))))
				if want := strconv.FormatInt(max(id, -id), 10); m[2] != want {
					t.Fatalf("bid %d: channel %d has channel_id %s, want %s", i, c, m[2], want)
				}
			}
		}
		e := len(r[bidExtra].S)
		if e < 54 || e >= 82 {
			t.Fatalf("bid %d: extra of %d bytes, want [54, 82)", i, e)
		}
		if strings.Trim(r[bidExtra].S, "abcdefghijklmnopqrstuvwxyz") != "" {
			t.Fatalf("bid %d: extra %q", i, r[bidExtra].S)
		}
		extraSum += e
	}
	// A random auction or bidder equals the hot one now and then (1 in
	// ~111 and ~1010 draws), a little above 1/2 and 3/4.
	within(t, "hot auction share", float64(hotAuction)/total, 0.5+0.5/111, 0.01)
	within(t, "hot bidder share", float64(hotBidder)/total, 0.75, 0.01)
	for d, c := range decades {
		within(t, "share of prices in decade $"+strconv.Itoa(int(pow10(d))), float64(c)/total, 1.0/6, 0.01)
	}
	within(t, "hot channel share", float64(hotChannel)/total, 0.5, 0.01)
	if len(hotURLs) != len(hotChannels) {
		t.Errorf("%d hot channels seen, want %d", len(hotURLs), len(hotChannels))
	}
	within(t, "share of channel URLs with a channel_id", float64(withID)/float64(numbered), 0.9, 0.02)
	// The extra is uniform in [68-14, 68+14): mean 67.5, so rows average
	// 100 bytes with the 32 of the other fields.
	within(t, "mean bid extra length", float64(extraSum)/total, 67.5, 0.3)
}

func pow10(d int) int64 {
	p := int64(1)
	for range d {
		p *= 10
	}
	return p
}

// TestAuctionDistributions checks categories, prices, expiry and sizes of
// 100K events' auctions.
func TestAuctionDistributions(t *testing.T) {
	rows, ns := distRows(t, TableAuction, 4)
	total := float64(len(rows))
	var cats [numCategories]int
	var hotSeller, life, size int64
	for i, r := range rows {
		n := ns[i]
		cats[r[auctionCategory].I-firstCategoryID]++
		if r[auctionSeller].I == lastBase0PersonID(n)/hotBlock*hotBlock+firstPersonID {
			hotSeller++
		}
		ib, res := r[auctionInitialBid].I, r[auctionReserve].I
		if ib < 100 || ib > 1e8 || res < ib+100 || res > ib+1e8 {
			t.Fatalf("auction %d: initial bid %d, reserve %d", i, ib, res)
		}
		d := r[auctionExpires].I - r[auctionDateTime].I
		if d < 1 || d > 2*167 {
			t.Fatalf("auction %d: lasts %d ms", i, d)
		}
		life += d
		item, desc := r[auctionItemName].S, r[auctionDescription].S
		if len(item) > 19 || len(desc) > 99 || strings.TrimSpace(item) != item || strings.TrimSpace(desc) != desc {
			t.Fatalf("auction %d: item %q, description %q", i, item, desc)
		}
		size += int64(8 + len(item) + len(desc) + 40 + len(r[auctionExtra].S))
	}
	for c, k := range cats {
		within(t, "share of category "+strconv.Itoa(firstCategoryID+c), float64(k)/total, 0.2, 0.02)
	}
	within(t, "hot seller share", float64(hotSeller)/total, 0.75, 0.02)
	// 1666 events at 10,000/s make a horizon of 166 or 167 ms; an
	// auction lasts 1 + uniform[0, 2*horizon) ms.
	within(t, "mean auction length (ms)", float64(life)/total, 167, 3)
	within(t, "mean auction size estimate", float64(size)/total, 499.5, 2)
}

// TestPersonDistributions checks the shapes of 100K events' persons.
func TestPersonDistributions(t *testing.T) {
	rows, _ := distRows(t, TablePerson, 5)
	// Trimmed random strings of 3–6 and 3–4 characters (shorter when a
	// space was trimmed off).
	email := regexp.MustCompile(`^([a-z]([a-z ]{0,4}[a-z])?)?@([a-z]([a-z ]{0,2}[a-z])?)?\.com$`)
	card := regexp.MustCompile(`^[0-9]{4} [0-9]{4} [0-9]{4} [0-9]{4}$`)
	var size int64
	cityCount := map[string]int{}
	for i, r := range rows {
		if r[personID].I != int64(1000+i) {
			t.Fatalf("person %d has id %d", i, r[personID].I)
		}
		first, last, ok := strings.Cut(r[personName].S, " ")
		if !ok || !slices.Contains(firstNames, first) || !slices.Contains(lastNames, last) {
			t.Fatalf("person %d: name %q", i, r[personName].S)
		}
		if e := r[personEmail].S; !email.MatchString(e) {
			t.Fatalf("person %d: email %q", i, e)
		}
		if !card.MatchString(r[personCreditCard].S) {
			t.Fatalf("person %d: credit card %q", i, r[personCreditCard].S)
		}
		if !slices.Contains(cities, r[personCity].S) || !slices.Contains(states, r[personState].S) {
			t.Fatalf("person %d: %s, %s", i, r[personCity].S, r[personState].S)
		}
		cityCount[r[personCity].S]++
		size += int64(8 + len(r[personName].S) + len(r[personEmail].S) + len(r[personCreditCard].S) +
			len(r[personCity].S) + len(r[personState].S) + len(r[personExtra].S))
	}
	if len(cityCount) != len(cities) {
		t.Errorf("%d cities seen, want %d", len(cityCount), len(cities))
	}
	within(t, "mean person size estimate", float64(size)/float64(len(rows)), 199.5, 2)
}
