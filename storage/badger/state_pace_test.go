package badger

import (
	"encoding/binary"
	"testing"

	"github.com/eddysql/eddy/internal/giveway"
	"github.com/eddysql/eddy/storage/internal/statecore"
)

// TestWriteRunPaces checks that writing a run, which a commit and a
// compaction do in the background, looks whether to give way
// (giveway.Pacer) as it goes.
func TestWriteRunPaces(t *testing.T) {
	db := openDir(t, t.TempDir())
	defer db.Close()
	s, err := db.State("job")
	must(t, err)
	defer s.Close()
	b := s.(*statecore.Store).Backend().(*stateBackend)
	// Enough entries for milliseconds of work, where a look comes every
	// 100 µs of it.
	const n = 300_000
	before := giveway.Looks()
	_, err = b.writeRun(1<<40, func(add func(k, v []byte, del bool) error) error {
		var k [8]byte
		for i := range uint64(n) {
			binary.BigEndian.PutUint64(k[:], i)
			if err := add(k[:], k[4:], false); err != nil {
				return err
			}
		}
		return nil
	})
	must(t, err)
	if giveway.Looks() == before {
		t.Fatal("writing a run never looked whether to give way")
	}
}
