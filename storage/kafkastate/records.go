package kafkastate

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/eddysql/eddy/storage/internal/statecore"
)

// The kinds of record, the first byte of a record's key (see doc.go).
const (
	kindEpoch byte = 'E' // the epoch marker
	kindValue byte = 'V' // a key's value, or its first chunk
	kindChunk byte = 'C' // a later chunk of a key's value
)

// chunkSize is the most value bytes one record carries. Kafka refuses
// record batches over its max.message.bytes (about 1 MiB by default) and
// franz-go builds batches of at most 1,000,012 bytes by default; half a
// MiB of value leaves room for the key (see maxKeyLen) and the framing
// under both without any broker or topic setting.
const chunkSize = 512 << 10

// maxKeyLen bounds a record's key: the kind byte, the table's prefix, the
// key within the table and a chunk's index. With chunkSize it keeps every
// record under the limits above.
const maxKeyLen = 256 << 10

// chunkHeader is the record header that marks a chunked value's records.
// On the first record its value is the number of records (4 bytes), the
// epoch that wrote them (8) and the value's length (8); on the later
// chunks it is the epoch (8). All big-endian.
const chunkHeader = "eddy.chunk"

// epochMarkerKey is the key of the epoch marker record.
var epochMarkerKey = []byte{kindEpoch}

// chunks returns how many records a value of n bytes is written in.
func chunks(n int) uint32 {
	return uint32(max(1, (n+chunkSize-1)/chunkSize))
}

// valueKey returns the key of the record of full (a table's prefix and
// the key within the table) that holds its value or first chunk.
func valueKey(full []byte) []byte {
	return append(append(make([]byte, 0, 1+len(full)), kindValue), full...)
}

// chunkKey returns the key of the record of full's chunk i (i >= 1).
func chunkKey(full []byte, i uint32) []byte {
	k := append(make([]byte, 0, 1+len(full)+4), kindChunk)
	return binary.BigEndian.AppendUint32(append(k, full...), i)
}

// encoder builds one commit's records and the changes they make.
type encoder struct {
	topic   string
	part    int32
	epoch   uint64
	chunked map[string]uint32 // the committed values written in more than one record
	recs    []*kgo.Record
	chs     []change
}

// record appends a record of key and val (nil for a tombstone).
func (e *encoder) record(key, val []byte, hdrs ...kgo.RecordHeader) {
	e.recs = append(e.recs, &kgo.Record{Topic: e.topic, Partition: e.part, Key: key, Value: val, Headers: hdrs})
}

// add appends the records of m, which it copies: a tombstone of the key,
// or its value in one record or chunks, then tombstones of the chunks
// its committed value had beyond the new one's. The chunks come first
// and the value's record last.
func (e *encoder) add(m statecore.Mutation) {
	full := bytes.Clone(m.Key)
	had := max(1, e.chunked[string(full)])
	if m.Delete {
		for i := uint32(1); i < had; i++ {
			e.record(chunkKey(full, i), nil)
		}
		e.record(valueKey(full), nil)
		e.chs = append(e.chs, change{key: full, del: true})
		return
	}
	val := bytes.Clone(m.Val)
	if val == nil {
		val = []byte{} // an empty value, not a tombstone
	}
	n := chunks(len(val))
	var epoch [8]byte
	binary.BigEndian.PutUint64(epoch[:], e.epoch)
	for i := uint32(1); i < n; i++ {
		piece := val[int(i)*chunkSize : min(len(val), int(i+1)*chunkSize)]
		e.record(chunkKey(full, i), piece, kgo.RecordHeader{Key: chunkHeader, Value: epoch[:]})
	}
	for i := n; i < had; i++ {
		e.record(chunkKey(full, i), nil)
	}
	if n == 1 {
		e.record(valueKey(full), val)
	} else {
		h := binary.BigEndian.AppendUint32(nil, n)
		h = binary.BigEndian.AppendUint64(h, e.epoch)
		h = binary.BigEndian.AppendUint64(h, uint64(len(val)))
		e.record(valueKey(full), val[:chunkSize], kgo.RecordHeader{Key: chunkHeader, Value: h})
	}
	e.chs = append(e.chs, change{key: full, val: val, chunks: n})
}

// marker appends the epoch marker, the transaction's last record.
func (e *encoder) marker() {
	e.record(epochMarkerKey, binary.BigEndian.AppendUint64(nil, e.epoch))
}

// header returns the value of r's chunk header, if it has one.
func header(r *kgo.Record) ([]byte, bool) {
	for _, h := range r.Headers {
		if h.Key == chunkHeader {
			return h.Value, true
		}
	}
	return nil, false
}

// chunkID names a chunk record: the full key it belongs to and its index.
type chunkID struct {
	key string
	i   uint32
}

// piece is a chunk record's bytes and the epoch that wrote it.
type piece struct {
	epoch  uint64
	val    []byte
	offset int64
}

// head is a chunked value's first record, waiting for its chunks.
type head struct {
	change        // key, first chunk and chunk count
	epoch, length uint64
	offset        int64
}

