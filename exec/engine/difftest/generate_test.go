package difftest

import (
	"testing"

	"github.com/eddysql/eddy/catalog/types"
)

// TestGenerate checks the promises the corpus relies on: the same seed
// gives the same data; bid times are unique and never late for a
// 4-second watermark delay; a table's final rows are its latest per key;
// the versions of a table hold its state at the end of each round.
func TestGenerate(t *testing.T) {
	a, b := Generate(7, 1), Generate(7, 1)
	for _, s := range a.Sources {
		ra, _ := a.History(s.Name)
		rb, _ := b.History(s.Name)
		if insertSQL(Batch{s.Name, ra}) != insertSQL(Batch{s.Name, rb}) {
			t.Errorf("%s differs between two runs with one seed", s.Name)
		}
	}
	bids, _ := a.History("bid")
	seen := map[int64]bool{}
	var maxTime int64
	for _, r := range bids {
		ts := r[bidSource.col("date_time")].I
		if seen[ts] {
			t.Errorf("two bids at %s", types.FormatTimestamp(ts, 3))
		}
		seen[ts] = true
		if ts < maxTime-4000 {
			t.Errorf("bid at %s is late after %s", types.FormatTimestamp(ts, 3), types.FormatTimestamp(maxTime, 3))
		}
		maxTime = max(maxTime, ts)
	}
	final := a.Final("person")
	latest := map[int64]Row{}
	rows, _ := a.History("person")
	for _, r := range rows {
		latest[r[0].I] = r
	}
	if len(final) != len(latest) {
		t.Errorf("person holds %d rows, want %d", len(final), len(latest))
	}
	for _, r := range final {
		if insertSQL(Batch{"person", []Row{r}}) != insertSQL(Batch{"person", []Row{latest[r[0].I]}}) {
			t.Errorf("person %d is not its latest row", r[0].I)
		}
	}
	versions, rounds := a.AsOfRounds("person")
	last := map[int64]int{}
	for i, r := range versions {
		if rounds[i] < last[r[0].I] {
			t.Errorf("person %d: versions out of order", r[0].I)
		}
		last[r[0].I] = rounds[i]
	}
	if v := versions[6]; v[0].I != 7 || v[5].S == "1.00" {
		t.Errorf("person 7's version of round 0 is %v, want its second row of the INSERT", v)
	}
}
