package cluster

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/eddysql/eddy/exec"
)

// ReaderConfig configures a shuffle reader: the source that begins a
// task's fragment where the query's dataflow had an exchange, reading
// one partition of the exchange's topic.
type ReaderConfig struct {
	Brokers   []string
	Topic     string
	Partition int32
	// Producers is the number of tasks that write the topic: the reader's
	// watermark is the least of theirs (those not idle).
	Producers int
	// Schema is the rows' schema.
	Schema *arrow.Schema
}

// Reader is a shuffle reader (ReaderConfig). It reads committed records
// only, so it sees what its producers' checkpoints published, and turns
// their watermark records into the watermark of its task: the least
// watermark over the producers that are not idle, once each has sent
// one. Its position, which its task's checkpoints record, is the offset
// of the next record and every producer's watermark.
type Reader struct {
	cfg     ReaderConfig
	env     *exec.Env
	cl      *kgo.Client
	next    int64 // the offset of the next record to return
	recs    []*kgo.Record
	at      int
	wms     []int64 // by producer; noWatermark until it sends one
	idle    []bool  // by producer
	out     int64   // the watermark last emitted (noWatermark: none)
	outIdle bool
	started bool
	closed  bool
}

// noWatermark marks a producer that has sent no watermark yet.
const noWatermark = int64(-1 << 63)

var (
	_ exec.MessageSource = (*Reader)(nil)
	_ exec.Positioned    = (*Reader)(nil)
)

// NewReader returns a shuffle reader of cfg.
func NewReader(cfg ReaderConfig) *Reader { return &Reader{cfg: cfg} }

// Open prepares the reader to read from the start of its partition.
func (r *Reader) Open(_ context.Context, env *exec.Env) error {
	if r.cfg.Producers < 1 {
		return errors.New("cluster: a shuffle reader needs at least one producer")
	}
	r.env, r.out = env, noWatermark
	r.wms, r.idle = make([]int64, r.cfg.Producers), make([]bool, r.cfg.Producers)
	for i := range r.wms {
		r.wms[i] = noWatermark
	}
	return nil
}

// Next is not used: the runtime reads a message source with NextMessage.
func (r *Reader) Next(context.Context) (exec.Chunk, error) {
	return exec.Chunk{}, errors.New("cluster: a shuffle reader is read with NextMessage")
}

// Wait returns at once (see Next).
func (r *Reader) Wait(context.Context) error { return nil }

// NextMessage returns the next chunk of rows, or the watermark when the
// records read changed it; it blocks until there is one or ctx is done.
func (r *Reader) NextMessage(ctx context.Context) (exec.Chunk, exec.Control, error) {
	for {
		if r.at < len(r.recs) {
			rec := r.recs[r.at]
			r.at++
			r.next = rec.Offset + 1
			d, err := decodeRecord(rec.Value, r.cfg.Schema, r.env.Alloc)
			if err != nil {
				return exec.Chunk{}, exec.Control{}, fmt.Errorf("cluster: topic %s partition %d offset %d: %w", r.cfg.Topic, r.cfg.Partition, rec.Offset, err)
			}
			if d.producer >= r.cfg.Producers {
				if d.chunk.Batch != nil {
					d.chunk.Batch.Release()
				}
				return exec.Chunk{}, exec.Control{}, fmt.Errorf("cluster: topic %s partition %d offset %d: a record of task %d, and %d tasks write the topic",
					r.cfg.Topic, r.cfg.Partition, rec.Offset, d.producer, r.cfg.Producers)
			}
			if d.kind == kindData {
				if d.chunk.NumRows() == 0 {
					d.chunk.Batch.Release()
					continue
				}
				return d.chunk, exec.Control{}, nil
			}
			r.wms[d.producer], r.idle[d.producer] = d.wm, d.idle
			if m, ok := r.watermark(); ok {
				return exec.Chunk{}, m, nil
			}
			continue
		}
		if err := r.fetch(ctx); err != nil {
			return exec.Chunk{}, exec.Control{}, err
		}
	}
}

