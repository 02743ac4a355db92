package catalog_test

import (
	"testing"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/storage/mem"
)

func TestCatalogPersistsAndGuardsDependencies(t *testing.T) {
	db := mem.New()
	cat := openCatalog(t, db.KV())
	bid := &catalog.Object{Name: "Bid", Kind: catalog.Stream, Columns: []catalog.Column{
		{Name: "price", Type: types.BigIntT, Nullable: true},
		{Name: "ts", Type: types.TimestampT(3), Nullable: true},
	}}
	if err := cat.Create(bid); err != nil {
		t.Fatal(err)
	}
	if err := cat.Create(&catalog.Object{Name: "bid", Kind: catalog.Table}); !catalog.IsCode(err, catalog.ErrExists) {
		t.Fatalf("names are case-insensitive: %v", err)
	}
	v := &catalog.Object{Name: "v", Kind: catalog.View, Query: "SELECT price FROM bid", DependsOn: []string{"bid"},
		Columns: []catalog.Column{{Name: "price", Type: types.BigIntT}}}
	if err := cat.Create(v); err != nil {
		t.Fatal(err)
	}
	if err := cat.Create(&catalog.Object{Name: "w", Kind: catalog.View, DependsOn: []string{"nope"}}); !catalog.IsCode(err, catalog.ErrNotFound) {
		t.Fatalf("a dependency must exist: %v", err)
	}
	if _, err := cat.Drop("bid", catalog.Stream); !catalog.IsCode(err, catalog.ErrHasDependents) {
		t.Fatalf("drop with a dependent view: %v", err)
	}
	if _, err := cat.Drop("v", catalog.Stream); !catalog.IsCode(err, catalog.ErrWrongKind) {
		t.Fatalf("drop with the wrong kind: %v", err)
	}

	// Reopen: every object, its types and its ID come back, and new IDs
	// never reuse old ones.
	_, cat2 := reopen(t, db)
	got, ok := cat2.Get("BID")
	if !ok || got.ID != bid.ID || got.Columns[1].Type != types.TimestampT(3) {
		t.Fatalf("after reopen: %+v", got)
	}
	order := cat2.InCreationOrder()
	if len(order) != 2 || order[0].Name != "Bid" || order[1].Name != "v" {
		t.Fatalf("creation order: %v", order)
	}
	if _, err := cat2.Drop("v", catalog.View); err != nil {
		t.Fatal(err)
	}
	if _, err := cat2.Drop("bid", catalog.Stream); err != nil {
		t.Fatal(err)
	}
	x := &catalog.Object{Name: "x", Kind: catalog.Stream}
	if err := cat2.Create(x); err != nil {
		t.Fatal(err)
	}
	if x.ID <= v.ID {
		t.Fatalf("IDs must not be reused: %d after %d", x.ID, v.ID)
	}
	if len(cat2.List(0)) != 1 {
		t.Fatalf("list: %v", cat2.List(0))
	}
}

// TestSetSettingsPersistsAndReplaces: SetSettings replaces the object
// with one holding the new settings, leaves the old one as it was (a
// reader of it sees one consistent object), and persists the change.
func TestSetSettingsPersistsAndReplaces(t *testing.T) {
	db := mem.New()
	cat := openCatalog(t, db.KV())
	v := &catalog.Object{Name: "v", Kind: catalog.View, Query: "SELECT 1", Settings: &catalog.QuerySettings{Parallelism: 1}}
	if err := cat.Create(v); err != nil {
		t.Fatal(err)
	}
	got, err := cat.SetSettings("V", catalog.QuerySettings{Parallelism: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got == v || got.ID != v.ID || got.Settings.Parallelism != 3 || v.Settings.Parallelism != 1 {
		t.Fatalf("SetSettings returned %+v (settings %+v); the old object has %+v", got, got.Settings, v.Settings)
	}
	if now, _ := cat.Get("v"); now != got {
		t.Fatalf("the catalog holds %p, SetSettings returned %p", now, got)
	}
	if _, err := cat.SetSettings("nope", catalog.QuerySettings{}); !catalog.IsCode(err, catalog.ErrNotFound) {
		t.Fatalf("SetSettings of an unknown object: %v", err)
	}
	_, cat2 := reopen(t, db)
	if o, ok := cat2.Get("v"); !ok || o.Settings == nil || o.Settings.Parallelism != 3 || o.ID != v.ID {
		t.Fatalf("after reopen: %+v", o)
	}
	x := &catalog.Object{Name: "x", Kind: catalog.Stream}
	if err := cat2.Create(x); err != nil || x.ID <= v.ID {
		t.Fatalf("an ID after SetSettings: %d (v has %d): %v", x.ID, v.ID, err)
	}
}
