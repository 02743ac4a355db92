package kafka

import (
	"encoding/binary"
	"math/bits"
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"
)

// recordPool lends the client the slices it decodes fetched records into
// (kgo.PoolRecords), so that reading a topic does not allocate a record
// per message: the source recycles each record once it has read it.
//
// Slices are pooled by size class, a power of two, so that a batch of a
// few records does not take (and the return clear) a slice sized for the
// largest batch seen: clearing a slice of records costs its capacity.
type recordPool struct{ classes [64]sync.Pool }

var _ kgo.PoolRecords = (*recordPool)(nil)

// records is the pool every Kafka source's client shares.
var records = &recordPool{}

// GetRecords returns a slice of capacity at least n: the smallest power
// of two that holds n.
func (rp *recordPool) GetRecords(n int) []kgo.Record {
	c := bits.Len(uint(max(n, 1) - 1))
	if v, ok := rp.classes[c].Get().(*[]kgo.Record); ok {
		return (*v)[:0]
	}
	return make([]kgo.Record, 0, 1<<c)
}

// PutRecords takes a slice back, zeroed so that the pool keeps no
// message alive, into the largest class its capacity fills.
func (rp *recordPool) PutRecords(s []kgo.Record) {
	if cap(s) == 0 {
		return
	}
	s = s[:cap(s)]
	clear(s)
	rp.classes[bits.Len(uint(cap(s)))-1].Put(&s)
}

// bytesPool lends the client the buffers it decompresses fetched batches
// into (kgo.PoolDecompressBytes), pooled by size class like the records:
// the records' keys and values point into them until recycled.
type bytesPool struct{ classes [64]sync.Pool }

var _ kgo.PoolDecompressBytes = (*bytesPool)(nil)

// buffers is the pool every Kafka source's client shares.
var buffers = &bytesPool{}

// GetDecompressBytes returns a buffer for the batch src decompresses to: as
// large as a snappy block says it decodes to, a guess of four times src
// for other codecs (a codec that needs more allocates its own, which comes
// back to the pool).
func (bp *bytesPool) GetDecompressBytes(src []byte, codec kgo.CompressionCodecType) []byte {
	n := 4 * len(src)
	if codec == kgo.CodecSnappy {
		if l, k := binary.Uvarint(src); k > 0 && l <= 1<<30 {
			n = int(l)
		}
	}
	c := bits.Len(uint(max(n, 1) - 1))
	if v, ok := bp.classes[c].Get().(*[]byte); ok {
		return (*v)[:0]
	}
	return make([]byte, 0, 1<<c)
}

// PutDecompressBytes takes a buffer back (the client zeroed the bytes it
// used) into the largest class its capacity fills.
func (bp *bytesPool) PutDecompressBytes(b []byte) {
	if cap(b) == 0 {
		return
	}
	b = b[:0]
	bp.classes[bits.Len(uint(cap(b)))-1].Put(&b)
}
