package badger

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"slices"

	"github.com/eddysql/eddy/storage"
)

// A job's committed state is a list of runs (storage/internal/runs)
// named by a manifest: the epoch it holds, the runs (oldest first) and
// the next run id. A commit writes its run first and then, in one
// transaction, the new manifest and the previous one, which stays as the
// checkpoint to fall back on (DB.State's Rollback); runs neither manifest
// names are deleted.

// runMeta is a run as a manifest lists it.
type runMeta struct {
	id      uint64
	blocks  uint64
	entries uint64
	bytes   int64 // keys and values, as runs.Index counts them
	file    bool  // its blocks are in a run file (state_files.go), not in Badger
}

// manifest names the runs of one committed epoch.
type manifest struct {
	epoch  uint64
	nextID uint64
	runs   []runMeta
}

func (m *manifest) clone() *manifest {
	c := *m
	c.runs = slices.Clone(m.runs)
	return &c
}

// bytes returns the keys and values of its runs' entries.
func (m *manifest) bytes() int64 {
	var n int64
	for _, r := range m.runs {
		n += r.bytes
	}
	return n
}

// has reports whether m names run id.
func (m *manifest) has(id uint64) bool {
	if m == nil {
		return false
	}
	for _, r := range m.runs {
		if r.id == id {
			return true
		}
	}
	return false
}

// manifestVersion is the version encode writes. Version 1, written before
// run files, lacks each run's location: its blocks are all in Badger.
const manifestVersion = 2

// encode returns m's stored form: the version, the epoch, the next id,
// the run count and each run's id, blocks, entries, bytes and location
// (1 for a run file, 0 for Badger) (uvarints), then the CRC-32C of all of
// it, little-endian.
func (m *manifest) encode() []byte {
	b := []byte{manifestVersion}
	b = binary.AppendUvarint(b, m.epoch)
	b = binary.AppendUvarint(b, m.nextID)
	b = binary.AppendUvarint(b, uint64(len(m.runs)))
	for _, r := range m.runs {
		b = binary.AppendUvarint(b, r.id)
		b = binary.AppendUvarint(b, r.blocks)
		b = binary.AppendUvarint(b, r.entries)
		b = binary.AppendUvarint(b, uint64(r.bytes))
		var file uint64
		if r.file {
			file = 1
		}
		b = binary.AppendUvarint(b, file)
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

func decodeManifest(data []byte) (*manifest, error) {
	bad := func(what string) error { return fmt.Errorf("%w: state manifest %s", storage.ErrCorrupt, what) }
	if len(data) < 1+crc32.Size {
		return nil, bad("is truncated")
	}
	body := data[:len(data)-crc32.Size]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(data[len(body):]) {
		return nil, bad("fails its checksum")
	}
	version := body[0]
	if version != 1 && version != manifestVersion {
		return nil, bad(fmt.Sprintf("has unknown version %d", version))
	}
	body = body[1:]
	next := func() uint64 {
		v, n := binary.Uvarint(body)
		if n <= 0 {
			body = nil
			return 0
		}
		body = body[n:]
		return v
	}
	m := &manifest{epoch: next(), nextID: next()}
	n := next()
	if n > uint64(len(body)) {
		return nil, bad("is malformed")
	}
	for range n {
		r := runMeta{id: next(), blocks: next(), entries: next(), bytes: int64(next())}
		if version > 1 {
			switch next() {
			case 0:
			case 1:
				r.file = true
			default:
				return nil, bad("names a run in an unknown place")
			}
		}
		m.runs = append(m.runs, r)
	}
	if body == nil || len(body) != 0 {
		return nil, bad("is malformed")
	}
	return m, nil
}
