package statecore

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/eddysql/eddy/internal/giveway"
	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/internal/guard"
)

// TestCommitPacesItsSort checks that a commit's sort of its writes is
// background work that looks whether to give way (giveway.Pacer). The
// test backend's own commit does not pace, so the looks are the sort's.
func TestCommitPacesItsSort(t *testing.T) {
	s, err := New("job", &testBackend{data: map[string]string{}}, guard.New())
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := s.Table("t", storage.TableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Keys in an order far from sorted: a radix sort of many passes,
	// milliseconds of work, where a look comes every 100 µs of it.
	const n = 300_000
	var k [8]byte
	for i := range uint64(n) {
		binary.BigEndian.PutUint64(k[:], i*0x9e3779b97f4a7c15)
		if err := tbl.Put(k[:], k[:4]); err != nil {
			t.Fatal(err)
		}
	}
	before := giveway.Looks()
	if err := s.Commit(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if giveway.Looks() == before {
		t.Fatal("the commit's sort never looked whether to give way")
	}
}
