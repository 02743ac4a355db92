package main

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"time"
)

// TestGenerateDeterministic checks that one seed always gives the same
// bytes and another seed other bytes.
func TestGenerateDeterministic(t *testing.T) {
	read := func(seed uint64) []byte {
		ds, err := Generate(t.TempDir(), 500, seed)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(ds.Bids)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	a, b, c := read(7), read(7), read(8)
	if !bytes.Equal(a, b) {
		t.Error("the same seed gave different bids")
	}
	if bytes.Equal(a, c) {
		t.Error("different seeds gave the same bids")
	}
}

// TestGenerateShape checks the bids' fields, that event time never goes
// back, and that it advances about one second per 1,000 bids.
func TestGenerateShape(t *testing.T) {
	const rows = 10_000
	ds, err := Generate(t.TempDir(), rows, 1)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(ds.Bids)
	if err != nil {
		t.Fatal(err)
	}
	type bid struct {
		Auction, Bidder, Price int64
		Channel, URL, Extra    string
		DateTime               string `json:"date_time"`
	}
	var first, prev time.Time
	n := 0
	for line := range bytes.Lines(data) {
		var b bid
		if err := json.Unmarshal(line, &b); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		ts, err := time.Parse("2006-01-02 15:04:05.000", b.DateTime)
		if err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		if n == 0 {
			first = ts
		} else if ts.Before(prev) {
			t.Fatalf("line %d: date_time %s before %s", n+1, ts, prev)
		}
		if b.Auction < firstAuctionID || b.Auction >= firstAuctionID+auctionCount+unknownAuctions ||
			b.Price < 1 || b.Channel == "" || b.URL == "" || b.Extra == "" {
			t.Fatalf("line %d: bad bid %+v", n+1, b)
		}
		prev = ts
		n++
	}
	if n != rows {
		t.Fatalf("%d bids, want %d", n, rows)
	}
	if span := prev.Sub(first); span < 9*time.Second || span > 11*time.Second {
		t.Errorf("%d bids span %s of event time, want about 10 s", rows, span)
	}
	auctions, err := os.ReadFile(ds.Auctions)
	if err != nil {
		t.Fatal(err)
	}
	if got := bytes.Count(auctions, []byte("\n")); got != auctionCount {
		t.Errorf("%d auctions, want %d", got, auctionCount)
	}
}
