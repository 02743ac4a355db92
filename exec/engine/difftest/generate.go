package difftest

import (
	"fmt"
	"math/rand/v2"

	"github.com/eddysql/eddy/catalog/types"
)

// Generation parameters. They are small so that a run of the whole corpus
// at three parallelisms stays within seconds, yet large enough that every
// group sees several changes in several rounds.
const (
	rounds   = 6    // ingestion rounds; views see each as incremental changes
	bidRows  = 1200 // bids at scale 1, 200 a round in two INSERTs
	evRows   = 420  // ev rows at scale 1, 70 a round
	persons  = 50   // person ids 1..persons
	auctions = 25   // auction ids 1000..1024 exist; bids also name 1025..1029
	upserts  = 16   // person upserts a round after the first, at scale 1
	// bidStep is the mean gap between bids; at scale 1, bids span five
	// minutes, thirty 10-second windows.
	bidStep = 250
)

// epochBase is where bid times start: 2024-03-01 10:00:00 UTC.
var epochBase = mustTimestamp("2024-03-01 10:00:00")

// flushAfter says after which rounds a FLUSH runs (besides the last): the
// other rounds reach the views together with the next one.
var flushAfter = map[int]bool{1: true, 3: true}

// Generate returns the input of every corpus entry: the same seed and
// scale always give the same rows in the same rounds. Scale multiplies the
// number of stream rows and person upserts (1 is what TestOracle uses;
// larger scales look for bugs that need more data).
func Generate(seed uint64, scale int) *Data {
	d := &Data{Sources: []*Source{bidSource, personSource, auctionSource, evSource}}
	bids := split(genBids(newRand(seed, "bid"), bidRows*scale), rounds)
	evs := split(genEv(newRand(seed, "ev"), evRows*scale), rounds)
	people := genPersonRounds(newRand(seed, "person"), upserts*scale)
	aucts := genAuctionRounds(newRand(seed, "auction"))
	for r := range rounds {
		half := len(bids[r]) / 2
		d.Rounds = append(d.Rounds, Round{
			Tables:  []Batch{{"person", people[r]}, {"auction", aucts[r]}},
			Streams: []Batch{{"bid", bids[r][:half]}, {"ev", evs[r]}, {"bid", bids[r][half:]}},
			Flush:   flushAfter[r],
		})
	}
	return d
}

// mustTimestamp parses a timestamp literal of the generator.
func mustTimestamp(s string) int64 {
	ms, err := types.ParseTimestamp(s)
	if err != nil {
		panic(err)
	}
	return ms
}

var (
	channels   = []string{"apple", "google", "facebook", "baidu", "Apple"}
	channelW   = []int{30, 30, 20, 15, 5}
	urlWords   = []string{"item", "sale", "promo", "deal", "gift"}
	cities     = []string{"Boise", "Portland", "Seattle", "Bend", "Kent", "San Francisco"}
	states     = []string{"ID", "OR", "WA", "CA"}
	evKeys     = []string{"a", "b", "c", "A", ""}
	evKeyW     = []int{50, 20, 10, 5, 5}
	evStrings  = []string{"Alpha", "beta gamma", "  padded  ", "x_y%z", "MiXeD case", "alpha", "a,b,c", "naïve café", "日本語"}
	firstNames = []string{"ann", "bob", "cid", "dee", "eve", "fay", "gus", "hal", "ivy", "jon"}
)

// genBids returns the bid stream in arrival order. Times are unique; about
// one bid in ten swaps places with the next, so arrival is out of order by
// at most 2 × bidStep (well inside the 4-second watermark delay: no bid is
// late).
func genBids(r *rand.Rand, n int) []Row {
	rows := make([]Row, n)
	for i := range rows {
		auction := 1000 + int64(r.IntN(r.IntN(30)+1))
		bidder := int64(1 + r.IntN(60))
		if r.IntN(10) < 3 {
			bidder = int64(1 + r.IntN(5))
		}
		price := pick(r, []int64{int64(1 + r.IntN(1000)), int64(1000 + r.IntN(9000)), int64(10000 + r.IntN(90000))}, []int{70, 25, 5})
		url := fmt.Sprintf("https://www.nexmark.com/%s/%s.htm?query=%d", pick(r, urlWords, []int{1, 1, 1, 1, 1}),
			pick(r, urlWords, []int{3, 1, 1, 1, 1}), 1+r.IntN(3))
		ts := epochBase + int64(i*bidStep+r.IntN(bidStep))
		rows[i] = Row{Int(auction), Int(bidder), Int(price), Str(pick(r, channels, channelW)), Str(url), Time(ts)}
	}
	for i := 0; i+1 < len(rows); i++ {
		if r.IntN(10) == 0 {
			rows[i], rows[i+1] = rows[i+1], rows[i]
			i++
		}
	}
	return rows
}

