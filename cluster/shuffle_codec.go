package cluster

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/storage"
)

// The records of a shuffle topic. Every record's value starts with a
// version byte and a kind byte, then the uvarint index of the task that
// wrote it among the tasks that write the topic (its producer):
//
//	data:      v 'D' producer ops batch
//	watermark: v 'W' producer watermark(varint) idle(byte)
//
// ops is a byte 0 (every row an insert) or 1, a uvarint count and one
// byte per row (exec.Op); batch is storage.EncodeBatch's encoding of the
// rows. A watermark record carries its producer's watermark to every
// partition, so a reader combines the watermarks of all producers
// whatever partitions their rows went to.
const (
	shuffleVersion byte = 1
	kindData       byte = 'D'
	kindWatermark  byte = 'W'
)

// maxRecordBytes bounds a data record: a chunk whose encoding is larger
// is split (Kafka's default message limit is 1 MB).
const maxRecordBytes = 768 << 10

// shuffleRecord is a decoded record.
type shuffleRecord struct {
	kind     byte
	producer int
	chunk    exec.Chunk // data: the rows, which the caller releases
	wm       int64      // watermark
	idle     bool       // watermark: the producer is idle
}

// appendData appends the data record of c, written by producer, to dst.
func appendData(dst []byte, producer int, c exec.Chunk) ([]byte, error) {
	dst = append(dst, shuffleVersion, kindData)
	dst = binary.AppendUvarint(dst, uint64(producer))
	if c.Ops == nil {
		dst = append(dst, 0)
	} else {
		dst = append(dst, 1)
		dst = binary.AppendUvarint(dst, uint64(len(c.Ops)))
		for _, op := range c.Ops {
			dst = append(dst, byte(op))
		}
	}
	return storage.EncodeBatch(dst, c.Batch)
}

// appendWatermark appends the watermark record of producer to dst.
func appendWatermark(dst []byte, producer int, wm int64, idle bool) []byte {
	dst = append(dst, shuffleVersion, kindWatermark)
	dst = binary.AppendUvarint(dst, uint64(producer))
	dst = binary.AppendVarint(dst, wm)
	if idle {
		return append(dst, 1)
	}
	return append(dst, 0)
}

var errDamaged = errors.New("damaged record")

// decodeRecord decodes a record of a topic whose rows have schema,
// allocating the rows from alloc.
func decodeRecord(b []byte, schema *arrow.Schema, alloc memory.Allocator) (shuffleRecord, error) {
	if len(b) < 2 {
		return shuffleRecord{}, errDamaged
	}
	if b[0] != shuffleVersion {
		return shuffleRecord{}, fmt.Errorf("record of version %d (this eddy reads %d)", b[0], shuffleVersion)
	}
	r := shuffleRecord{kind: b[1]}
	b = b[2:]
	p, n := binary.Uvarint(b)
	if n <= 0 || p > 1<<30 {
		return shuffleRecord{}, errDamaged
	}
	r.producer, b = int(p), b[n:]
	switch r.kind {
	case kindWatermark:
		wm, n := binary.Varint(b)
		if n <= 0 || len(b) != n+1 || b[n] > 1 {
			return shuffleRecord{}, errDamaged
		}
		r.wm, r.idle = wm, b[n] == 1
		return r, nil
	case kindData:
	default:
		return shuffleRecord{}, fmt.Errorf("record of unknown kind %q", r.kind)
	}
	if len(b) == 0 {
		return shuffleRecord{}, errDamaged
	}
	var ops []exec.Op
	hasOps := b[0]
	b = b[1:]
	switch hasOps {
	case 0:
	case 1:
		cnt, n := binary.Uvarint(b)
		if n <= 0 || cnt > uint64(len(b)-n) {
			return shuffleRecord{}, errDamaged
		}
		b = b[n:]
		ops = make([]exec.Op, cnt)
		for i := range ops {
			ops[i] = exec.Op(b[i])
		}
		b = b[cnt:]
	default:
		return shuffleRecord{}, errDamaged
	}
	batch, err := storage.DecodeBatch(b, schema, alloc)
	if err != nil {
		return shuffleRecord{}, err
	}
	if ops != nil && len(ops) != int(batch.NumRows()) {
		batch.Release()
		return shuffleRecord{}, errDamaged
	}
	r.chunk = exec.Chunk{Batch: batch, Ops: ops}
	return r, nil
}
