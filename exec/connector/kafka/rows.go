package kafka

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/connector/file"
)

// rows builds a chunk's columns from messages: the value's fields through
// a file.Decoder (JSON, CSV) or as one VARCHAR (raw), the metadata columns
// from the message itself. A message whose value cannot be decoded adds
// nothing to any column.
type rows struct {
	schema *arrow.Schema
	meta   []int // per column: its metadata kind, metaNone for a value field
	valOf  []int // per column: its index among the value columns
	dec    *file.Decoder
	raw    *array.StringBuilder // FormatRaw: the value column
	mb     []array.Builder      // per column: the builder of a metadata column
	size   int
	n      int
	hdrBuf []byte
}

// newRows returns a builder of batches of at most size rows of cfg's
// columns.
func newRows(cfg *Config, alloc memory.Allocator, size int) (*rows, error) {
	r := &rows{meta: cfg.Meta, valOf: make([]int, len(cfg.Columns)), mb: make([]array.Builder, len(cfg.Columns)), size: size}
	fields := make([]arrow.Field, len(cfg.Columns))
	var vals []catalog.Column
	for j, c := range cfg.Columns {
		fields[j] = types.Field(c.Name, c.Type, c.Nullable)
		if cfg.Meta[j] != metaNone {
			r.mb[j] = array.NewBuilder(alloc, c.Type.Arrow())
			continue
		}
		r.valOf[j] = len(vals)
		vals = append(vals, c)
	}
	r.schema = arrow.NewSchema(fields, nil)
	if cfg.Format == FormatRaw {
		r.raw = array.NewStringBuilder(alloc)
		return r, nil
	}
	if len(vals) == 0 {
		return r, nil
	}
	dec, err := file.NewDecoder(cfg.Format, cfg.Delimiter, vals, alloc, size)
	if err != nil {
		r.release()
		return nil, fmt.Errorf("kafka connector: %w", err)
	}
	r.dec = dec
	return r, nil
}

// full reports whether the batch holds its most rows.
func (r *rows) full() bool { return r.n >= r.size }

// add appends the row of message m, or returns why its value cannot be
// read (and appends nothing).
func (r *rows) add(m *kgo.Record) *file.DecodeError {
	switch {
	case r.raw != nil:
		if m.Value == nil {
			r.raw.AppendNull()
		} else if !utf8.Valid(m.Value) {
			return &file.DecodeError{Msg: "the value is not valid UTF-8"}
		} else {
			r.raw.BinaryBuilder.Append(m.Value)
		}
	case r.dec != nil:
		if m.Value == nil {
			return &file.DecodeError{Msg: "the message has no value (a tombstone)"}
		}
		if err := r.dec.Decode(m.Value); err != nil {
			return err
		}
	}
	for j, b := range r.mb {
		if b == nil {
			continue
		}
		switch r.meta[j] {
		case metaKey:
			sb := b.(*array.StringBuilder)
			if m.Key == nil {
				sb.AppendNull()
			} else {
				sb.BinaryBuilder.Append(m.Key) // not checked for UTF-8: keys are often binary ids
			}
		case metaPartition:
			b.(*array.Int64Builder).Append(int64(m.Partition))
		case metaOffset:
			b.(*array.Int64Builder).Append(m.Offset)
		case metaTimestamp:
			b.(*array.TimestampBuilder).Append(arrow.Timestamp(m.Timestamp.UnixMilli()))
		case metaHeaders:
			b.(*array.StringBuilder).BinaryBuilder.Append(r.headers(m.Headers))
		}
	}
	r.n++
	return nil
}

// headers renders a message's headers as a JSON object of strings (a
// repeated key keeps its last value).
func (r *rows) headers(hs []kgo.RecordHeader) []byte {
	b := append(r.hdrBuf[:0], '{')
	for i, h := range hs {
		if i > 0 {
			b = append(b, ',')
		}
		k, _ := json.Marshal(h.Key)
		v, _ := json.Marshal(string(h.Value))
		b = append(append(append(b, k...), ':'), v...)
	}
	r.hdrBuf = append(b, '}')
	return r.hdrBuf
}

// finish returns the rows appended so far as a record batch (nil when
// there are none) and starts a new batch.
func (r *rows) finish() arrow.RecordBatch {
	if r.n == 0 {
		return nil
	}
	var vals []arrow.Array
	if r.dec != nil {
		vals = r.dec.Finish()
	}
	cols := make([]arrow.Array, len(r.meta))
	for j := range cols {
		switch {
		case r.mb[j] != nil:
			cols[j] = r.mb[j].NewArray()
		case r.raw != nil:
			cols[j] = r.raw.NewArray()
		default:
			cols[j] = vals[r.valOf[j]]
		}
	}
	rec := array.NewRecordBatch(r.schema, cols, int64(r.n))
	for _, a := range cols {
		a.Release()
	}
	r.n = 0
	return rec
}

// release frees the builders.
func (r *rows) release() {
	if r.dec != nil {
		r.dec.Release()
		r.dec = nil
	}
	if r.raw != nil {
		r.raw.Release()
		r.raw = nil
	}
	for j, b := range r.mb {
		if b != nil {
			b.Release()
			r.mb[j] = nil
		}
	}
}
