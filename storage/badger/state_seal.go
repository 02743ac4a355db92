package badger

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/eddysql/eddy/storage"
)

// Committed state values are stored sealed: the value, then the CRC-32C,
// little-endian, of the key (within the job: table and key, as statecore
// passes it) followed by the value. The storage checks its files when it
// opens them, but state is read for as long as a job runs; the seal makes
// a value damaged since, or found under another key, an error naming the
// job and key rather than state silently wrong. The epoch marker is
// sealed with an empty key.

// sealState returns val sealed under key.
func sealState(key, val []byte) []byte {
	out := make([]byte, len(val), len(val)+crc32.Size)
	copy(out, val)
	sum := crc32.Update(crc32.Checksum(key, castagnoli), castagnoli, val)
	return binary.LittleEndian.AppendUint32(out, sum)
}

// unsealState returns the value sealed in stored under key, which it
// aliases.
func (b *stateBackend) unsealState(key, stored []byte) ([]byte, error) {
	if len(stored) < crc32.Size {
		return nil, b.corrupt(key, errors.New("its value is shorter than its checksum"))
	}
	val := stored[:len(stored)-crc32.Size]
	want := binary.LittleEndian.Uint32(stored[len(val):])
	if sum := crc32.Update(crc32.Checksum(key, castagnoli), castagnoli, val); sum != want {
		return nil, b.corrupt(key, fmt.Errorf("its value fails its checksum (stored %08x, computed %08x)", want, sum))
	}
	return val, nil
}

// corrupt reports damage to the value of key (nil: the epoch marker).
func (b *stateBackend) corrupt(key []byte, err error) error {
	what := fmt.Sprintf("the operator state of job %q, key %q", b.job, key)
	if key == nil {
		what = fmt.Sprintf("the last committed epoch of job %q", b.job)
	}
	return &storage.CorruptionError{Path: b.db.dir, What: what, Err: err}
}
