package over

import (
	"context"
	"errors"
	"math"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/bitset"
	"github.com/eddysql/eddy/exec/internal/cow"
	"github.com/eddysql/eddy/exec/internal/ordtree"
	"github.com/eddysql/eddy/exec/internal/rowset"
)

// Snapshots written a part at a time (exec.DeferredSnapshotter), as the
// hash aggregate's and the join's are, so that a checkpoint holds the
// window aggregate's input for the time it takes to swap its changes
// out, not to gather and encode every row changed.
//
// At the barrier BeginSnapshot swaps the changed rows' bits and list and
// the deletions recorded out into the pending snapshot, and the next
// changes start empty (with the bits the last one cleared). SnapshotStep
// writes a budget of it at a time: the deletions, then the rows saved by
// copy-on-write, then the pending rows still held, gathered from the row
// store as a whole snapshot gathers them.
//
// Copy-on-write. A row's entry holds its values, which never change, and
// its copies, which a chunk's change of the row's tree does — to zero, and
// the row's id is freed once the chunk is out and may then hold another
// row. So right after a chunk changes the copies of a row still pending
// (diffPartition), the row's entry is encoded with its copies before the
// change and its values from the store, kept for a step, and the row
// taken off the pending ones. A row freed before the barrier leaves its
// id pending (its bit set, the id not in use); should a new row take the
// id before a step reaches it, the id is taken off then. Nothing else
// changes a row while a snapshot is pending (rescales start from a
// written one).

// pendingSnap is a snapshot begun and not all written.
type pendingSnap struct {
	w    exec.StateWriter // where the snapshot goes; nil when none is pending
	bits []uint64         // by row id: changed before the barrier, not written yet
	ids  []int32          // the rows changed before the barrier
	next int              // ids[next:] are still to be looked at

	delKeys []byte // the entry keys of the rows gone before the barrier
	delEnds []int
	delKGs  []int32
	nextDel int

	saved      cow.Entries // the rows saved by copy-on-write, as of the barrier
	key, value []byte      // scratch of save

	batch []int32 // scratch: the rows a step writes
}

// bytes estimates the memory of the pending snapshot.
func (p *pendingSnap) bytes() int64 {
	return int64(cap(p.bits))*8 + int64(cap(p.ids)+cap(p.batch))*4 + int64(cap(p.delKeys)) +
		int64(cap(p.delEnds))*8 + int64(cap(p.delKGs))*4 + p.saved.Bytes() + int64(cap(p.key)+cap(p.value))
}

var _ exec.DeferredSnapshotter = (*Agg)(nil)

// Snapshot implements exec.Stateful: it writes the rows changed since the
// last snapshot at once — a Delete for each row that lost its last copy,
// a Put for each changed row held — after the rest of a snapshot begun
// before.
func (o *Agg) Snapshot(ctx context.Context, epoch uint64, w exec.StateWriter) error {
	return exec.SnapshotAtOnce(ctx, o, epoch, w)
}

// BeginSnapshot implements exec.DeferredSnapshotter: it finishes a
// snapshot begun before, then takes the changes since as the pending
// snapshot, in constant time, and reports whether there are any.
func (o *Agg) BeginSnapshot(ctx context.Context, _ uint64, w exec.StateWriter) (bool, error) {
	if o.store == nil {
		return false, errors.New("window aggregate: Snapshot before Open")
	}
	if err := exec.FinishSnapshot(ctx, o); err != nil {
		return false, err
	}
	c, p := &o.ck, &o.pend
	// A done snapshot's bits are all clear: each of its rows was passed.
	p.bits, c.bits = c.bits, p.bits
	p.ids, c.ids = c.ids, p.ids[:0]
	p.delKeys, c.delKeys = c.delKeys, p.delKeys[:0]
	p.delEnds, c.delEnds = c.delEnds, p.delEnds[:0]
	p.delKGs, c.delKGs = c.delKGs, p.delKGs[:0]
	p.next, p.nextDel = 0, 0
	p.saved.Reset()
	c.written = true
	if len(p.ids) == 0 && len(p.delEnds) == 0 {
		return false, nil
	}
	p.w = w
	o.updateMetrics()
	return true, nil
}

// SnapshotStep implements exec.DeferredSnapshotter: it writes at most
// about budget of the pending snapshot's entries and reports whether none
// remain.
func (o *Agg) SnapshotStep(_ context.Context, budget int) (bool, error) {
	p := &o.pend
	if p.w == nil {
		return true, nil
	}
	n := 0
	budget = max(budget, 1)
	for ; n < budget && p.nextDel < len(p.delEnds); n++ {
		start := 0
		if p.nextDel > 0 {
			start = p.delEnds[p.nextDel-1]
		}
		if err := p.w.Delete(int(p.delKGs[p.nextDel]), p.delKeys[start:p.delEnds[p.nextDel]]); err != nil {
			return false, err
		}
		p.nextDel++
	}
	if n < budget {
		k, err := p.saved.Write(p.w, budget-n)
		n += k
		if err != nil {
			return false, err
		}
	}
	if n < budget {
		p.batch = p.batch[:0]
		scan := math.MaxInt
		if k := budget - n; k < math.MaxInt/8 {
			scan = 8 * k
		}
		for seen := 0; p.next < len(p.ids) && n+len(p.batch) < budget && seen < scan; seen++ {
			id := p.ids[p.next]
			p.next++
			if !bitset.Has(p.bits, id) {
				continue // saved already
			}
			bitset.Clear(p.bits, id)
			if bitset.Has(o.ck.inUse, id) {
				p.batch = append(p.batch, id)
			}
		}
		for lo := 0; lo < len(p.batch); lo += snapshotBatch {
			if err := o.putRows(p.w, p.batch[lo:min(lo+snapshotBatch, len(p.batch))]); err != nil {
				return false, err
			}
		}
	}
	if p.nextDel < len(p.delEnds) || !p.saved.Done() || p.next < len(p.ids) {
		return false, nil
	}
	p.w = nil
	o.updateMetrics()
	return true, nil
}

// save takes row id of partition p, whose sort key is sk and which held
// n copies before the chunk b changed them (its row row is in the same
// partition), off the pending snapshot if it is on it, encoding its entry
// as it was at the barrier for a later step to write. The caller checks
// that a snapshot is pending.
func (o *Agg) save(p *ordtree.Partition, sk string, id int32, n int64, b arrow.RecordBatch, row int) error {
	pd := &o.pend
	if !bitset.Has(pd.bits, id) {
		return nil
	}
	bitset.Clear(pd.bits, id)
	kg, err := o.keyGroupOf(b, row)
	if err != nil {
		return err
	}
	c := &o.ck
	c.vals = c.vals[:0]
	for j := range o.store.Cols {
		c.vals = append(c.vals, o.store.Cols[j].DatumAt(id))
	}
	pd.key = appendEntryKey(pd.key[:0], p.Key, sk)
	pd.value = rowset.EncodeRow(pd.value[:0], o.cfg.Input, n, c.vals)
	pd.saved.Put(int(kg), pd.key, pd.value)
	clear(c.vals)
	return nil
}
