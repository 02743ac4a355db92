package statecore

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/eddysql/eddy/internal/kvlog"
	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/internal/guard"
)

// poolTestWrites is how many writes of poolTestValue bytes each epoch of
// TestScanOutlivesCommit makes: enough for its log to reach chunks of
// kvlog.MaxChunk bytes, the ones a commit hands back to the pool.
const (
	poolTestWrites = 3000
	poolTestValue  = 4 << 10
)

// poolTestVal returns the value of key i written in epoch e.
func poolTestVal(e, i int) []byte {
	return bytes.Repeat([]byte{byte(e*31 + i)}, poolTestValue)
}

// TestScanOutlivesCommit scans a table whose writes a commit makes the
// backend's while the scan runs (its fn commits), and whose function then
// writes as much again into the next overlay, which takes its chunks from
// kvlog's pool: the values the scan reads after that are still the ones
// it began with. A commit must not hand the chunks of an overlay to the
// pool while a scan reads from them.
func TestScanOutlivesCommit(t *testing.T) {
	b := &testBackend{data: map[string]string{}}
	s, err := New("job", b, guard.New())
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := s.Table("t", storage.TableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	key := func(i int) []byte { return fmt.Appendf(nil, "k%05d", i) }
	for i := range poolTestWrites {
		if err := tbl.Put(key(i), poolTestVal(1, i)); err != nil {
			t.Fatal(err)
		}
	}
	seen := 0
	err = tbl.Scan(nil, func(k, v []byte) error {
		if want := key(seen); !bytes.Equal(k, want) {
			return fmt.Errorf("key %d: %q, want %q", seen, k, want)
		}
		if want := poolTestVal(1, seen); !bytes.Equal(v, want) {
			return fmt.Errorf("key %q: value of bytes %x…, want %x…", k, v[:1], want[:1])
		}
		if seen == 0 {
			if err := s.Commit(context.Background(), 1); err != nil {
				return err
			}
			for i := range poolTestWrites {
				if err := tbl.Put(key(i), poolTestVal(2, i)); err != nil {
					return err
				}
			}
		}
		seen++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen != poolTestWrites {
		t.Fatalf("the scan saw %d keys, want %d", seen, poolTestWrites)
	}
	// The scan's end released the committed overlay: the next epoch's
	// log takes its chunks.
	if kvlog.PooledBytes() == 0 {
		t.Fatal("the committed overlay's chunks did not reach the pool")
	}
	if err := s.Commit(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	for i := range poolTestWrites {
		v, ok, err := tbl.Get(key(i))
		if err != nil || !ok || !bytes.Equal(v, poolTestVal(2, i)) {
			t.Fatalf("key %d after the second commit: %v %v", i, ok, err)
		}
	}
}
