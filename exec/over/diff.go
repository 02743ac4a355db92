package over

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/aggstate"
	"github.com/eddysql/eddy/exec/internal/bitset"
	"github.com/eddysql/eddy/exec/internal/ordtree"
)

// collect records every row of c as a change of its partition, in input
// order.
func (o *Agg) collect(c exec.Chunk) {
	var p *ordtree.Partition
	for i := range o.skeys {
		if p == nil || !bytes.Equal(o.pkeys[i], o.pkeys[i-1]) {
			p = o.parts.Touch(o.pkeys[i])
		}
		o.deltas = append(o.deltas, ordtree.Delta{Part: p.Index, Key: ordtree.KeyOf(ordtree.View(o.skeys[i])),
			W: c.Op(i).Weight(), Row: int32(i), OLen: o.olens[i]})
	}
}

// diff computes the output of a chunk from its changes: it groups them by
// partition (a counting sort, partitions being numbered by first touch),
// sorts and nets each partition's by key, and diffs each partition whose
// rows changed (diffPartition).
func (o *Agg) diff(b arrow.RecordBatch) error {
	return o.netter.Each(o.deltas, len(o.parts.Touched), func(p int, net []ordtree.Delta) error {
		return o.diffPartition(o.parts.Touched[p], net, b)
	})
}

// diffPartition records the output for one partition whose rows change by
// ds (netted, sorted by key, none zero): the outputs of the rows whose
// frames hold a changed row, computed before and after applying ds, then
// matched up (merge).
func (o *Agg) diffPartition(p *ordtree.Partition, ds []ordtree.Delta, b arrow.RecordBatch) error {
	o.olds, o.news, o.sided = o.olds[:0], o.news[:0], o.sided[:0]
	o.cur, o.curBatch = p, b
	var err error
	if o.olds, err = o.outputs(&p.Tree, ds, o.olds); err != nil {
		return err
	}
	cols := b.Columns()
	for k, d := range ds {
		// An insertion stores its values first, for the tree to keep their
		// id if the row is new to it: most are, and finding out first
		// would descend the tree twice.
		id := int32(-1)
		if d.W > 0 {
			id = o.store.Add(cols, int(d.Row))
		}
		stored, before, err := p.Tree.Add(d.Key, d.W, id, d.OLen, &o.parts.Gauge)
		got := stored.ID
		if err != nil {
			if id >= 0 {
				o.store.Remove(id)
			}
			return rowError(err)
		}
		if id >= 0 && before > 0 {
			// More copies of a row held: its values were stored already.
			o.store.Remove(id)
			id = -1
		}
		if before > 0 && o.pend.w != nil {
			// Its entry as at the barrier, before the change is noted.
			if err := o.save(p, stored.S, got, before, b, int(d.Row)); err != nil {
				return err
			}
		}
		switch {
		case before+d.W == 0:
			// Freed once the chunk is out: the old outputs read it.
			o.freed = append(o.freed, got)
			o.sided = append(o.sided, sided{id: got, d: int32(k)})
			if err := o.gone(p, stored.S, b, int(d.Row)); err != nil {
				return err
			}
			if err := o.groupRemoved(p, d.S[:d.OLen]); err != nil {
				return rowError(err)
			}
		case id >= 0:
			if o.pend.w != nil {
				// A pending row whose id is taken now was freed before the
				// barrier (one freed after it was saved): not to be written.
				bitset.Clear(o.pend.bits, id)
			}
			o.ck.added(id)
			o.sided = append(o.sided, sided{id: id, d: int32(k)})
			if err := o.groupAdded(p, stored); err != nil {
				return rowError(err)
			}
		default:
			o.ck.mark(got)
		}
	}
	if o.news, err = o.outputs(&p.Tree, ds, o.news); err != nil {
		return err
	}
	o.merge(ds)
	return nil
}

// sided is a row that a partition's change removed or added, so that its
// outputs are on one side of merge only: its id and its change's index in
// the partition's changes.
type sided struct{ id, d int32 }

// rowError reports a failed change of a tree.
func rowError(err error) error {
	if errors.Is(err, ordtree.ErrAbsent) {
		return fmt.Errorf("window aggregate: %w", aggstate.ErrNegativeCount)
	}
	return fmt.Errorf("window aggregate: %w", err)
}

// matchMax bounds the copies of one row whose outputs merge matches
// as multisets (quadratic in the copies); beyond it copies are matched by
// position, which is correct but may emit a row both removed and added.
const matchMax = 64

