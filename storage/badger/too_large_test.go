package badger

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/eddysql/eddy/storage"
)

// hexDump matches a line of encoding/hex's Dump, which Badger puts in its
// errors about oversized keys and values.
var hexDump = regexp.MustCompile(`(?m)^[0-9a-f]{8}  [0-9a-f]{2} `)

// checkTooLarge fails unless err wraps storage.ErrTooLarge with a short
// message that holds no hex dump.
func checkTooLarge(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, storage.ErrTooLarge) {
		t.Fatalf("%s: error %v, want storage.ErrTooLarge", what, shorten(err))
	}
	msg := err.Error()
	if len(msg) > 300 || hexDump.MatchString(msg) {
		t.Errorf("%s: message of %d bytes: %s", what, len(msg), shorten(err))
	}
}

func shorten(err error) string {
	if err == nil {
		return "<nil>"
	}
	s := err.Error()
	if len(s) > 500 {
		s = s[:500] + "..."
	}
	return s
}

// TestTooLarge checks that keys and values Badger refuses are refused
// first, with storage.ErrTooLarge and a readable message (Badger's own
// error carries a hex dump of the key), and that the store keeps working.
func TestTooLarge(t *testing.T) {
	for _, dir := range []string{"", t.TempDir()} {
		db := openDir(t, dir)
		kv := db.KV()
		long := []byte("catalog/object/" + strings.Repeat("a", 1<<20))
		checkTooLarge(t, "Put", kv.Put(long, []byte("{}")))
		checkTooLarge(t, "Delete", kv.Delete(long))
		if dir == "" {
			// In memory, values are bounded by the value threshold.
			checkTooLarge(t, "Put value", kv.Put([]byte("k"), bytes.Repeat([]byte("v"), 2<<20)))
		}
		edge := bytes.Repeat([]byte("k"), maxKeySize-1) // plus the KV space byte
		if err := kv.Put(edge, []byte("v")); err != nil {
			t.Fatalf("a key at the limit: %v", shorten(err))
		}

		st, err := db.State("job")
		if err != nil {
			t.Fatal(err)
		}
		tbl, err := st.Table("t", storage.TableOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := tbl.Put(long, []byte("v")); err != nil {
			t.Fatal(err)
		}
		checkTooLarge(t, "Commit", st.Commit(context.Background(), 1))
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		if err := kv.Put([]byte("k"), []byte("v")); err != nil {
			t.Fatalf("after the refusals: %v", err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestShownKey checks how keys appear in error messages.
func TestShownKey(t *testing.T) {
	if got := shownKey([]byte("catalog/object/x\x00")); got != `"catalog/object/x\x00"` {
		t.Errorf("short key: %s", got)
	}
	want := `"` + strings.Repeat("a", shownKeyLen) + `"... (100000 bytes)`
	if got := shownKey(bytes.Repeat([]byte("a"), 100000)); got != want {
		t.Errorf("long key: %s", got)
	}
}
