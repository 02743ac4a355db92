package catalog_test

import (
	"testing"
	"time"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/storage/mem"
)

func TestStatsPersistAndDropWithTheirObject(t *testing.T) {
	db := mem.New()
	cat := openCatalog(t, db.KV())
	cols := []catalog.Column{{Name: "Price", Type: types.BigIntT, Nullable: true}}
	for _, o := range []*catalog.Object{
		{Name: "bid", Kind: catalog.Stream, Columns: cols},
		{Name: "keep", Kind: catalog.Table, Columns: cols, PrimaryKey: []int{0}},
		{Name: "v", Kind: catalog.View, Columns: cols, Query: "SELECT price FROM bid", DependsOn: []string{"bid"}},
	} {
		if err := cat.Create(o); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := cat.Stats("bid"); ok {
		t.Fatal("a new stream has no statistics")
	}
	at := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	want := catalog.Stats{Rows: 10, RowsPerSec: 5, RowBytes: 9, Source: catalog.StatsAnalyze, Updated: at,
		Columns: map[string]catalog.ColumnStats{"price": {Distinct: 3, NullFrac: 0.1, Sketch: []byte{1, 2}}}}
	if err := cat.SetStats("BID", want); err != nil {
		t.Fatal(err)
	}
	if err := cat.SetStats("keep", catalog.Stats{Rows: 1, Source: catalog.StatsAnalyze, Updated: at}); err != nil {
		t.Fatal(err)
	}
	if err := cat.SetStats("v", want); !catalog.IsCode(err, catalog.ErrWrongKind) {
		t.Fatalf("statistics of a view: %v", err)
	}
	if err := cat.SetStats("nope", want); !catalog.IsCode(err, catalog.ErrNotFound) {
		t.Fatalf("statistics of a missing object: %v", err)
	}

	// The copy handed out is the caller's own.
	got, ok := cat.Stats("bid")
	if !ok || got.Rows != 10 {
		t.Fatalf("stats: %+v %v", got, ok)
	}
	got.Columns["price"] = catalog.ColumnStats{}
	if c, _ := cat.Stats("bid"); c.Columns["price"].Distinct != 3 {
		t.Fatal("Stats must return a copy of the columns")
	}
	if c, ok := got.Column("PRICE"); !ok || c.Distinct != 0 {
		t.Fatalf("Column is case-insensitive: %+v %v", c, ok)
	}

	// UpdateStats refuses figures meant for another incarnation of a name.
	bid, _ := cat.Get("bid")
	err := cat.UpdateStats("bid", bid.ID+100, func(old catalog.Stats, ok bool) catalog.Stats { return old })
	if !catalog.IsCode(err, catalog.ErrNotFound) {
		t.Fatalf("a stale ID: %v", err)
	}
	err = cat.UpdateStats("bid", bid.ID, func(old catalog.Stats, ok bool) catalog.Stats {
		if !ok || old.Rows != 10 {
			t.Errorf("UpdateStats sees the current figures: %+v %v", old, ok)
		}
		old.RowsPerSec = 7
		return old
	})
	if err != nil {
		t.Fatal(err)
	}

	// Reopen: the statistics come back.
	db2, cat2 := reopen(t, db)
	got, ok = cat2.Stats("bid")
	if !ok || got.Rows != 10 || got.RowsPerSec != 7 || got.RowBytes != 9 || got.Source != catalog.StatsAnalyze ||
		!got.Updated.Equal(at) || got.Columns["price"].NullFrac != 0.1 || len(got.Columns["price"].Sketch) != 2 {
		t.Fatalf("after reopen: %+v %v", got, ok)
	}

	// Dropping an object drops its statistics, also from the store; a new
	// object of the same name starts without any.
	if _, err := cat2.Drop("v", catalog.View); err != nil {
		t.Fatal(err)
	}
	if _, err := cat2.Drop("bid", catalog.Stream); err != nil {
		t.Fatal(err)
	}
	if err := cat2.Create(&catalog.Object{Name: "bid", Kind: catalog.Stream, Columns: cols}); err != nil {
		t.Fatal(err)
	}
	if s, ok := cat2.Stats("bid"); ok {
		t.Fatalf("a re-created stream inherited statistics: %+v", s)
	}
	n := 0
	if err := db2.KV().Scan([]byte("catalog/stats/"), func(k, v []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("stored statistics after the drop: %d, want 1 (keep's)", n)
	}
}

// TestStatsOfMissingObjectsAreDeletedOnOpen covers statistics left behind
// by a drop that stopped between its two deletes.
func TestStatsOfMissingObjectsAreDeletedOnOpen(t *testing.T) {
	db := mem.New()
	if err := db.KV().Put([]byte("catalog/stats/2a"), []byte(`{"rows":1}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := catalog.Open(db.KV(), nil); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := db.KV().Get([]byte("catalog/stats/2a")); ok {
		t.Fatal("orphaned statistics survived Open")
	}
}
