package nexmark

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
)

// strCol is a VARCHAR column under construction in raw Arrow buffers: int32
// offsets and the bytes of the values, written in place.
type strCol struct {
	offBuf, dataBuf *memory.Buffer
	offs            []int32 // offs[i+1] ends row i; offs[0] = 0
	data            []byte  // dataBuf's whole capacity
	n               int     // bytes used
}

// put sets row i, the next row, of c to s.
func put[S string | []byte](c *strCol, i int, s S) {
	end := c.n + len(s)
	if end > len(c.data) {
		c.grow(end)
	}
	copy(c.data[c.n:end], s)
	c.n = end
	c.offs[i+1] = int32(end)
}

// addNumbered sets row i, the next row, to prefix followed by v < 10^8 in
// decimal.
func (c *strCol) addNumbered(i int, prefix string, v uint32) {
	var digits [8]byte
	k := len(digits)
	for {
		k--
		digits[k] = '0' + byte(v%10)
		if v /= 10; v == 0 {
			break
		}
	}
	end := c.n + len(prefix) + len(digits) - k
	if end > len(c.data) {
		c.grow(end)
	}
	copy(c.data[c.n+copy(c.data[c.n:], prefix):end], digits[k:])
	c.n = end
	c.offs[i+1] = int32(end)
}

// grow makes room for at least need bytes, at least doubling the buffer so
// that appends stay amortized O(1).
func (c *strCol) grow(need int) {
	c.dataBuf.Reserve(max(need, 2*len(c.data)))
	c.data = c.dataBuf.Buf()
}

// batch is one chunk under construction: raw buffers for the declared
// columns, addressed by field ordinal so that the generators write each
// field where it goes, or nowhere when it was not declared.
type batch struct {
	rows int
	ints [maxFields][]int64 // BIGINT and TIMESTAMP fields; nil when not declared
	strs [maxFields]*strCol // VARCHAR fields; nil when not declared
	bufs [maxFields]*memory.Buffer
}

// setInt sets field f of the current row to v if f is declared. It is for
// values already at hand: a value that costs work to make (a price, a time)
// keeps its own nil check, so that a column not declared skips the work.
func (b *batch) setInt(f int, v int64) {
	if c := b.ints[f]; c != nil {
		c[b.rows] = v
	}
}

// setStr sets field f of the current row to s if f is declared.
func setStr[S string | []byte](b *batch, f int, s S) {
	if c := b.strs[f]; c != nil {
		put(c, b.rows, s)
	}
}

// newBatch returns a batch with room for capacity rows of the declared
// columns outs of a table with fields fs.
func newBatch(alloc memory.Allocator, fs []field, outs []outColumn, capacity int) *batch {
	b := &batch{}
	for _, o := range outs {
		f := o.field
		if fs[f].typ != fieldString {
			buf := memory.NewResizableBuffer(alloc)
			buf.Reserve(capacity * 8)
			b.bufs[f] = buf
			b.ints[f] = arrow.Int64Traits.CastFromBytes(buf.Buf())[:capacity]
			continue
		}
		c := &strCol{offBuf: memory.NewResizableBuffer(alloc), dataBuf: memory.NewResizableBuffer(alloc)}
		c.offBuf.Reserve((capacity + 1) * 4)
		c.offs = arrow.Int32Traits.CastFromBytes(c.offBuf.Buf())[:capacity+1]
		c.offs[0] = 0
		c.dataBuf.Reserve(max(capacity*fs[f].hint, 64))
		c.data = c.dataBuf.Buf()
		b.strs[f] = c
	}
	return b
}

// finish returns the batch's rows as a record batch of schema, whose
// columns are outs, and hands the buffers over to it. Times are rounded to
// each column's fsp.
func (b *batch) finish(schema *arrow.Schema, outs []outColumn) arrow.RecordBatch {
	cols := make([]arrow.Array, len(outs))
	for j, o := range outs {
		dt := o.col.Type.Arrow()
		var bufs []*memory.Buffer
		if c := b.strs[o.field]; c != nil {
			c.offBuf.ResizeNoShrink((b.rows + 1) * 4)
			c.dataBuf.ResizeNoShrink(c.n)
			bufs = []*memory.Buffer{nil, c.offBuf, c.dataBuf}
		} else {
			if fsp := int(o.col.Type.Fsp); o.col.Type.Kind == types.Timestamp && fsp < types.MaxFsp {
				vals := b.ints[o.field][:b.rows]
				for i, v := range vals {
					vals[i] = types.RoundToFsp(v, fsp)
				}
			}
			buf := b.bufs[o.field]
			buf.ResizeNoShrink(b.rows * 8)
			bufs = []*memory.Buffer{nil, buf}
		}
		data := array.NewData(dt, b.rows, bufs, nil, 0, 0)
		cols[j] = array.MakeFromData(data)
		data.Release()
	}
	rec := array.NewRecordBatch(schema, cols, int64(b.rows))
	for _, c := range cols {
		c.Release()
	}
	b.release()
	return rec
}

// release drops the batch's references to its buffers; those handed to a
// record batch by finish live on in it.
func (b *batch) release() {
	for f := range b.bufs {
		if b.bufs[f] != nil {
			b.bufs[f].Release()
			b.bufs[f] = nil
		}
		b.ints[f] = nil
		if c := b.strs[f]; c != nil {
			c.offBuf.Release()
			c.dataBuf.Release()
			b.strs[f] = nil
		}
	}
}
