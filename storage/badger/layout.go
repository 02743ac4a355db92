package badger

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	bdg "github.com/dgraph-io/badger/v4"
	"github.com/eddysql/eddy/storage"
)

// The first byte of every key says which key space it belongs to.
const (
	spaceKV    = 'k'
	spaceLog   = 'l'
	spaceState = 's'

	stateManifest = 'm'
	statePrevious = 'p'
	stateRun      = 'r'
	stateDrop     = 'x'

	// The key spaces of the layout before runs (see state_legacy.go),
	// read once to convert a job's state.
	stateData   = 'd'
	stateEpoch  = 'e'
	stateIntent = 'i'

	runBlock = 'b'
	runIndex = 'i'
)

func kvKey(k []byte) []byte {
	return append([]byte{spaceKV}, k...)
}

// logPrefix is the prefix of all of stream's keys.
func logPrefix(stream uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{spaceLog}, stream)
}

const logKeyLen = 1 + 8 + 8 + 4

func logKey(stream, seq uint64, chunk uint32) []byte {
	k := make([]byte, 0, logKeyLen)
	k = append(k, spaceLog)
	k = binary.BigEndian.AppendUint64(k, stream)
	k = binary.BigEndian.AppendUint64(k, seq)
	return binary.BigEndian.AppendUint32(k, chunk)
}

// parseLogKey returns the seq and chunk of a log key.
func parseLogKey(k []byte) (seq uint64, chunk uint32, ok bool) {
	if len(k) != logKeyLen || k[0] != spaceLog {
		return 0, 0, false
	}
	return binary.BigEndian.Uint64(k[9:]), binary.BigEndian.Uint32(k[17:]), true
}

// jobKeys builds the keys of one job's state, all under its prefix: s and
// the key-codec encoding of the job's name, which is self-delimiting, so
// no job's prefix starts another's (job "a" and job "ab" share no keys).
type jobKeys struct{ prefix []byte }

func newJobKeys(job string) jobKeys {
	return jobKeys{prefix: storage.AppendString([]byte{spaceState}, job)}
}

func (j jobKeys) with(space byte, rest ...byte) []byte {
	k := append(slices.Clip(j.prefix), space)
	return append(k, rest...)
}

func (j jobKeys) data(k []byte) []byte { return j.with(stateData, k...) }

// dataLen is len(j.data(k)), without building the key.
func (j jobKeys) dataLen(k []byte) int { return len(j.prefix) + 1 + len(k) }

func (j jobKeys) dataPrefix() []byte { return j.with(stateData) }

func (j jobKeys) epoch() []byte { return j.with(stateEpoch) }

func (j jobKeys) intentPrefix() []byte { return j.with(stateIntent) }

// dropMark is the key whose presence says a drop of the job's state began
// and must be finished before the state is used (see DB.DropState).
func (j jobKeys) dropMark() []byte { return j.with(stateDrop) }

// stateParts are the prefixes of the job's state proper, everything but
// its drop mark: the manifests and runs, and the keys of the layout
// before runs.
func (j jobKeys) stateParts() [][]byte {
	return [][]byte{j.with(stateManifest), j.with(statePrevious), j.runsPrefix(), j.dataPrefix(), j.epoch(), j.intentPrefix()}
}

func (j jobKeys) manifest() []byte { return j.with(stateManifest) }

func (j jobKeys) previous() []byte { return j.with(statePrevious) }

func (j jobKeys) runsPrefix() []byte { return j.with(stateRun) }

// runPrefix is the prefix of every key of run id.
func (j jobKeys) runPrefix(id uint64) []byte {
	return binary.BigEndian.AppendUint64(j.runsPrefix(), id)
}

func (j jobKeys) runBlock(id uint64, no uint32) []byte {
	return binary.BigEndian.AppendUint32(append(j.runPrefix(id), runBlock), no)
}

func (j jobKeys) runIndex(id uint64) func(chunk uint32) []byte {
	base := append(j.runPrefix(id), runIndex)
	return func(chunk uint32) []byte { return binary.BigEndian.AppendUint32(slices.Clip(base), chunk) }
}

// runOf returns the run id of a key under runsPrefix.
func (j jobKeys) runOf(k []byte) (uint64, bool) {
	n := len(j.prefix) + 1
	if len(k) < n+8 {
		return 0, false
	}
	return binary.BigEndian.Uint64(k[n:]), true
}

func (j jobKeys) intent(chunk uint32) []byte {
	return binary.BigEndian.AppendUint32(j.intentPrefix(), chunk)
}

