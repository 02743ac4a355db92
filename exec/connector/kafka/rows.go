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
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector/file"
)

// rows builds a chunk's columns from messages: the value's fields through
// a file.Decoder (JSON, CSV; the row image of a changelog format) or as
// one VARCHAR (raw), the metadata columns from the message itself. A
// message that cannot be read adds nothing to any column.
type rows struct {
	schema *arrow.Schema
	format formatKind
	meta   []int // per column: its metadata kind, metaNone for a value field
	metas  []int // the columns with a builder of their own (metadata)
	valOf  []int // per column: its index among the value columns
	dec    *file.Decoder
	raw    *array.StringBuilder // FormatRaw: the value column
	mb     []array.Builder      // per column: the builder of a metadata column
	keyCol int                  // the key column, or -1
	keyDec *file.Decoder        // a key column not VARCHAR: its value parsed from the key's text
	env    *file.Decoder        // FormatDebezium: the envelope (before, after, op, payload)
	ops    []exec.Op            // a changelog format: per row, its op
	size   int
	n      int
	hdrBuf []byte
}

// formatKind is the format option as a number, for the per-message
// switch.
type formatKind uint8

const (
	kindJSON formatKind = iota
	kindCSV
	kindRaw
	kindUpsert
	kindDebezium
)

// kindOf maps the format option to its formatKind.
var kindOf = map[string]formatKind{FormatJSON: kindJSON, FormatCSV: kindCSV, FormatRaw: kindRaw,
	FormatUpsert: kindUpsert, FormatDebezium: kindDebezium}

// The envelope columns of a Debezium message.
const (
	dbzBefore = iota
	dbzAfter
	dbzOp
	dbzPayload
)

// newRows returns a builder of batches of at most size rows of cfg's
// columns.
func newRows(cfg *Config, alloc memory.Allocator, size int) (*rows, error) {
	r := &rows{format: kindOf[cfg.Format], meta: cfg.Meta, valOf: make([]int, len(cfg.Columns)),
		mb: make([]array.Builder, len(cfg.Columns)), keyCol: -1, size: size}
	fields := make([]arrow.Field, len(cfg.Columns))
	var vals []catalog.Column
	for j, c := range cfg.Columns {
		fields[j] = types.Field(c.Name, c.Type, c.Nullable)
		switch {
		case cfg.Meta[j] == metaKey && c.Type.Kind != types.Varchar:
			r.keyCol = j
			dec, err := file.NewDecoder(file.FormatCSV, 0, []catalog.Column{c}, alloc, size)
			if err != nil {
				r.release()
				return nil, fmt.Errorf("kafka connector: %w", err)
			}
			r.keyDec = dec
		case cfg.Meta[j] != metaNone:
			if cfg.Meta[j] == metaKey {
				r.keyCol = j
			}
			r.mb[j] = array.NewBuilder(alloc, c.Type.Arrow())
			r.metas = append(r.metas, j)
		default:
			r.valOf[j] = len(vals)
			vals = append(vals, c)
		}
	}
	r.schema = arrow.NewSchema(fields, nil)
	if cfg.Format == FormatRaw {
		r.raw = array.NewStringBuilder(alloc)
		return r, nil
	}
	if cfg.Format == FormatDebezium {
		env := []catalog.Column{{Name: "before", Type: types.VarcharT, Nullable: true}, {Name: "after", Type: types.VarcharT, Nullable: true},
			{Name: "op", Type: types.VarcharT, Nullable: true}, {Name: "payload", Type: types.VarcharT, Nullable: true}}
		dec, err := file.NewDecoder(file.FormatJSON, 0, env, alloc, 1)
		if err != nil {
			r.release()
			return nil, fmt.Errorf("kafka connector: %w", err)
		}
		r.env = dec
	}
	if len(vals) == 0 {
		return r, nil
	}
	format := cfg.Format
	if format != FormatCSV {
		format = file.FormatJSON
	}
	dec, err := file.NewDecoder(format, cfg.Delimiter, vals, alloc, size)
	if err != nil {
		r.release()
		return nil, fmt.Errorf("kafka connector: %w", err)
	}
	r.dec = dec
	return r, nil
}

// full reports whether the batch holds its most rows.
func (r *rows) full() bool { return r.n >= r.size }

