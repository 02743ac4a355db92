package nexmark

import (
	"reflect"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
)

var tables = []string{TableBid, TableAuction, TablePerson}

// TestDeterminism checks that the same config gives the same rows from two
// sources, whatever the batch size, and that another seed changes the
// random fields but not the ids and timestamps.
func TestDeterminism(t *testing.T) {
	for _, table := range tables {
		t.Run(table, func(t *testing.T) {
			cfg := testConfig(table, 20_000)
			cfg.Seed = 42
			a, b := readAll(t, cfg), readAll(t, cfg)
			if !reflect.DeepEqual(a, b) {
				t.Fatal("two runs of the same config differ")
			}
			small := cfg
			small.BatchSize = 7
			if !reflect.DeepEqual(a, readAll(t, small)) {
				t.Fatal("batch size 7 gives other rows")
			}
			cfg.Seed = 43
			c := readAll(t, cfg)
			if len(c) != len(a) {
				t.Fatalf("seed 43: %d rows, seed 42: %d", len(c), len(a))
			}
			k, _ := tableKind(table)
			dt := colIndex(t, k, "date_time")
			extra := colIndex(t, k, "extra")
			differ := 0
			for i := range a {
				if a[i][dt] != c[i][dt] {
					t.Fatalf("row %d: the seed changed date_time", i)
				}
				if a[i][extra] != c[i][extra] {
					differ++
				}
			}
			if differ < len(a)*9/10 {
				t.Errorf("seed 43 changed the extra of only %d of %d rows", differ, len(a))
			}
		})
	}
}

// TestGolden pins a few values, so that a change to the generator (draw
// order, PRNG, seeding) that would silently change every run is noticed.
func TestGolden(t *testing.T) {
	cfg := testConfig(TableBid, 50)
	cfg.Columns = cols(t, TableBid, "auction", "bidder", "price", "channel", "date_time")
	rows := readAll(t, cfg)
	var got []string
	for _, r := range rows[:3] {
		got = append(got, types.Format(r[0], types.BigIntT)+" "+types.Format(r[1], types.BigIntT)+" "+
			types.Format(r[2], types.BigIntT)+" "+r[3].S+" "+types.Format(r[4], types.TimestampT(3)))
	}
	want := goldenBids
	if !reflect.DeepEqual(got, want) {
		t.Errorf("first bids of seed 0:\n got %q\nwant %q", got, want)
	}
}

// goldenBids are the first three bids of seed 0 (events 4, 5 and 6).
var goldenBids = []string{
	"1009 1001 4825967 Baidu 2015-07-15 00:00:00.000",
	"1000 1006 16109383 channel-2918 2015-07-15 00:00:00.000",
	"1001 1001 5373 channel-1657 2015-07-15 00:00:00.000",
}

// TestSplitIndependence checks that the union of the splits is the same
// sequence at parallelism 1 to 4: merging the splits' rows by event number
// gives the rows of one split, in order.
func TestSplitIndependence(t *testing.T) {
	const events = 30_011 // not a multiple of 50 nor of any P
	for _, table := range tables {
		t.Run(table, func(t *testing.T) {
			k, _ := tableKind(table)
			cfg := testConfig(table, events)
			cfg.Seed = 7
			cfg.BatchSize = 1000
			one := readAll(t, cfg)
			if want := len(splitEvents(k, 0, 1, events)); len(one) != want {
				t.Fatalf("%d rows, want %d", len(one), want)
			}
			for p := 2; p <= 4; p++ {
				merged := make([][]types.Datum, len(one))
				at := map[uint64]int{} // event number -> row of the single split
				for j, n := range splitEvents(k, 0, 1, events) {
					at[n] = j
				}
				total := 0
				for i := 0; i < p; i++ {
					rows := readSplit(t, cfg, i, p)
					ns := splitEvents(k, i, p, events)
					if len(rows) != len(ns) {
						t.Fatalf("P=%d split %d: %d rows, want %d", p, i, len(rows), len(ns))
					}
					for j, n := range ns {
						merged[at[n]] = rows[j]
					}
					total += len(rows)
				}
				if total != len(one) {
					t.Fatalf("P=%d: %d rows in all, want %d", p, total, len(one))
				}
				if !reflect.DeepEqual(merged, one) {
					for j := range one {
						if !reflect.DeepEqual(merged[j], one[j]) {
							t.Fatalf("P=%d: row %d is %v, want %v", p, j, merged[j], one[j])
						}
					}
				}
			}
		})
	}
}