// merge matches the outputs before (o.olds) and after (o.news) a change of
// a partition, both in key order and over the same unchanged rows (see
// outputs), one distinct row at a time: an output present before and after
// emits nothing, and the others pair up as updates, what is left over
// being deleted or inserted. Copies of a row are interchangeable, so their
// outputs are matched as multisets.
//
// Outputs are told apart by row id, and ordered without their keys: the
// rows on both sides are in the same order on both, so where the two
// sides' ids differ, one of the rows is one the change removed or added
// (o.sided); that row comes first if the other is on both sides, and
// otherwise the two changes' keys (in ds) order them.
func (o *Agg) merge(ds []ordtree.Delta) {
	olds, news := o.olds, o.news
	if len(o.sided) > 1 {
		slices.SortFunc(o.sided, func(a, b sided) int { return cmp.Compare(a.id, b.id) })
	}
	i, j := 0, 0
	for i < len(olds) || j < len(news) {
		var c int
		switch {
		case i == len(olds):
			c = 1
		case j == len(news):
			c = -1
		case olds[i].id == news[j].id:
			c = 0
		default:
			c = o.order(olds[i].id, news[j].id, ds)
		}
		// The runs of one row's copies: [i, i2) before, [j, j2) after.
		i2, j2 := i, j
		if c <= 0 {
			for i2 < len(olds) && olds[i2].id == olds[i].id {
				i2++
			}
		}
		if c >= 0 {
			for j2 < len(news) && news[j2].id == news[j].id {
				j2++
			}
		}
		o.mergeRow(olds[i:i2], news[j:j2])
		i, j = i2, j2
	}
}

// order compares the keys of the different rows old, output before the
// change, and new, output after it, as merge needs: at least one of them
// was removed or added by the change ds.
func (o *Agg) order(old, new int32, ds []ordtree.Delta) int {
	a, oldSided := o.sidedChange(old)
	b, newSided := o.sidedChange(new)
	switch {
	case oldSided && newSided:
		return ds[a].Compare(ds[b].Key)
	case oldSided:
		return -1
	case newSided:
		return 1
	}
	panic(fmt.Sprintf("window aggregate: rows %d and %d, on both sides of a change, are in different orders", old, new))
}

// sidedChange returns the index in the partition's changes of the change
// that removed or added row id, and whether there is one.
func (o *Agg) sidedChange(id int32) (int32, bool) {
	k, ok := slices.BinarySearchFunc(o.sided, id, func(s sided, id int32) int { return cmp.Compare(s.id, id) })
	if !ok {
		return 0, false
	}
	return o.sided[k].d, true
}

// mergeRow emits the changes from the outputs olds to news of one distinct
// row's copies.
func (o *Agg) mergeRow(olds, news []output) {
	if len(olds) > matchMax || len(news) > matchMax {
		k := min(len(olds), len(news))
		for t := range k {
			o.update(olds[t], news[t])
		}
		o.leftovers(olds[k:], news[k:])
		return
	}
	// Drop the outputs present on both sides; what is left differs.
	var usedOld, usedNew [matchMax]bool
	for a := range olds {
		for b := range news {
			if !usedNew[b] && o.sameResults(olds[a].res, news[b].res) {
				usedOld[a], usedNew[b] = true, true
				break
			}
		}
	}
	o.scratchOld, o.scratchNew = o.scratchOld[:0], o.scratchNew[:0]
	for a, x := range olds {
		if !usedOld[a] {
			o.scratchOld = append(o.scratchOld, x)
		}
	}
	for b, x := range news {
		if !usedNew[b] {
			o.scratchNew = append(o.scratchNew, x)
		}
	}
	k := min(len(o.scratchOld), len(o.scratchNew))
	for t := range k {
		o.update(o.scratchOld[t], o.scratchNew[t])
	}
	o.leftovers(o.scratchOld[k:], o.scratchNew[k:])
}

// update emits -U old / +U new, or nothing when the results are the same.
func (o *Agg) update(old, new output) {
	if !o.sameResults(old.res, new.res) {
		o.rows = append(o.rows, outRow{id: old.id, res: old.res, op: exec.UpdateBefore},
			outRow{id: new.id, res: new.res, op: exec.UpdateAfter})
	}
}

// leftovers emits -D for each of olds and +I for each of news.
func (o *Agg) leftovers(olds, news []output) {
	for _, x := range olds {
		o.rows = append(o.rows, outRow{id: x.id, res: x.res, op: exec.Delete})
	}
	for _, x := range news {
		o.rows = append(o.rows, outRow{id: x.id, res: x.res, op: exec.Insert})
	}
}

// finishChunk frees the rows the chunk removed, drops the partitions it
// emptied and resets the per-chunk scratch.
func (o *Agg) finishChunk() {
	for _, id := range o.freed {
		o.store.Remove(id)
		o.ck.freedID(id)
	}
	o.ck.hashed = false
	o.parts.Finish()
	clear(o.deltas)
	o.netter.Reset()
	clear(o.olds)
	clear(o.news)
	o.deltas = o.deltas[:0]
	o.olds, o.news, o.vals, o.rows, o.freed = o.olds[:0], o.news[:0], o.vals[:0], o.rows[:0], o.freed[:0]
}