// chunkSize is the most bytes stored under one key. In-memory Badger
// rejects values above its value threshold (1 MiB), and one transaction
// may hold at most 15% of a memtable, so larger values are split; 512 KiB
// keeps a typical log entry (1–8K rows) in one chunk.
const chunkSize = 512 << 10

// maxBlob bounds the total length a chunk 0 may claim (1 TiB), so damaged
// bytes cannot make a reader loop over billions of chunks.
const maxBlob = 1 << 40

// putBlob stores data under key(0), key(1), ... so that it appears whole or
// not at all: the chunks after the first are written first, with a
// WriteBatch that spreads them over as many transactions as needed, and
// chunk 0, which holds the chunk count and total length, is written last in
// its own transaction.
func (db *DB) putBlob(key func(chunk uint32) []byte, data []byte) error {
	return db.putBlobWith(key, data, nil)
}

// putBlobWith is putBlob that also runs with, when it is not nil, in the
// transaction writing chunk 0: its writes happen if and only if the blob
// is written.
func (db *DB) putBlobWith(key func(chunk uint32) []byte, data []byte, with func(txn *bdg.Txn) error) error {
	n := max(1, (len(data)+chunkSize-1)/chunkSize)
	if n > 1 {
		wb := db.bdb.NewWriteBatch()
		defer wb.Cancel()
		for i := 1; i < n; i++ {
			piece := data[i*chunkSize : min((i+1)*chunkSize, len(data))]
			if err := wb.Set(key(uint32(i)), piece); err != nil {
				return err
			}
		}
		if err := wb.Flush(); err != nil {
			return err
		}
		if crashAt("blob-chunks") {
			return errCrashed
		}
	}
	first := make([]byte, 0, 2*binary.MaxVarintLen64+min(chunkSize, len(data)))
	first = binary.AppendUvarint(first, uint64(n))
	first = binary.AppendUvarint(first, uint64(len(data)))
	first = append(first, data[:min(chunkSize, len(data))]...)
	return db.bdb.Update(func(txn *bdg.Txn) error {
		if with != nil {
			if err := with(txn); err != nil {
				return err
			}
		}
		return txn.Set(key(0), first)
	})
}

// blobReader reads blobs that putBlob wrote, reusing one buffer for those
// that span several chunks.
type blobReader struct {
	scratch []byte
}

var errBlobHead = fmt.Errorf("%w: bad chunk header", storage.ErrCorrupt)

// read calls fn with the blob whose chunk 0 is it's current item; base is
// the blob's key without the chunk number. For a blob of several chunks it
// leaves it on the last one. data is valid only during fn, which must not
// block (for a blob of one chunk it runs inside Badger's value callback).
func (r *blobReader) read(it *bdg.Iterator, base []byte, fn func(data []byte) error) error {
	var n, total uint64
	var fnErr error
	err := value(it.Item(), func(v []byte) error {
		c, k := binary.Uvarint(v)
		if k <= 0 {
			return errBlobHead
		}
		t, k2 := binary.Uvarint(v[k:])
		if k2 <= 0 || t > maxBlob || c == 0 || c > t/chunkSize+1 {
			return errBlobHead
		}
		n, total, v = c, t, v[k+k2:]
		if n == 1 {
			if uint64(len(v)) != total {
				return fmt.Errorf("%w: chunk is %d bytes, its header says %d", storage.ErrCorrupt, len(v), total)
			}
			fnErr = fn(v)
			return nil
		}
		r.scratch = append(r.scratch[:0], v...)
		return nil
	})
	if err != nil || n == 1 {
		return errors.Join(err, fnErr)
	}
	want := make([]byte, len(base)+4)
	copy(want, base)
	for i := uint64(1); i < n; i++ {
		it.Next()
		binary.BigEndian.PutUint32(want[len(base):], uint32(i))
		if !it.Valid() || !bytes.Equal(it.Item().Key(), want) {
			return fmt.Errorf("%w: chunk %d of %d is missing", storage.ErrCorrupt, i, n)
		}
		err := value(it.Item(), func(v []byte) error {
			r.scratch = append(r.scratch, v...)
			return nil
		})
		if err != nil {
			return err
		}
		if uint64(len(r.scratch)) > total {
			break
		}
	}
	if uint64(len(r.scratch)) != total {
		return fmt.Errorf("%w: chunks hold %d bytes, the header says %d", storage.ErrCorrupt, len(r.scratch), total)
	}
	return fn(r.scratch)
}
