package badger

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	bdg "github.com/dgraph-io/badger/v4"

	"github.com/eddysql/eddy/storage"
)

// What the small files of a data directory hold, as error messages say it.
const (
	whatManifest    = "the database's list of table files"
	whatKeyRegistry = "the database's key registry, without keys since eddy uses no encryption"
	whatDiscard     = "the value log's garbage statistics"
	whatLatest      = "the latest writes (a write-ahead log)"
)

// maxLevels is the number of LSM levels Badger keeps (its default, which
// eddy does not change); a MANIFEST naming a deeper level is damaged, and
// Badger would index past its level table.
const maxLevels = 7

// checkManifest replays the MANIFEST as Badger will. Badger drops a last
// change that is cut short, and then deletes the tables that change and
// any lost after it listed. A process that dies cannot leave such a change
// (Badger appends each with one write, which completes or does not
// happen), so a MANIFEST ending in one was cut, and is reported. (A power
// failure in the middle of the write could leave one too, rarely.)
func checkManifest(path string) (bdg.Manifest, error) {
	bad := func(err error) (bdg.Manifest, error) {
		return bdg.Manifest{}, &storage.CorruptionError{Path: path, What: whatManifest, Err: err}
	}
	f, err := os.Open(path)
	if err != nil {
		return bdg.Manifest{}, fmt.Errorf("storage: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return bdg.Manifest{}, fmt.Errorf("storage: %w", err)
	}
	if st.Size() == 0 {
		return bad(errors.New("it is empty"))
	}
	m, end, err := bdg.ReplayManifestFile(f, 0, bdg.DefaultOptions("").WithLogger(nil))
	if err != nil {
		return bad(err)
	}
	if end < st.Size() {
		return bad(fmt.Errorf("it ends in a partial change at byte %d of %d", end, st.Size()))
	}
	for id, tm := range m.Tables {
		switch {
		case tm.Level >= maxLevels:
			return bad(fmt.Errorf("it puts table %d at level %d, past the last level", id, tm.Level))
		case tm.KeyID != 0:
			return bad(fmt.Errorf("it says table %d is encrypted, but eddy never encrypts", id))
		}
	}
	return m, nil
}

// badgerSanityText is what Badger writes after the 16-byte IV at the start
// of its key registry, encrypted when the database is (eddy's never are).
var badgerSanityText = []byte("Hello Badger")

// checkKeyRegistry checks the key registry's header. Badger refuses a
// registry whose header is wrong (as if the encryption key were), and a
// short one fails to read; a missing one it simply writes again, which
// is harmless since eddy keeps no keys in it.
func checkKeyRegistry(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("storage: %w", err)
	}
	hdr := 16 + len(badgerSanityText)
	if len(b) < hdr || !bytes.Equal(b[16:hdr], badgerSanityText) {
		return &storage.CorruptionError{Path: path, What: whatKeyRegistry,
			Err:  fmt.Errorf("its header is not Badger's (%d bytes)", len(b)),
			Hint: "eddy has not changed it; restore it from a copy of the data directory (eddy uses no encryption, so deleting it is also safe)"}
	}
	return nil
}

// checkDiscard checks the size of the garbage statistics. Badger reads
// them as 16-byte slots; a file of 1 to 15 bytes makes it panic in a
// background goroutine the first time it records garbage. Any other
// damage is harmless: the statistics only choose which value log file
// garbage collection looks at first.
func checkDiscard(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("storage: %w", err)
	}
	if n := st.Size(); n > 0 && n < 16 {
		return &storage.CorruptionError{Path: path, What: whatDiscard,
			Err:  fmt.Errorf("it is %d bytes, shorter than one record", n),
			Hint: "it holds only statistics: deleting it is safe, and eddy starts new ones"}
	}
	return nil
}
