package topn

import (
	"context"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/arrays"
	"github.com/eddysql/eddy/exec/internal/ordtree"
)

// outRow is a row of the output chunk being built: a row of a
// partition, its row number (when the output has one) and its op.
type outRow struct {
	part string
	key  string
	rn   int64
	op   exec.Op
}

// diff computes the output of a chunk from its changes (t.deltas): it
// groups them by partition (a counting sort, partitions being numbered by
// first touch), sorts and nets each partition's by key, then compares each
// touched partition's top rows before and after the chunk (diffPartition).
func (t *Operator) diff() {
	_ = t.netter.Each(t.deltas, len(t.parts.Touched), func(p int, net []ordtree.Delta) error {
		first := len(t.outRows)
		part := t.parts.Touched[p]
		if t.top.w != nil {
			t.saveTop(part, net) // copies as at the barrier, before they are noted changed
		}
		for _, d := range net {
			t.changes.Note(part.Key, d.Key)
		}
		t.diffPartition(part, net)
		if t.cfg.Limit == 1 && !t.cfg.RowNumber {
			t.pairSlot(first)
		}
		return nil
	})
}

// diffPartition records the output for one partition whose rows changed by
// ds (netted, sorted by key, none zero), already applied to its tree.
//
// Ranks are counted from 0 in copies; a row is in the top rows when its
// rank is below Limit. The tree gives every row's new rank. A row's old
// rank is its new rank minus s, the net number of copies the chunk added
// below it, which is constant between two changed keys. So only a changed
// key, or an unchanged row whose rank moved across Limit (or, with row
// numbers, moved at all within the top), can have output: the walk visits
// the changed keys in order and, between them, just the ranks where rows
// can have changed (diffRange). It costs O(len(ds) log n) plus the output.
func (t *Operator) diffPartition(p *ordtree.Partition, ds []ordtree.Delta) {
	limit := t.cfg.Limit
	var s, end int64 // end: the new rank after the previous changed key
	for _, d := range ds {
		rNew, cNew := p.Tree.Find(d.Key)
		t.diffRange(p, end, rNew, s)
		rOld := rNew - s
		if rOld >= limit && rNew >= limit {
			return // every later row is out of the top rows before and after
		}
		t.diffEntry(p.Key, d.S, rOld, cNew-d.W, rNew, cNew)
		s += d.W
		end = rNew + cNew
	}
	t.diffRange(p, end, p.Tree.Total, s)
}

// diffRange records the output for the unchanged rows at new ranks [a, b),
// whose old ranks are s lower. Without row numbers only ranks between
// Limit and Limit+s can cross the boundary; with them, every row in the
// top rows before or after has a new number.
func (t *Operator) diffRange(p *ordtree.Partition, a, b, s int64) {
	if s == 0 {
		return
	}
	// A row is in the top rows after the chunk if its new rank r < limit,
	// and was before if r-s < limit, that is r < limit+s (saturated: a pull
	// query numbers every row with limit math.MaxInt64).
	limit, shifted := t.cfg.Limit, t.cfg.Limit+s
	if s > 0 && shifted < limit {
		shifted = math.MaxInt64
	}
	lo, hi := a, min(b, max(limit, shifted))
	if !t.cfg.RowNumber {
		lo = max(a, min(limit, shifted))
	}
	if lo >= hi {
		return
	}
	cur, start := p.Tree.SeekRank(lo)
	for ; start < hi; cur.Next() {
		e := cur.Entry()
		if e == nil {
			break
		}
		t.diffEntry(p.Key, e.S, start-s, e.N, start, e.N)
		start += e.N
	}
}