// add appends the row of message m, or returns why it cannot be read
// (and appends nothing).
func (r *rows) add(m *kgo.Record) *file.DecodeError {
	if r.keyDec != nil {
		if m.Key == nil {
			return &file.DecodeError{Msg: "the message has no key"}
		}
		if err := r.keyDec.Parse(m.Key); err != nil {
			err.Msg = "the key: " + err.Msg
			return err
		}
	}
	op, nulls := exec.Insert, false
	switch r.format {
	case kindRaw:
		if m.Value != nil && !utf8.Valid(m.Value) {
			return &file.DecodeError{Msg: "the value is not valid UTF-8"}
		}
	case kindUpsert:
		if m.Key == nil {
			return &file.DecodeError{Msg: "the message has no key"}
		}
		if m.Value == nil {
			op, nulls = exec.Delete, true // a tombstone deletes the key
		} else if err := r.parseValue(m.Value); err != nil {
			return err
		}
	case kindDebezium:
		if m.Value == nil {
			return nil // the tombstone after a delete, for compaction: no change
		}
		var err *file.DecodeError
		if op, err = r.parseDebezium(m.Value); err != nil {
			return err
		}
	default:
		if m.Value == nil {
			return &file.DecodeError{Msg: "the message has no value (a tombstone)"}
		}
		if err := r.parseValue(m.Value); err != nil {
			return err
		}
	}
	switch {
	case r.raw != nil && m.Value == nil:
		r.raw.AppendNull()
	case r.raw != nil:
		r.raw.BinaryBuilder.Append(m.Value)
	case r.dec != nil && nulls:
		r.dec.AppendNulls()
	case r.dec != nil:
		r.dec.Append()
	}
	if r.keyDec != nil {
		r.keyDec.Append()
	}
	if r.format >= kindUpsert {
		r.ops = append(r.ops, op)
	}
	r.addMeta(m)
	r.n++
	return nil
}

// parseValue parses a value into the value columns.
func (r *rows) parseValue(v []byte) *file.DecodeError {
	if r.dec == nil {
		return nil
	}
	return r.dec.Parse(v)
}

// parseDebezium parses a Debezium change event (its payload, with or
// without the schema envelope) into the value columns: the row after a
// create, read or update (an insert, which the table's primary key makes
// an update), the row before a delete.
func (r *rows) parseDebezium(v []byte) (exec.Op, *file.DecodeError) {
	if err := r.env.Parse(v); err != nil {
		return 0, err
	}
	if p, ok := r.env.Text(dbzPayload); ok {
		if err := r.env.Parse(p); err != nil {
			err.Msg = "payload: " + err.Msg
			return 0, err
		}
	}
	opText, ok := r.env.Text(dbzOp)
	if !ok {
		return 0, &file.DecodeError{Msg: "a Debezium event without an op"}
	}
	img, op, which := dbzAfter, exec.Insert, "after"
	switch string(opText) {
	case "c", "r", "u":
	case "d":
		img, op, which = dbzBefore, exec.Delete, "before"
	default:
		return 0, &file.DecodeError{Msg: fmt.Sprintf("unknown Debezium op %q", opText)}
	}
	row, ok := r.env.Text(img)
	if !ok {
		return 0, &file.DecodeError{Msg: "a Debezium '" + string(opText) + "' event without its " + which + " row"}
	}
	if err := r.parseValue(row); err != nil {
		err.Msg = which + ": " + err.Msg
		return 0, err
	}
	return op, nil
}

// addMeta appends the metadata columns of m.
func (r *rows) addMeta(m *kgo.Record) {
	for _, j := range r.metas {
		b := r.mb[j]
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

// finish returns the rows appended so far as a chunk (a nil batch when
// there are none) and starts a new batch. A changelog format's chunk has
// its ops, valid until the next finish.
func (r *rows) finish() exec.Chunk {
	if r.n == 0 {
		return exec.Chunk{}
	}
	var vals []arrow.Array
	if r.dec != nil {
		vals = r.dec.Finish()
	}
	cols := make([]arrow.Array, len(r.meta))
	for j := range cols {
		switch {
		case j == r.keyCol && r.keyDec != nil:
			cols[j] = r.keyDec.Finish()[0]
		case r.mb[j] != nil:
			cols[j] = r.mb[j].NewArray()
		case r.raw != nil:
			cols[j] = r.raw.NewArray()
		default:
			cols[j] = vals[r.valOf[j]]
		}
	}
	c := exec.Chunk{Batch: array.NewRecordBatch(r.schema, cols, int64(r.n))}
	for _, a := range cols {
		a.Release()
	}
	if r.ops != nil {
		c.Ops = r.ops
		r.ops = r.ops[:0]
		if c.AppendOnly() {
			c.Ops = nil
		}
	}
	r.n = 0
	return c
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
	if r.keyDec != nil {
		r.keyDec.Release()
		r.keyDec = nil
	}
	if r.env != nil {
		r.env.Release()
		r.env = nil
	}
	for j, b := range r.mb {
		if b != nil {
			b.Release()
			r.mb[j] = nil
		}
	}
}
