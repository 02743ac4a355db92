package catalog_test

import (
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/storage/mem"
)

// TestTraitsComeFromTheDescriber checks that a source gets its traits
// from the catalog's Describer when it is created and again when the
// catalog is loaded, that they are not stored (a catalog opened with
// another describer, as a newer eddy's connectors, gets that one's), and
// that objects other than sources are not described.
func TestTraitsComeFromTheDescriber(t *testing.T) {
	describe := func(rows float64) catalog.Describer {
		return func(o *catalog.Object) catalog.SourceTraits {
			if o.Options["gen"] == "" {
				return catalog.SourceTraits{}
			}
			return catalog.SourceTraits{Bounded: true, Splittable: true, Generated: true, Rows: rows}
		}
	}
	db := mem.New()
	cat, err := catalog.Open(db.KV(), describe(10))
	if err != nil {
		t.Fatal(err)
	}
	cols := []catalog.Column{{Name: "a", Type: types.BigIntT, Nullable: true}}
	g := &catalog.Object{Name: "g", Kind: catalog.Stream, Columns: cols, Options: map[string]string{"gen": "x"}}
	in := &catalog.Object{Name: "in", Kind: catalog.Stream, Columns: cols}
	v := &catalog.Object{Name: "v", Kind: catalog.View, Columns: cols, Query: "SELECT a FROM g", DependsOn: []string{"g"},
		Options: map[string]string{"gen": "x"}}
	for _, o := range []*catalog.Object{g, in, v} {
		if err := cat.Create(o); err != nil {
			t.Fatal(err)
		}
	}
	want := catalog.SourceTraits{Bounded: true, Splittable: true, Generated: true, Rows: 10}
	if g.Traits != want || in.Traits != (catalog.SourceTraits{}) || v.Traits != (catalog.SourceTraits{}) {
		t.Fatalf("after create: g %+v, in %+v, v %+v", g.Traits, in.Traits, v.Traits)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db2, err := db.Reopen()
	if err != nil {
		t.Fatal(err)
	}
	var stored strings.Builder
	if err := db2.KV().Scan([]byte("catalog/object/"), func(k, v []byte) error {
		stored.Write(v)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if s := stored.String(); strings.Contains(s, "Bounded") || strings.Contains(s, "traits") {
		t.Fatalf("traits are stored: %s", s)
	}
	cat2, err := catalog.Open(db2.KV(), describe(20))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := cat2.Get("g")
	if want.Rows = 20; got.Traits != want {
		t.Fatalf("after reopen: %+v, want %+v", got.Traits, want)
	}
	cat3, err := catalog.Open(db2.KV(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := cat3.Get("g"); got.Traits != (catalog.SourceTraits{}) {
		t.Fatalf("without a describer: %+v", got.Traits)
	}
}
