package storagetest

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
)

func runKV(t *testing.T, h Harness) {
	t.Run("PutGetDelete", func(t *testing.T) {
		kv := open(t, h).KV()
		val := []byte("v1")
		must(t, kv.Put([]byte("a"), val))
		val[0] = 'X' // Put must have copied
		got, ok, err := kv.Get([]byte("a"))
		must(t, err)
		if !ok || string(got) != "v1" {
			t.Fatalf("Get(a) = %q, %v; want v1", got, ok)
		}
		got[0] = 'Y' // Get returns a copy
		if got, _, _ := kv.Get([]byte("a")); string(got) != "v1" {
			t.Fatalf("Get after modifying a returned value = %q", got)
		}
		must(t, kv.Put([]byte("a"), []byte("v2")))
		if got, _, _ := kv.Get([]byte("a")); string(got) != "v2" {
			t.Fatalf("Get after overwrite = %q", got)
		}
		must(t, kv.Delete([]byte("a")))
		must(t, kv.Delete([]byte("missing")))
		if _, ok, err := kv.Get([]byte("a")); ok || err != nil {
			t.Fatalf("Get after Delete = %v, %v", ok, err)
		}
		must(t, kv.Put([]byte("empty"), nil))
		if v, ok, _ := kv.Get([]byte("empty")); !ok || len(v) != 0 {
			t.Fatalf("Get(empty) = %q, %v", v, ok)
		}
	})

	t.Run("ScanOrderAndPrefix", func(t *testing.T) {
		kv := open(t, h).KV()
		keys := []string{"cat/b", "cat/a\x00", "cat/a", "cat/", "cas", "cat0", "dog", "cat/\xff"}
		for i, k := range keys {
			must(t, kv.Put([]byte(k), []byte(fmt.Sprint(i))))
		}
		var got []string
		must(t, kv.Scan([]byte("cat/"), func(k, v []byte) error {
			got = append(got, string(k))
			return nil
		}))
		want := []string{"cat/", "cat/a", "cat/a\x00", "cat/b", "cat/\xff"}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("Scan(cat/) = %q, want %q", got, want)
		}
		n := 0
		must(t, kv.Scan(nil, func(k, v []byte) error { n++; return nil }))
		if n != len(keys) {
			t.Fatalf("Scan(nil) saw %d keys, want %d", n, len(keys))
		}
		stop := errors.New("stop")
		n = 0
		if err := kv.Scan(nil, func(k, v []byte) error { n++; return stop }); err != stop || n != 1 {
			t.Fatalf("Scan with failing fn = %v after %d keys", err, n)
		}
		// fn may write; the scan sees the snapshot taken when it started.
		must(t, kv.Scan([]byte("cat/"), func(k, v []byte) error {
			return kv.Put(append([]byte("cat/z"), k...), v)
		}))
		n = 0
		must(t, kv.Scan([]byte("cat/z"), func(k, v []byte) error { n++; return nil }))
		if n != len(want) {
			t.Fatalf("writes made during Scan: %d, want %d", n, len(want))
		}
	})

	t.Run("Persistence", func(t *testing.T) {
		db := open(t, h)
		must(t, db.KV().Put([]byte("k1"), []byte("one")))
		must(t, db.KV().Put([]byte("k2"), []byte("two")))
		must(t, db.KV().Delete([]byte("k2")))
		db = reopen(t, h, db)
		if v, ok, _ := db.KV().Get([]byte("k1")); !ok || !bytes.Equal(v, []byte("one")) {
			t.Fatalf("after reopen Get(k1) = %q, %v", v, ok)
		}
		if _, ok, _ := db.KV().Get([]byte("k2")); ok {
			t.Fatal("after reopen a deleted key is back")
		}
	})
}
