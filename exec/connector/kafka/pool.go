package kafka

import (
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"
)

// recordPool lends the client the slices it decodes fetched records into
// (kgo.PoolRecords), so that reading a topic does not allocate a record
// per message: the source recycles each record once it has read it. (A
// pool of decompression buffers too measured no faster.)
type recordPool struct{ p sync.Pool }

var _ kgo.PoolRecords = (*recordPool)(nil)

// records is the pool every Kafka source's client shares.
var records = &recordPool{}

// GetRecords returns a slice of capacity at least n.
func (rp *recordPool) GetRecords(n int) []kgo.Record {
	if v, ok := rp.p.Get().(*[]kgo.Record); ok && cap(*v) >= n {
		return (*v)[:0]
	}
	return make([]kgo.Record, 0, n)
}

// PutRecords takes a slice back.
func (rp *recordPool) PutRecords(s []kgo.Record) {
	clear(s[:cap(s)])
	rp.p.Put(&s)
}
