package topn

import (
	"context"
	"fmt"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/ordtree"
)

// The general Top-N's snapshots written a part at a time
// (exec.DeferredSnapshotter), so that a checkpoint pauses it for the time
// it takes to swap its list of changes out, not to sort it and look up and
// encode every row on it (a million rows changed a second took hundreds
// of milliseconds at each barrier).
//
// At the barrier BeginSnapshot takes the list of rows changed since the
// last snapshot (ordtree.Changes.Begin) and a new one starts. SnapshotStep
// writes a budget of it at a time: each row with its copies as at the
// barrier — the saved ones if a chunk changed the row since, else those
// its partition's tree holds (none: a Delete). The list is written as
// noted, unsorted and with repeats, each repeat writing the same entry.
//
// Copy-on-write. A chunk applies its changes to the trees, then nets them
// by partition and row (diff); while a snapshot is pending, each row it
// changed whose copies at the barrier are not saved yet gets them saved
// first: its copies now less the chunk's net change. A row changed after
// the barrier but not on the list is saved too, and never read. The first
// snapshot of a Top-N whose changes were not tracked (a job without
// checkpoints until then) writes every row held at once; in a job that
// checkpoints, changes are tracked from Open.

// topPending is a general Top-N's snapshot begun and not all written.
type topPending struct {
	w    exec.StateWriter // where the snapshot goes; nil when none is pending
	list ordtree.Pending
	// saved holds the copies at the barrier of the rows changed since.
	saved map[rowRef]int64
}

// rowRef names a row: its partition's key and its sort key.
type rowRef struct{ part, key string }

// savedBytes estimates the memory of an entry of topPending.saved.
const savedBytes = 64

// bytes estimates the memory of the pending snapshot.
func (p *topPending) bytes() int64 { return p.list.Bytes() + int64(len(p.saved))*savedBytes }

// beginTop begins a general Top-N's snapshot: it finishes one begun
// before, then takes the rows changed since as the pending snapshot, and
// reports whether there are any.
func (t *Operator) beginTop(ctx context.Context, w exec.StateWriter) (bool, error) {
	if err := exec.FinishSnapshot(ctx, t); err != nil {
		return false, err
	}
	if !t.changes.Tracking() {
		return false, t.writeAll(w)
	}
	p := &t.top
	t.changes.Begin(&p.list)
	if p.list.Done() {
		return false, nil
	}
	p.w = w
	t.updateMetrics()
	return true, nil
}

// topStep writes at most budget of the pending rows, and reports whether
// none remain.
func (t *Operator) topStep(budget int) (bool, error) {
	p := &t.top
	if p.w == nil {
		return true, nil
	}
	s := &t.snap
	_, err := p.list.Next(max(budget, 1), func(part string, key ordtree.Key) error {
		n, ok := p.saved[rowRef{part, key.S}]
		if !ok {
			if pt := t.parts.Get(part); pt != nil {
				_, n = pt.Tree.Find(key)
			}
		}
		s.entries = append(s.entries, entry{part: part, key: key.S, n: n})
		return nil
	})
	if err == nil {
		err = t.writeEntries(p.w)
	}
	if err != nil {
		return false, fmt.Errorf("top-n: snapshot: %w", err)
	}
	if !p.list.Done() {
		return false, nil
	}
	p.w = nil
	clear(p.saved)
	t.updateMetrics()
	return true, nil
}

// saveTop saves the copies at the barrier of the rows of partition part
// that a chunk changed by net (applied to its tree already), unless saved
// already. The caller checks that a snapshot is pending.
func (t *Operator) saveTop(part *ordtree.Partition, net []ordtree.Delta) {
	p := &t.top
	if p.saved == nil {
		p.saved = make(map[rowRef]int64)
	}
	for _, d := range net {
		r := rowRef{part.Key, d.Key.S}
		if _, ok := p.saved[r]; ok {
			continue
		}
		_, n := part.Tree.Find(d.Key)
		p.saved[r] = n - d.W
	}
}
