package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/endian"
)

// The batch codec stores a flat record batch as a small header followed by
// a body holding every column's buffers back to back, each starting at a
// multiple of 8 bytes from the body's start:
//
//	header: format byte (1), uvarint rows, uvarint columns, and per column
//	        a layout byte, uvarint width (fixed layout only), uvarint null
//	        count and uvarint data length (offsets layouts only)
//	body:   per column, the validity bitmap (only when nulls > 0), then the
//	        values: nothing (null), a bitmap (bool), rows*width bytes
//	        (fixed), or rows+1 offsets and the data (string and binary)
//
// Buffers are little-endian, offsets start at 0 and unused bitmap bits are
// zero, whatever slice of a larger array the column was. The schema is not
// stored: the reader supplies it, and the layouts recorded in the header
// are checked against it.
//
// Decoding copies the body into one allocation and slices every buffer out
// of it, so a batch costs one allocation and one copy. It validates sizes,
// null counts and offsets, so damaged bytes give an error, not a panic.
// Measured against Arrow IPC streams on 4,096-row batches of five columns
// (int64 x3, string, timestamp), it encodes about twice as fast (one copy
// per buffer, no flatbuffer metadata), decodes somewhat faster with a third
// of the allocations (both are dominated by allocating and copying the
// body), stores no schema per entry, and needs no extra module: arrow/ipc
// pulls in github.com/pierrec/lz4/v4, which go.mod does not require.
const batchFormat = 1

// layout is how a column's values are laid out in buffers.
type layout uint8

// The column layouts the codec supports.
const (
	layoutNull      layout = 1 // no buffers: every value is null
	layoutBits      layout = 2 // one bit per value (bool)
	layoutFixed     layout = 3 // width bytes per value
	layoutOffsets32 layout = 4 // int32 offsets and data (string, binary)
	layoutOffsets64 layout = 5 // int64 offsets and data (large_string, large_binary)
)

// maxFixedWidth bounds the width of fixed layouts a header may claim; the
// widest Arrow fixed type in use is decimal256 (32 bytes), and fixed-size
// binary columns of eddy keys stay far below this.
const maxFixedWidth = 1 << 16

// layoutOf returns the layout of values of type dt and, for fixed layouts,
// their width in bytes.
func layoutOf(dt arrow.DataType) (layout, int, bool) {
	switch dt.ID() {
	case arrow.NULL:
		return layoutNull, 0, true
	case arrow.BOOL:
		return layoutBits, 0, true
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64,
		arrow.DATE32, arrow.DATE64, arrow.TIME32, arrow.TIME64,
		arrow.TIMESTAMP, arrow.DURATION,
		arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128, arrow.DECIMAL256,
		arrow.INTERVAL_MONTHS, arrow.INTERVAL_DAY_TIME, arrow.INTERVAL_MONTH_DAY_NANO,
		arrow.FIXED_SIZE_BINARY:
		fw, ok := dt.(arrow.FixedWidthDataType)
		if !ok || fw.BitWidth()%8 != 0 || fw.BitWidth() == 0 || fw.BitWidth()/8 > maxFixedWidth {
			return 0, 0, false
		}
		return layoutFixed, fw.BitWidth() / 8, true
	case arrow.STRING, arrow.BINARY:
		return layoutOffsets32, 0, true
	case arrow.LARGE_STRING, arrow.LARGE_BINARY:
		return layoutOffsets64, 0, true
	}
	return 0, 0, false
}

// errBigEndian is returned on big-endian hosts, which the codec's
// little-endian buffers do not support yet.
var errBigEndian = errors.New("storage: batch codec needs a little-endian host")

