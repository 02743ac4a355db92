package catalog_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/mem"
)

// entries returns every key and value the catalog stored.
func entries(t *testing.T, kv storage.KV) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := kv.Scan(nil, func(k, v []byte) error {
		out[string(k)] = bytes.Clone(v)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// filled returns a store holding a stream with statistics and a view.
func filled(t *testing.T) storage.KV {
	t.Helper()
	kv := mem.New().KV()
	cat := openCatalog(t, kv)
	s := &catalog.Object{Name: "S", Kind: catalog.Stream, Columns: []catalog.Column{{Name: "a", Type: types.BigIntT}}}
	if err := cat.Create(s); err != nil {
		t.Fatal(err)
	}
	if err := cat.SetStats("s", catalog.Stats{Rows: 7}); err != nil {
		t.Fatal(err)
	}
	v := &catalog.Object{Name: "v", Kind: catalog.View, Query: "SELECT a FROM s", DependsOn: []string{"s"},
		Columns: []catalog.Column{{Name: "a", Type: types.BigIntT}}}
	if err := cat.Create(v); err != nil {
		t.Fatal(err)
	}
	return kv
}

// TestCatalogRefusesDamagedEntries flips bytes of every stored catalog
// entry in turn: opening the catalog must fail with an error wrapping
// storage.ErrCorrupt that names the entry, never open without an object.
func TestCatalogRefusesDamagedEntries(t *testing.T) {
	for key, val := range entries(t, filled(t)) {
		for _, off := range []int{0, 1, 4, len(val) / 2, len(val) - 1} {
			kv := filled(t)
			bad := bytes.Clone(val)
			bad[off] ^= 0x20
			if err := kv.Put([]byte(key), bad); err != nil {
				t.Fatal(err)
			}
			_, err := catalog.Open(kv, nil)
			if !errors.Is(err, storage.ErrCorrupt) || !strings.Contains(err.Error(), key) {
				t.Errorf("%s with byte %d flipped: %v", key, off, err)
			}
		}
		kv := filled(t)
		if err := kv.Put([]byte(key), nil); err != nil {
			t.Fatal(err)
		}
		if _, err := catalog.Open(kv, nil); !errors.Is(err, storage.ErrCorrupt) {
			t.Errorf("%s emptied: %v", key, err)
		}
	}
}

// TestCatalogReadsUnsealedEntries checks that a catalog written before
// entries were sealed still opens, and that an unsealed entry is checked
// for what it describes.
func TestCatalogReadsUnsealedEntries(t *testing.T) {
	kv := mem.New().KV()
	put := func(k, v string) {
		if err := kv.Put([]byte(k), []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	put("catalog/next_id", string(binary.BigEndian.AppendUint64(nil, 3)))
	put("catalog/object/s", `{"id":1,"name":"s","kind":1,"columns":[{"name":"a","type":"BIGINT","nullable":true}]}`)
	put("catalog/stats/1", `{"rows":5}`)
	cat := openCatalog(t, kv)
	if o, ok := cat.Get("s"); !ok || o.ID != 1 {
		t.Fatalf("the unsealed object: %+v", o)
	}
	x := &catalog.Object{Name: "x", Kind: catalog.Stream}
	if err := cat.Create(x); err != nil || x.ID != 3 {
		t.Fatalf("the next ID after an unsealed one: %d, %v", x.ID, err)
	}

	put("catalog/object/t", `{"id":9,"name":"s","kind":1}`)
	if _, err := catalog.Open(kv, nil); !errors.Is(err, storage.ErrCorrupt) || !strings.Contains(err.Error(), `"catalog/object/t"`) {
		t.Fatalf("an entry describing another object: %v", err)
	}
}
