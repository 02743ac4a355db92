package catalog

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/eddysql/eddy/storage"
)

// Every value the catalog stores is sealed: a format byte (sealFormat),
// the CRC-32C of the payload, little-endian, and the payload (an object or
// its statistics as JSON, or the next ID as 8 big-endian bytes). The
// storage checks its files, but the seal also catches a value damaged on
// its way through them, or written wrong, and ties the error to the entry.
// Values written before seals existed (JSON objects, starting with '{',
// and a bare 8-byte next ID) are read as they are.
const sealFormat = 1

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// seal returns payload sealed.
func seal(payload []byte) []byte {
	b := make([]byte, 5, 5+len(payload))
	b[0] = sealFormat
	binary.LittleEndian.PutUint32(b[1:], crc32.Checksum(payload, castagnoli))
	return append(b, payload...)
}

// unseal returns the payload of the value stored under key, or a
// *storage.CorruptionError naming the entry. legacy says whether v is an
// unsealed value of an older catalog.
func unseal(key, v []byte, legacy func(v []byte) bool) ([]byte, error) {
	if legacy(v) {
		return v, nil
	}
	if len(v) < 5 || v[0] != sealFormat {
		return nil, corruptEntry(key, fmt.Errorf("it is not a catalog value (%d bytes)", len(v)))
	}
	payload := v[5:]
	if stored, sum := binary.LittleEndian.Uint32(v[1:]), crc32.Checksum(payload, castagnoli); stored != sum {
		return nil, corruptEntry(key, fmt.Errorf("checksum mismatch (stored %08x, computed %08x)", stored, sum))
	}
	return payload, nil
}

// legacyJSON reports whether v is an unsealed JSON object.
func legacyJSON(v []byte) bool { return len(v) > 0 && v[0] == '{' }

// legacyID reports whether v is an unsealed next ID.
func legacyID(v []byte) bool { return len(v) == 8 }

// corruptEntry reports a damaged catalog entry. It names no file: the
// engine sets Path to the data directory.
func corruptEntry(key []byte, err error) error {
	return &storage.CorruptionError{What: fmt.Sprintf("the catalog entry %q", key), Err: err}
}
