package catalog_test

import (
	"testing"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/mem"
)

// openCatalog opens a catalog over kv, failing t on an error.
func openCatalog(t *testing.T, kv storage.KV) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.Open(kv, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// reopen closes db and opens it again with a catalog over its contents,
// as a process started after db's would.
func reopen(t *testing.T, db *mem.DB) (*mem.DB, *catalog.Catalog) {
	t.Helper()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db2, err := db.Reopen()
	if err != nil {
		t.Fatal(err)
	}
	return db2, openCatalog(t, db2.KV())
}
