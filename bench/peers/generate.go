package main

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Dataset shape. Each constant says why it has its value.
const (
	// auctionCount is the size of the join's table: small enough to be a
	// dimension table that either engine broadcasts or builds once.
	auctionCount = 1000
	// firstAuctionID is the first auction id; ids run up from it.
	firstAuctionID = 1000
	// unknownAuctions is how many auction ids past the table bids may
	// name, so about 9 % of the bids find no auction and the inner join
	// really filters.
	unknownAuctions = 100
	// bidders is the range of bidder ids, as wide as in Nexmark's
	// default configuration.
	bidders = 100_000
	// maxPriceDecades makes prices log-uniform over [1, 10^6), as
	// Nexmark's generator draws them, so price > 100 keeps two thirds of
	// the bids.
	maxPriceDecades = 6
	// maxStepMillis bounds the event-time step between bids: a step
	// uniform in [0, maxStepMillis] averages 1 ms, that is about 1,000
	// bids per second of event time and 10,000 per 10-second window.
	maxStepMillis = 2
	// categories is the number of auction categories (Nexmark has 5; 10
	// gives the projection a little more spread).
	categories = 10
)

// startTime is the event time of the first bid.
var startTime = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// channels are the bid channels, as in Nexmark's generator.
var channels = []string{"apple", "google", "facebook", "baidu"}

// Dataset names the generated files.
type Dataset struct {
	// Dir holds both files; eddy runs with it as its file root.
	Dir string
	// Bids is the JSON-lines file of bids, Auctions the auction table's.
	Bids, Auctions string
	// Rows is the number of bids in Bids.
	Rows int
}

// Generate writes rows bids and the auction table as JSON lines into dir,
// drawn from a generator seeded with seed, so the same arguments always
// give the same bytes.
func Generate(dir string, rows int, seed uint64) (Dataset, error) {
	ds := Dataset{
		Dir:      dir,
		Bids:     filepath.Join(dir, "bids.jsonl"),
		Auctions: filepath.Join(dir, "auctions.jsonl"),
		Rows:     rows,
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	if err := writeLines(ds.Auctions, auctionCount, func(buf []byte, i int) []byte {
		return appendAuction(buf, rng, i)
	}); err != nil {
		return Dataset{}, fmt.Errorf("generating auctions: %w", err)
	}
	ts := startTime.UnixMilli()
	if err := writeLines(ds.Bids, rows, func(buf []byte, _ int) []byte {
		buf = appendBid(buf, rng, ts)
		ts += rng.Int64N(maxStepMillis + 1)
		return buf
	}); err != nil {
		return Dataset{}, fmt.Errorf("generating bids: %w", err)
	}
	return ds, nil
}

// writeLines creates path and writes n lines, the i-th made by line.
func writeLines(path string, n int, line func(buf []byte, i int) []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var buf []byte
	for i := range n {
		buf = line(buf[:0], i)
		buf = append(buf, '\n')
		if _, err := w.Write(buf); err != nil {
			f.Close()
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}

// appendBid appends one bid at event time ts (Unix milliseconds) as a
// JSON object. Every string is plain ASCII without quotes or
// backslashes, so none needs escaping.
func appendBid(buf []byte, rng *rand.Rand, ts int64) []byte {
	auction := firstAuctionID + rng.Int64N(auctionCount+unknownAuctions)
	price := int64(math.Pow(10, rng.Float64()*maxPriceDecades))
	buf = append(buf, `{"auction":`...)
	buf = strconv.AppendInt(buf, auction, 10)
	buf = append(buf, `,"bidder":`...)
	buf = strconv.AppendInt(buf, 1+rng.Int64N(bidders), 10)
	buf = append(buf, `,"price":`...)
	buf = strconv.AppendInt(buf, price, 10)
	buf = append(buf, `,"channel":"`...)
	buf = append(buf, channels[rng.IntN(len(channels))]...)
	buf = append(buf, `","url":"https://www.nexmark.com/`...)
	buf = appendWord(buf, rng, 5)
	buf = append(buf, "/item.htm?query=1&channel_id="...)
	buf = strconv.AppendInt(buf, rng.Int64N(1<<20), 10)
	buf = append(buf, `","date_time":"`...)
	buf = time.UnixMilli(ts).UTC().AppendFormat(buf, "2006-01-02 15:04:05.000")
	buf = append(buf, `","extra":"`...)
	buf = appendWord(buf, rng, 20+rng.IntN(20))
	return append(buf, `"}`...)
}

// appendAuction appends the i-th auction as a JSON object.
func appendAuction(buf []byte, rng *rand.Rand, i int) []byte {
	buf = append(buf, `{"id":`...)
	buf = strconv.AppendInt(buf, int64(firstAuctionID+i), 10)
	buf = append(buf, `,"item_name":"`...)
	buf = appendWord(buf, rng, 8+rng.IntN(8))
	buf = append(buf, `","category":`...)
	buf = strconv.AppendInt(buf, 10+rng.Int64N(categories), 10)
	buf = append(buf, `,"seller":`...)
	buf = strconv.AppendInt(buf, 1+rng.Int64N(bidders), 10)
	buf = append(buf, `,"reserve":`...)
	buf = strconv.AppendInt(buf, int64(math.Pow(10, rng.Float64()*maxPriceDecades)), 10)
	return append(buf, '}')
}

// appendWord appends n random lowercase letters.
func appendWord(buf []byte, rng *rand.Rand, n int) []byte {
	for range n {
		buf = append(buf, byte('a'+rng.IntN(26)))
	}
	return buf
}
