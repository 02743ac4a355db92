package badger

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/eddysql/eddy/storage"
	"github.com/eddysql/eddy/storage/internal/statecore"
)

// An intent blob is uvarint epoch, uvarint count, and per mutation an op
// byte (opSet or opDelete), uvarint key length, key and, for opSet,
// uvarint value length and value; then the CRC-32C of all of it,
// little-endian, because replaying a damaged intent would corrupt a
// checkpoint silently.
const (
	opSet    = 1
	opDelete = 2
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func encodeIntent(epoch uint64, muts []statecore.Mutation) []byte {
	size := 2 * binary.MaxVarintLen64
	for _, m := range muts {
		size += 1 + 2*binary.MaxVarintLen64 + len(m.Key) + len(m.Val)
	}
	b := make([]byte, 0, size+4)
	b = binary.AppendUvarint(b, epoch)
	b = binary.AppendUvarint(b, uint64(len(muts)))
	for _, m := range muts {
		if m.Delete {
			b = append(b, opDelete)
		} else {
			b = append(b, opSet)
		}
		b = binary.AppendUvarint(b, uint64(len(m.Key)))
		b = append(b, m.Key...)
		if !m.Delete {
			b = binary.AppendUvarint(b, uint64(len(m.Val)))
			b = append(b, m.Val...)
		}
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// decodeIntent decodes an intent blob; the mutations alias data.
func decodeIntent(data []byte) (epoch uint64, muts []statecore.Mutation, err error) {
	bad := func(what string) error { return fmt.Errorf("%w: intent %s", storage.ErrCorrupt, what) }
	if len(data) < 4 {
		return 0, nil, bad("is truncated")
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return 0, nil, bad("checksum mismatch")
	}
	next := func() (uint64, bool) {
		v, n := binary.Uvarint(body)
		if n <= 0 {
			return 0, false
		}
		body = body[n:]
		return v, true
	}
	take := func() ([]byte, bool) {
		n, ok := next()
		if !ok || n > uint64(len(body)) {
			return nil, false
		}
		v := body[:n:n]
		body = body[n:]
		return v, true
	}
	epoch, ok1 := next()
	count, ok2 := next()
	if !ok1 || !ok2 || count > uint64(len(body)) {
		return 0, nil, bad("header is malformed")
	}
	muts = make([]statecore.Mutation, 0, count)
	for range count {
		if len(body) == 0 {
			return 0, nil, bad("is truncated")
		}
		op := body[0]
		body = body[1:]
		k, ok := take()
		if !ok || (op != opSet && op != opDelete) {
			return 0, nil, bad("mutation is malformed")
		}
		m := statecore.Mutation{Key: k, Delete: op == opDelete}
		if op == opSet {
			if m.Val, ok = take(); !ok {
				return 0, nil, bad("value is malformed")
			}
		}
		muts = append(muts, m)
	}
	if len(body) != 0 {
		return 0, nil, bad("has trailing bytes")
	}
	return epoch, muts, nil
}
