package runs

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"sort"
)

// Index describes a run: the first key and the number of entries of each
// block, and the totals.
type Index struct {
	First   [][]byte
	Counts  []int
	Entries int
	// Bytes is the keys and values of the entries (a deletion counts its
	// key).
	Bytes int64
}

// Blocks returns the number of blocks.
func (x *Index) Blocks() int { return len(x.First) }

// BlockFor returns the block that holds key if any does: the last block
// whose first key is at most key (0 when key precedes them all).
func (x *Index) BlockFor(key []byte) int {
	i := sort.Search(len(x.First), func(i int) bool { return bytes.Compare(x.First[i], key) > 0 })
	return max(i-1, 0)
}

// indexVersion leads an encoded index, so a later format can be told
// apart.
const indexVersion = 1

// Encode returns the index of run id of the owner salt names in its
// stored form: the version,
// the block count, per block its first key (length and bytes) and entry
// count, the totals (uvarints), then the seal.
func (x *Index) Encode(salt uint32, id uint64) []byte {
	size := 3 * binary.MaxVarintLen64
	for _, k := range x.First {
		size += len(k) + 2*binary.MaxVarintLen64
	}
	b := make([]byte, 0, size+crc32.Size)
	b = append(b, indexVersion)
	b = binary.AppendUvarint(b, uint64(len(x.First)))
	for i, k := range x.First {
		b = binary.AppendUvarint(b, uint64(len(k)))
		b = append(b, k...)
		b = binary.AppendUvarint(b, uint64(x.Counts[i]))
	}
	b = binary.AppendUvarint(b, uint64(x.Entries))
	b = binary.AppendUvarint(b, uint64(x.Bytes))
	return binary.LittleEndian.AppendUint32(b, seal(salt, id, indexSeal, b))
}

// DecodeIndex decodes the stored index of run id of the owner salt
// names; it does not alias data.
func DecodeIndex(salt uint32, id uint64, data []byte) (*Index, error) {
	if len(data) < 1+crc32.Size {
		return nil, damaged(id, indexSeal, "it is truncated")
	}
	body := data[:len(data)-crc32.Size]
	if want := binary.LittleEndian.Uint32(data[len(body):]); seal(salt, id, indexSeal, body) != want {
		return nil, damaged(id, indexSeal, "it fails its checksum")
	}
	if body[0] != indexVersion {
		return nil, damaged(id, indexSeal, "its version is unknown")
	}
	body = bytes.Clone(body[1:])
	next := func() (uint64, bool) {
		v, n := binary.Uvarint(body)
		if n <= 0 {
			return 0, false
		}
		body = body[n:]
		return v, true
	}
	n, ok := next()
	if !ok || n > uint64(len(body)) {
		return nil, damaged(id, indexSeal, "its block count is malformed")
	}
	x := &Index{First: make([][]byte, 0, n), Counts: make([]int, 0, n)}
	for range n {
		k, ok := take(&body)
		c, ok2 := next()
		if !ok || !ok2 {
			return nil, damaged(id, indexSeal, "a block's entry is malformed")
		}
		x.First = append(x.First, k)
		x.Counts = append(x.Counts, int(c))
	}
	entries, ok := next()
	size, ok2 := next()
	if !ok || !ok2 || len(body) != 0 {
		return nil, damaged(id, indexSeal, "its totals are malformed")
	}
	x.Entries, x.Bytes = int(entries), int64(size)
	return x, nil
}
