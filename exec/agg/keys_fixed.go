package agg

import (
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/exec/internal/aggstate"
	"github.com/eddysql/eddy/exec/internal/vec"
)

// groupFixed groups a batch whose keys are several integer or double
// columns without NULLs (GROUP BY auction, window_start), the common shape
// of windowed aggregates, without looking every row up in the encoded-key
// table: the rows are first grouped by a 64-bit hash of their key values
// (aggstate.BatchGroups), each local group is checked to hold one key
// only, and then only each group's first row is encoded and looked up. It
// returns false, having changed nothing the caller relies on, when the
// batch does not qualify or two keys of the batch share a hash (then
// the caller groups row by row).
func (g *groupKeys) groupFixed(rec arrow.RecordBatch, lids []int32) bool {
	n := int(rec.NumRows())
	if len(g.fixed) != len(g.cols) {
		g.fixed = make([][]int64, len(g.cols))
		g.fixedBufs = make([][]int64, len(g.cols))
	}
	for c, ord := range g.cols {
		arr := rec.Column(ord)
		if arr.NullN() > 0 {
			return false
		}
		switch g.kinds[c] {
		case accum.KindInt:
			vals, buf, err := accum.IntValues(arr, g.fixedBufs[c])
			g.fixedBufs[c] = buf
			if err != nil {
				return false
			}
			g.fixed[c] = vals
		case accum.KindFloat:
			a, ok := arr.(*array.Float64)
			if !ok {
				return false
			}
			buf := vec.Resize(g.fixedBufs[c], n)
			for i, v := range a.Float64Values() {
				buf[i] = int64(exec.FloatBits(v))
			}
			g.fixedBufs[c], g.fixed[c] = buf, buf
		default:
			return false
		}
	}

	// The rows' hashes, combined column by column.
	h := vec.Resize(g.slotKeys, n)
	g.slotKeys = h
	for i, v := range g.fixed[0][:n] {
		h[i] = int64(aggstate.Hash64(v))
	}
	for _, vals := range g.fixed[1:] {
		vals = vals[:n]
		for i, v := range vals {
			h[i] = int64(aggstate.Hash64(v ^ int64(uint64(h[i])*0x9e3779b97f4a7c15)))
		}
	}
	g.batch.Group(h, lids)
	first := g.batch.First

	// A local group must hold one key: compare every row with its group's
	// first row.
	for _, vals := range g.fixed {
		vals = vals[:n]
		for i, l := range lids[:n] {
			if vals[i] != vals[first[l]] {
				return false
			}
		}
	}

	// Encode each local group's key as encode does, all first, then look
	// them up together (BytesGroups.FindAll, which overlaps their cache
	// misses).
	size := len(g.cols) * 9
	g.buf = vec.Resize(g.buf, size*len(first))
	g.off = vec.Resize(g.off, len(first)+1)
	buf := g.buf
	for l, r := range first {
		p := l * size
		g.off[l] = p
		for _, vals := range g.fixed {
			buf[p] = 1
			binary.LittleEndian.PutUint64(buf[p+1:], uint64(vals[r]))
			p += 9
		}
	}
	g.off[len(first)] = size * len(first)
	g.touched = vec.Resize(g.touched, len(first))
	g.bytes.FindAll(buf, g.off, g.touched)
	return true
}