// diffEntry records the output for one distinct row of a partition that had
// cOld copies from rank oldStart and has cNew from rank newStart. Copies are
// interchangeable, so a row number held before and after is unchanged; the
// others pair up as updates, and what is left over is deleted or inserted.
func (t *Operator) diffEntry(part, key string, oldStart, cOld, newStart, cNew int64) {
	limit := t.cfg.Limit
	o1, o2 := min(oldStart, limit), min(oldStart+cOld, limit)
	n1, n2 := min(newStart, limit), min(newStart+cNew, limit)
	if !t.cfg.RowNumber {
		for d := (n2 - n1) - (o2 - o1); d != 0; {
			if d > 0 {
				t.addOut(part, key, 0, exec.Insert)
				d--
			} else {
				t.addOut(part, key, 0, exec.Delete)
				d++
			}
		}
		return
	}
	c1, c2 := max(o1, n1), min(o2, n2)
	t.oldRanks = minus(t.oldRanks[:0], o1, o2, c1, c2)
	t.newRanks = minus(t.newRanks[:0], n1, n2, c1, c2)
	k := min(len(t.oldRanks), len(t.newRanks))
	for j := range k {
		t.addOut(part, key, t.oldRanks[j]+1, exec.UpdateBefore)
		t.addOut(part, key, t.newRanks[j]+1, exec.UpdateAfter)
	}
	for _, r := range t.oldRanks[k:] {
		t.addOut(part, key, r+1, exec.Delete)
	}
	for _, r := range t.newRanks[k:] {
		t.addOut(part, key, r+1, exec.Insert)
	}
}

// minus appends to dst the ranks of [lo, hi) outside [c1, c2), an
// interval within it or empty.
func minus(dst []int64, lo, hi, c1, c2 int64) []int64 {
	if c1 >= c2 {
		c1, c2 = hi, hi
	}
	for r := lo; r < min(hi, c1); r++ {
		dst = append(dst, r)
	}
	for r := max(lo, c2); r < hi; r++ {
		dst = append(dst, r)
	}
	return dst
}

// pairSlot turns a partition's output from start, with Limit 1 and no row
// number, from a -D of its old row and a +I of its new one into -U old /
// +U new: the partition's one slot was updated.
func (t *Operator) pairSlot(start int) {
	rows := t.outRows[start:]
	if len(rows) != 2 || rows[0].op == rows[1].op {
		return
	}
	if rows[0].op == exec.Insert {
		rows[0], rows[1] = rows[1], rows[0]
	}
	rows[0].op, rows[1].op = exec.UpdateBefore, exec.UpdateAfter
}

// addOut adds a row to the output chunk being built.
func (t *Operator) addOut(part, key string, rn int64, op exec.Op) {
	t.outRows = append(t.outRows, outRow{part: part, key: key, rn: rn, op: op})
}

// emit builds the output chunk from t.outRows, decoding the rows from their
// keys, and emits it.
func (t *Operator) emit(ctx context.Context, out exec.Emitter) error {
	n := len(t.outRows)
	if n == 0 {
		return nil
	}
	t.reserve(n)
	var rn *array.Int64Builder
	if t.cfg.RowNumber {
		rn = t.builders[len(t.cfg.Input)].(*array.Int64Builder)
	}
	t.ops = t.ops[:0]
	for _, r := range t.outRows {
		if err := t.appendRow(r.part, r.key); err != nil {
			t.resetBuilders()
			return err
		}
		if rn != nil {
			rn.Append(r.rn)
		}
		t.ops = append(t.ops, r.op)
	}
	cols := make([]arrow.Array, len(t.builders))
	for i, b := range t.builders {
		cols[i] = b.NewArray()
		if v, ok := cols[i].(interface{ ValueBytes() []byte }); ok {
			t.dataPerRow[i] = float64(len(v.ValueBytes())) / float64(n)
		}
	}
	return arrays.Emit(ctx, out, t.schema, cols, n, t.ops)
}

// reserve makes room in the builders for n rows, and in those of strings
// and binary values for their bytes as the last batch had them per row (a
// little more): the rows' values are decoded one by one, and a builder
// growing its data buffer as they come copies it over and over, a fresh
// buffer each time (a sixth of q19's CPU).
func (t *Operator) reserve(n int) {
	if len(t.dataPerRow) != len(t.builders) {
		t.dataPerRow = make([]float64, len(t.builders))
	}
	for i, b := range t.builders {
		b.Reserve(n)
		if per := t.dataPerRow[i]; per > 0 {
			if bb, ok := b.(interface{ ReserveData(int) }); ok {
				bb.ReserveData(int(per*float64(n)*1.1) + 64)
			}
		}
	}
}

// resetBuilders discards what the builders hold after a failed row.
func (t *Operator) resetBuilders() {
	for _, b := range t.builders {
		b.NewArray().Release()
	}
}
