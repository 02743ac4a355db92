package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/endian"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// maxRows bounds the rows a header may claim, so that buffer sizes cannot
// overflow; a batch is far smaller.
const maxRows = 1 << 40

// colHeader is one column's entry in the header, with the body offsets of
// its buffers once laid out.
type colHeader struct {
	lay     layout
	width   int
	nulls   int
	dataLen int
	// Body offsets of the validity bitmap (-1 when absent), the values (or
	// offsets) and the string data.
	validity, values, data int
}

// DecodeBatch decodes a batch EncodeBatch encoded into buffers from alloc.
// schema must have the column layouts the batch was encoded with (types may
// differ only where their layouts agree, such as int64 and timestamp). The
// caller releases the batch. Every error wraps ErrCorrupt.
func DecodeBatch(src []byte, schema *arrow.Schema, alloc memory.Allocator) (arrow.RecordBatch, error) {
	if endian.IsBigEndian {
		return nil, errBigEndian
	}
	cols, rows, body, err := decodeHeader(src, schema)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if err := validateBody(cols, rows, body); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	var buf *memory.Buffer
	if len(body) > 0 {
		buf = memory.NewResizableBuffer(alloc)
		buf.Resize(len(body))
		copy(buf.Bytes(), body)
		defer buf.Release()
	}
	arrs := make([]arrow.Array, len(cols))
	for i := range cols {
		arrs[i] = makeArray(schema.Field(i).Type, &cols[i], rows, buf)
	}
	rec := array.NewRecordBatch(schema, arrs, int64(rows))
	for _, a := range arrs {
		a.Release()
	}
	return rec, nil
}

// decodeHeader parses the header, checks it against schema and returns the
// columns with their buffers laid out and the body, whose length it checks.
func decodeHeader(src []byte, schema *arrow.Schema) ([]colHeader, int, []byte, error) {
	r := reader{b: src}
	if f := r.byte(); f != batchFormat {
		return nil, 0, nil, fmt.Errorf("unknown batch format %d", f)
	}
	rows64 := r.uvarint()
	ncols := r.uvarint()
	if r.err != nil {
		return nil, 0, nil, r.err
	}
	if rows64 > maxRows {
		return nil, 0, nil, fmt.Errorf("row count %d is implausible", rows64)
	}
	if ncols != uint64(schema.NumFields()) {
		return nil, 0, nil, fmt.Errorf("batch has %d columns, the schema %d", ncols, schema.NumFields())
	}
	rows := int(rows64)
	cols := make([]colHeader, ncols)
	size := 0 // body bytes laid out so far
	place := func(n int) int {
		at := size
		size += (n + 7) &^ 7
		return at
	}
	for i := range cols {
		c := &cols[i]
		c.lay = layout(r.byte())
		if c.lay == layoutFixed {
			c.width = int(min(r.uvarint(), maxFixedWidth+1))
		}
		c.nulls = int(min(r.uvarint(), maxRows+1))
		if c.lay == layoutOffsets32 || c.lay == layoutOffsets64 {
			c.dataLen = int(min(r.uvarint(), math.MaxInt64>>2))
		}
		if r.err != nil {
			return nil, 0, nil, r.err
		}
		f := schema.Field(i)
		lay, width, ok := layoutOf(f.Type)
		if !ok {
			return nil, 0, nil, fmt.Errorf("%w: column %d (%s) is %s", ErrUnsupportedType, i, f.Name, f.Type)
		}
		if lay != c.lay || width != c.width {
			return nil, 0, nil, fmt.Errorf("column %d (%s) was stored with layout %d/%d, which does not fit %s",
				i, f.Name, c.lay, c.width, f.Type)
		}
		if c.nulls > rows || (lay == layoutNull && c.nulls != rows) {
			return nil, 0, nil, fmt.Errorf("column %d has %d nulls in %d rows", i, c.nulls, rows)
		}
		if lay == layoutOffsets32 && c.dataLen > math.MaxInt32 {
			return nil, 0, nil, fmt.Errorf("column %d has %d data bytes, too many for int32 offsets", i, c.dataLen)
		}
		bits := int(bitutil.BytesForBits(int64(rows)))
		c.validity = -1
		if c.nulls > 0 && lay != layoutNull {
			c.validity = place(bits)
		}
		switch lay {
		case layoutBits:
			c.values = place(bits)
		case layoutFixed:
			c.values = place(rows * c.width)
		case layoutOffsets32:
			c.values = place((rows + 1) * 4)
			c.data = place(c.dataLen)
		case layoutOffsets64:
			c.values = place((rows + 1) * 8)
			c.data = place(c.dataLen)
		}
		if size > len(src) {
			return nil, 0, nil, fmt.Errorf("column %d needs %d body bytes, the entry has %d", i, size, len(src))
		}
	}
	body := src[r.off:]
	if len(body) != size {
		return nil, 0, nil, fmt.Errorf("body is %d bytes, the header describes %d", len(body), size)
	}
	return cols, rows, body, nil
}