// genEv returns the ev stream. Decimals have a non-zero last digit so that
// no ROUND to 0, 1 or 2 places is a tie (SQLite rounds the nearest double,
// eddy the exact decimal); doubles have two decimals.
func genEv(r *rand.Rand, n int) []Row {
	rows := make([]Row, n)
	for i := range rows {
		g := maybeNull(r, 15, Int(int64(r.IntN(11)-5)))
		x := maybeNull(r, 15, Float(float64(r.IntN(20001)-10000)/100))
		dm := r.IntN(100000)*10 + 1 + r.IntN(9)
		if dm%10 == 5 {
			dm++
		}
		sign := ""
		if r.IntN(3) == 0 {
			sign = "-"
		}
		dec := maybeNull(r, 15, Dec(fmt.Sprintf("%s%d.%03d", sign, dm/1000, dm%1000)))
		s := maybeNull(r, 10, Str(evStrings[r.IntN(len(evStrings))]))
		if r.IntN(20) == 0 {
			s = Str("")
		}
		var ts Value
		switch n := r.IntN(20); {
		case n == 0:
			ts = Null
		case n < 4: // around the epoch, on both sides
			ts = Time(int64(r.IntN(20000) - 10000))
		default:
			ts = Time(epochBase + int64(r.IntN(300000)))
		}
		day := Null
		if r.IntN(10) > 0 {
			day = Date(epochBase - epochBase%types.MsPerDay + int64(r.IntN(9)-5)*types.MsPerDay)
			if r.IntN(15) == 0 {
				day = Date(-types.MsPerDay)
			}
		}
		rows[i] = Row{Int(int64(i + 1)), maybeNull(r, 10, Str(pick(r, evKeys, evKeyW))), g, x, dec, s,
			maybeNull(r, 10, Bool(r.IntN(2) == 0)), ts, day}
	}
	return rows
}

// person is the mutable state of one generated person.
type person struct {
	id             int64
	name, email    string
	city, state    Value
	credit         int64 // cents
	active         bool
	joined         int64
	everRegistered bool
}

// row returns the person as a row of the person table.
func (p *person) row() Row {
	return Row{Int(p.id), Str(p.name), Str(p.email), p.city, p.state,
		Dec(fmt.Sprintf("%d.%02d", p.credit/100, p.credit%100)), Bool(p.active), Time(p.joined)}
}

// credit returns a credit in cents whose last digit is neither 0 nor 5, so
// that rounding a credit to 0 or 1 places is never a tie (see genEv).
func credit(r *rand.Rand) int64 {
	return int64(r.IntN(100000))*10 + []int64{1, 2, 3, 4, 6, 7, 8, 9}[r.IntN(8)]
}

// genPersonRounds returns the person upserts of each round: ids 1..30 in
// the first round (id 7 twice in one INSERT: the second row wins), then
// perRound upserts a round that add people, move them, change their credit,
// deactivate and reactivate them, or repeat a row unchanged.
func genPersonRounds(r *rand.Rand, perRound int) [][]Row {
	ps := make([]*person, persons+1)
	for id := 1; id <= persons; id++ {
		ps[id] = &person{id: int64(id), name: fmt.Sprintf("%s_%02d", firstNames[id%len(firstNames)], id),
			email: fmt.Sprintf("p%d@example.com", id), city: maybeNull(r, 10, Str(cities[r.IntN(len(cities))])),
			state: maybeNull(r, 10, Str(states[r.IntN(len(states))])), credit: credit(r),
			active: r.IntN(5) > 0, joined: epochBase - int64(r.IntN(86400000))}
	}
	out := make([][]Row, rounds)
	for id := 1; id <= 30; id++ {
		ps[id].everRegistered = true
		out[0] = append(out[0], ps[id].row())
		if id == 7 {
			first := ps[id].row()
			first[5] = Dec("1.00")
			out[0] = append(out[0][:len(out[0])-1], first, ps[id].row())
		}
	}
	for rd := 1; rd < rounds; rd++ {
		for range perRound {
			p := ps[1+r.IntN(persons)]
			switch n := r.IntN(10); {
			case !p.everRegistered, n == 0: // new, or re-sent unchanged
			case n < 4:
				p.city = maybeNull(r, 10, Str(cities[r.IntN(len(cities))]))
				p.state = maybeNull(r, 10, Str(states[r.IntN(len(states))]))
			case n < 7:
				p.credit = credit(r)
			default:
				p.active = !p.active
			}
			p.everRegistered = true
			out[rd] = append(out[rd], p.row())
		}
	}
	return out
}

// genAuctionRounds returns the auction upserts of each round: the first
// fifteen auctions at once, then the rest a few at a time, with reserves
// (sometimes to NULL) and categories changing.
func genAuctionRounds(r *rand.Rand) [][]Row {
	type auction struct{ seller, category, reserve, expires int64 }
	as := make([]auction, auctions)
	for i := range as {
		as[i] = auction{int64(1 + r.IntN(persons)), int64(10 + r.IntN(5)), int64(100 * r.IntN(50)),
			epochBase + int64(r.IntN(300000))}
	}
	row := func(i int) Row {
		a := as[i]
		reserve := Int(a.reserve)
		if a.reserve < 0 {
			reserve = Null
		}
		return Row{Int(int64(1000 + i)), Int(a.seller), Int(a.category), reserve, Time(a.expires)}
	}
	out := make([][]Row, rounds)
	for i := range 15 {
		out[0] = append(out[0], row(i))
	}
	next := 15
	for rd := 1; rd < rounds; rd++ {
		for range 2 {
			if next < auctions {
				out[rd] = append(out[rd], row(next))
				next++
			}
		}
		for range 3 {
			i := r.IntN(next)
			switch r.IntN(4) {
			case 0:
				as[i].reserve = -1 // no reserve: NULL
			case 1:
				as[i].reserve = int64(100 * r.IntN(50))
			default:
				as[i].category = int64(10 + r.IntN(5))
			}
			out[rd] = append(out[rd], row(i))
		}
	}
	return out
}