// EncodeBatch appends the encoding of batch to dst. It fails with
// ErrUnsupportedType for nested, dictionary or extension columns.
func EncodeBatch(dst []byte, batch arrow.RecordBatch) ([]byte, error) {
	if endian.IsBigEndian {
		return nil, errBigEndian
	}
	rows := int(batch.NumRows())
	cols := batch.Columns()
	dst = append(dst, batchFormat)
	dst = binary.AppendUvarint(dst, uint64(rows))
	dst = binary.AppendUvarint(dst, uint64(len(cols)))
	for i, col := range cols {
		lay, width, ok := layoutOf(col.DataType())
		if !ok {
			return nil, fmt.Errorf("%w: column %d (%s) is %s",
				ErrUnsupportedType, i, batch.ColumnName(i), col.DataType())
		}
		if col.Len() != rows {
			return nil, fmt.Errorf("storage: column %d has %d rows, the batch %d", i, col.Len(), rows)
		}
		dst = append(dst, byte(lay))
		if lay == layoutFixed {
			dst = binary.AppendUvarint(dst, uint64(width))
		}
		dst = binary.AppendUvarint(dst, uint64(col.NullN()))
		switch lay {
		case layoutOffsets32:
			offs := offsets32(col.Data())
			dst = binary.AppendUvarint(dst, uint64(offs[rows]-offs[0]))
		case layoutOffsets64:
			offs := offsets64(col.Data())
			dst = binary.AppendUvarint(dst, uint64(offs[rows]-offs[0]))
		}
	}
	body := len(dst)
	for _, col := range cols {
		lay, width, _ := layoutOf(col.DataType())
		data := col.Data()
		off := data.Offset()
		if col.NullN() > 0 && lay != layoutNull {
			dst = appendBitmap(dst, body, bufBytes(data, 0), off, rows)
		}
		switch lay {
		case layoutBits:
			dst = appendBitmap(dst, body, bufBytes(data, 1), off, rows)
		case layoutFixed:
			if rows > 0 {
				dst = append(dst, bufBytes(data, 1)[off*width:(off+rows)*width]...)
			}
			dst = pad(dst, body)
		case layoutOffsets32:
			dst = appendOffsets(dst, body, offsets32(data), bufBytes(data, 2))
		case layoutOffsets64:
			dst = appendOffsets(dst, body, offsets64(data), bufBytes(data, 2))
		}
	}
	return dst, nil
}

// offsets32 returns the len+1 int32 offsets of a string or binary array.
func offsets32(data arrow.ArrayData) []int32 {
	if data.Len() == 0 && len(bufBytes(data, 1)) == 0 {
		return []int32{0}
	}
	offs := arrow.Int32Traits.CastFromBytes(bufBytes(data, 1))
	return offs[data.Offset() : data.Offset()+data.Len()+1]
}

// offsets64 returns the len+1 int64 offsets of a large string or binary
// array.
func offsets64(data arrow.ArrayData) []int64 {
	if data.Len() == 0 && len(bufBytes(data, 1)) == 0 {
		return []int64{0}
	}
	offs := arrow.Int64Traits.CastFromBytes(bufBytes(data, 1))
	return offs[data.Offset() : data.Offset()+data.Len()+1]
}

// appendOffsets appends a string or binary column's offsets, rebased to
// start at 0, then the bytes they delimit in values, each padded to the
// body's alignment.
func appendOffsets[T int32 | int64](dst []byte, body int, offs []T, values []byte) []byte {
	base := offs[0]
	for _, o := range offs {
		if unsafe.Sizeof(o) == 4 {
			dst = binary.LittleEndian.AppendUint32(dst, uint32(o-base))
		} else {
			dst = binary.LittleEndian.AppendUint64(dst, uint64(o-base))
		}
	}
	dst = pad(dst, body)
	dst = append(dst, values[base:offs[len(offs)-1]]...)
	return pad(dst, body)
}

func bufBytes(data arrow.ArrayData, i int) []byte {
	bufs := data.Buffers()
	if i >= len(bufs) || bufs[i] == nil {
		return nil
	}
	return bufs[i].Bytes()
}

// appendBitmap appends n bits of src starting at bit off, with the unused
// bits of the last byte zeroed, then pads to the body's alignment.
func appendBitmap(dst []byte, body int, src []byte, off, n int) []byte {
	nb := int(bitutil.BytesForBits(int64(n)))
	start := len(dst)
	dst = slices.Grow(dst, nb)[:start+nb]
	clear(dst[start:])
	if n > 0 {
		if off%8 == 0 {
			copy(dst[start:], src[off/8:off/8+nb])
		} else {
			bitutil.CopyBitmap(src, off, n, dst[start:], 0)
		}
		if n%8 != 0 {
			dst[start+nb-1] &= byte(1)<<(n%8) - 1
		}
	}
	return pad(dst, body)
}

// pad appends zeros until the body (which starts at dst[body]) is a
// multiple of 8 bytes long.
func pad(dst []byte, body int) []byte {
	for (len(dst)-body)%8 != 0 {
		dst = append(dst, 0)
	}
	return dst
}