// decoder turns the committed records of a stretch of the partition, in
// offset order, into the changes they make: each key's last write.
type decoder struct {
	topic  string
	part   int32
	latest map[string]int // a key's entry in chs
	chs    []change
	heads  map[string]head // the chunked values among chs, to assemble
	pieces map[chunkID]piece
	epoch  uint64 // the last epoch marker's epoch
	marker int64  // the last epoch marker's offset, -1 if none
	data   int64  // the last other record's offset, -1 if none
}

func newDecoder(topic string, part int32) *decoder {
	return &decoder{topic: topic, part: part, latest: map[string]int{}, heads: map[string]head{},
		pieces: map[chunkID]piece{}, marker: -1, data: -1}
}

// corrupt returns the error for the record at offset, which is not what
// the store writes.
func (d *decoder) corrupt(offset int64, format string, args ...any) error {
	return corruptErr(d.topic, d.part, offset, fmt.Sprintf(format, args...))
}

// set records c as its key's last write.
func (d *decoder) set(c change) {
	if i, ok := d.latest[string(c.key)]; ok {
		d.chs[i] = c
		return
	}
	d.latest[string(c.key)] = len(d.chs)
	d.chs = append(d.chs, c)
}

// add decodes r. The values it keeps are copies, so that they do not pin
// the fetch buffers they came in.
func (d *decoder) add(r *kgo.Record) error {
	if len(r.Key) == 0 {
		return d.corrupt(r.Offset, "a record without a key")
	}
	switch r.Key[0] {
	case kindEpoch:
		if len(r.Key) != 1 || len(r.Value) != 8 {
			return d.corrupt(r.Offset, "an epoch marker of a %d-byte key and a %d-byte value", len(r.Key), len(r.Value))
		}
		d.epoch, d.marker = binary.BigEndian.Uint64(r.Value), r.Offset
	case kindValue:
		d.data = r.Offset
		return d.addValue(r)
	case kindChunk:
		d.data = r.Offset
		return d.addChunk(r)
	default:
		return d.corrupt(r.Offset, "a record of unknown kind %#x", r.Key[0])
	}
	return nil
}

func (d *decoder) addValue(r *kgo.Record) error {
	full := bytes.Clone(r.Key[1:])
	delete(d.heads, string(full))
	if r.Value == nil {
		d.set(change{key: full, del: true})
		return nil
	}
	c := change{key: full, val: bytes.Clone(r.Value), chunks: 1}
	h, ok := header(r)
	if !ok {
		if c.val == nil {
			c.val = []byte{}
		}
		d.set(c)
		return nil
	}
	if len(h) != 20 {
		return d.corrupt(r.Offset, "a chunk header of %d bytes on a value", len(h))
	}
	c.chunks = binary.BigEndian.Uint32(h)
	if c.chunks < 2 {
		return d.corrupt(r.Offset, "a value in %d chunks", c.chunks)
	}
	d.set(c)
	d.heads[string(full)] = head{change: c, epoch: binary.BigEndian.Uint64(h[4:]), length: binary.BigEndian.Uint64(h[12:]), offset: r.Offset}
	return nil
}

func (d *decoder) addChunk(r *kgo.Record) error {
	if len(r.Key) < 5 {
		return d.corrupt(r.Offset, "a chunk record of a %d-byte key", len(r.Key))
	}
	id := chunkID{key: string(r.Key[1 : len(r.Key)-4]), i: binary.BigEndian.Uint32(r.Key[len(r.Key)-4:])}
	if id.i == 0 {
		return d.corrupt(r.Offset, "a chunk record of index 0")
	}
	if r.Value == nil {
		delete(d.pieces, id)
		return nil
	}
	h, ok := header(r)
	if !ok || len(h) != 8 {
		return d.corrupt(r.Offset, "a chunk record without its epoch")
	}
	d.pieces[id] = piece{epoch: binary.BigEndian.Uint64(h), val: bytes.Clone(r.Value), offset: r.Offset}
	return nil
}

// finish assembles the chunked values and returns the changes in key
// order. A chunked value must find every chunk its epoch wrote: the
// chunks of a superseded value may be gone (compacted away or written
// over), but not those of a key's last value.
func (d *decoder) finish() ([]change, error) {
	if d.data > d.marker {
		// Every commit ends with its marker, and compaction keeps the
		// last marker: a record after it belongs to no commit.
		return nil, d.corrupt(d.data, "a record after the last epoch marker (at %d)", d.marker)
	}
	for key, h := range d.heads {
		parts := [][]byte{h.val}
		n := uint64(len(h.val))
		for i := uint32(1); i < h.chunks; i++ {
			p, ok := d.pieces[chunkID{key: key, i: i}]
			if !ok || p.epoch != h.epoch {
				return nil, d.corrupt(h.offset, "a value in %d chunks whose chunk %d of epoch %d is missing", h.chunks, i, h.epoch)
			}
			parts = append(parts, p.val)
			n += uint64(len(p.val))
		}
		if n != h.length {
			return nil, d.corrupt(h.offset, "a value of %d bytes in chunks of %d bytes", h.length, n)
		}
		d.chs[d.latest[key]].val = bytes.Join(parts, nil)
	}
	sortChanges(d.chs)
	return d.chs, nil
}