// validateBody checks null counts against the bitmaps and offsets against
// the data lengths, before any array sees them.
func validateBody(cols []colHeader, rows int, body []byte) error {
	for i := range cols {
		c := &cols[i]
		if c.validity >= 0 {
			if set := bitutil.CountSetBits(body[c.validity:], 0, rows); set != rows-c.nulls {
				return fmt.Errorf("column %d: validity bitmap has %d nulls, the header %d", i, rows-set, c.nulls)
			}
		}
		switch c.lay {
		case layoutOffsets32:
			offs := arrow.Int32Traits.CastFromBytes(body[c.values : c.values+(rows+1)*4])
			if err := checkOffsets(offs, int32(c.dataLen)); err != nil {
				return fmt.Errorf("column %d: %w", i, err)
			}
		case layoutOffsets64:
			offs := arrow.Int64Traits.CastFromBytes(body[c.values : c.values+(rows+1)*8])
			if err := checkOffsets(offs, int64(c.dataLen)); err != nil {
				return fmt.Errorf("column %d: %w", i, err)
			}
		}
	}
	return nil
}

// checkOffsets checks that offs starts at 0, never decreases and ends at
// end.
func checkOffsets[T int32 | int64](offs []T, end T) error {
	if offs[0] != 0 {
		return fmt.Errorf("first offset is %d", offs[0])
	}
	prev := T(0)
	for j, o := range offs[1:] {
		if o < prev {
			return fmt.Errorf("offset %d decreases", j+1)
		}
		prev = o
	}
	if prev != end {
		return fmt.Errorf("last offset is %d, the data %d bytes", prev, end)
	}
	return nil
}

// makeArray builds column c's array over slices of buf.
func makeArray(dt arrow.DataType, c *colHeader, rows int, buf *memory.Buffer) arrow.Array {
	slice := func(at, n int) *memory.Buffer {
		if at < 0 || buf == nil {
			return nil
		}
		return memory.SliceBuffer(buf, at, n)
	}
	bits := int(bitutil.BytesForBits(int64(rows)))
	var bufs []*memory.Buffer
	switch c.lay {
	case layoutNull:
		bufs = []*memory.Buffer{nil}
	case layoutBits:
		bufs = []*memory.Buffer{slice(c.validity, bits), slice(c.values, bits)}
	case layoutFixed:
		bufs = []*memory.Buffer{slice(c.validity, bits), slice(c.values, rows*c.width)}
	case layoutOffsets32:
		bufs = []*memory.Buffer{slice(c.validity, bits), slice(c.values, (rows+1)*4), slice(c.data, c.dataLen)}
	case layoutOffsets64:
		bufs = []*memory.Buffer{slice(c.validity, bits), slice(c.values, (rows+1)*8), slice(c.data, c.dataLen)}
	}
	data := array.NewData(dt, rows, bufs, nil, c.nulls, 0)
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
	arr := array.MakeFromData(data)
	data.Release()
	return arr
}

// reader reads a header's bytes and varints, remembering the first error.
type reader struct {
	b   []byte
	off int
	err error
}

var errShortHeader = errors.New("header is truncated")

func (r *reader) byte() byte {
	if r.err != nil || r.off >= len(r.b) {
		r.err = errShortHeader
		return 0
	}
	r.off++
	return r.b[r.off-1]
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		r.err = errShortHeader
		return 0
	}
	r.off += n
	return v
}