// watermark returns the watermark message the producers' watermarks call
// for, if it differs from the last one sent.
func (r *Reader) watermark() (exec.Control, bool) {
	least, active := int64(0), false
	for i, wm := range r.wms {
		if r.idle[i] {
			continue
		}
		if wm == noWatermark {
			return exec.Control{}, false
		}
		if !active || wm < least {
			least, active = wm, true
		}
	}
	if !active {
		if r.outIdle {
			return exec.Control{}, false
		}
		r.outIdle = true
		return exec.Control{Kind: exec.Watermark, Watermark: r.out, Idle: true}, true
	}
	if least <= r.out && !r.outIdle {
		return exec.Control{}, false
	}
	r.out, r.outIdle = max(r.out, least), false
	return exec.Control{Kind: exec.Watermark, Watermark: r.out}, true
}

// fetch waits for the next records of the partition.
func (r *Reader) fetch(ctx context.Context) error {
	if r.closed {
		return io.ErrClosedPipe
	}
	if !r.started {
		cl, err := kgo.NewClient(kgo.SeedBrokers(r.cfg.Brokers...),
			kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{r.cfg.Topic: {r.cfg.Partition: kgo.NewOffset().At(r.next)}}),
			kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.FetchMaxPartitionBytes(8<<20))
		if err != nil {
			return fmt.Errorf("cluster: reading topic %s: %w", r.cfg.Topic, err)
		}
		r.cl, r.started = cl, true
	}
	// Records a poll returns are the reader's to keep, even when ctx
	// ended meanwhile (a barrier woke the task): the client does not
	// return them again.
	fs := r.cl.PollFetches(ctx)
	r.recs, r.at = fs.Records(), 0
	var ferr error
	fs.EachError(func(t string, p int32, err error) {
		if ferr == nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			ferr = fmt.Errorf("cluster: reading topic %s partition %d: %w", t, p, err)
		}
	})
	switch {
	case len(r.recs) > 0:
		return nil
	case ferr != nil:
		return ferr
	}
	return ctx.Err()
}

// Position returns the offset of the next record and the producers'
// watermarks, with a checksum.
func (r *Reader) Position() ([]byte, error) {
	if r.wms == nil {
		return nil, errors.New("cluster: shuffle reader is not open")
	}
	b := binary.AppendUvarint(nil, uint64(len(r.cfg.Topic)))
	b = append(b, r.cfg.Topic...)
	b = binary.AppendUvarint(b, uint64(r.cfg.Partition))
	b = binary.AppendUvarint(b, uint64(r.next))
	b = binary.AppendVarint(b, r.out)
	b = binary.AppendUvarint(b, uint64(len(r.wms)))
	for i, wm := range r.wms {
		b = binary.AppendVarint(b, wm)
		b = append(b, boolByte(r.idle[i]))
	}
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b)), nil
}

// Seek moves the reader to a position Position returned for the same
// topic, partition and producers.
func (r *Reader) Seek(_ context.Context, pos []byte) error {
	bad := fmt.Errorf("cluster: shuffle reader of %s[%d]: cannot seek to a damaged position", r.cfg.Topic, r.cfg.Partition)
	switch {
	case r.started:
		return errors.New("cluster: Seek after reading")
	case len(pos) < 4 || crc32.ChecksumIEEE(pos[:len(pos)-4]) != binary.BigEndian.Uint32(pos[len(pos)-4:]):
		return bad
	}
	d := decoder{b: pos[:len(pos)-4]}
	topic := string(d.bytes())
	part, next, out, n := d.uint(), d.uint(), d.int(), d.uint()
	if d.err || topic != r.cfg.Topic || part != uint64(r.cfg.Partition) || n != uint64(r.cfg.Producers) {
		return fmt.Errorf("cluster: shuffle reader of %s[%d] with %d producers: the position is another's (%s[%d], %d producers)",
			r.cfg.Topic, r.cfg.Partition, r.cfg.Producers, topic, part, n)
	}
	for i := range r.wms {
		r.wms[i] = d.int()
		r.idle[i] = d.byte() == 1
	}
	if d.err || len(d.b) != 0 {
		return bad
	}
	r.next, r.out = int64(next), out
	return nil
}

// Close closes the reader's client. It is idempotent.
func (r *Reader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	if r.cl != nil {
		r.cl.Close()
	}
	r.recs = nil // records hold no Arrow memory until decoded
	return nil
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// decoder reads varints, remembering the first failure.
type decoder struct {
	b   []byte
	err bool
}

func (d *decoder) uint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = true
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) int() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = true
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.err = true
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *decoder) bytes() []byte {
	n := d.uint()
	if d.err || n > uint64(len(d.b)) {
		d.err = true
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}
