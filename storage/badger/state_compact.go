package badger

import (
	"github.com/eddysql/eddy/storage/internal/runs"
)

// maxRuns is the most runs a manifest names before the runs after the
// first are merged into one. Reads merge every run, so the count bounds
// their cost; merging only the newer runs keeps the first (usually by far
// the largest) from being rewritten each time.
const maxRuns = 8

// compact merges runs of next when they call for it and returns the
// manifest naming the result and the merged run's id (0 if the merge left
// no entries), or a nil manifest when next needs no compaction:
//
//   - once the runs after the first hold as many bytes as it does, all of
//     them are merged into one, without the deletions or the values newer
//     runs replaced (so a checkpoint's size stays within about twice its
//     state, and each byte is rewritten a bounded number of times);
//   - otherwise, with more than maxRuns runs, the runs after the first are
//     merged into one, keeping their deletions (the first run is under
//     them).
func (b *stateBackend) compact(next *manifest) (*manifest, uint64, error) {
	if len(next.runs) < 2 {
		return nil, 0, nil
	}
	base := next.runs[0].bytes
	var from int
	switch {
	case next.bytes()-base >= base:
		from = 0
	case len(next.runs) > maxRuns:
		from = 1
	default:
		return nil, 0, nil
	}
	keepDeletes := from > 0
	out := next.clone()
	id := out.nextID
	out.nextID++
	var meta runMeta
	txn := b.db.bdb.NewTransaction(false)
	defer txn.Discard()
	err := b.readIn(txn, next.runs[from:], func(rs []runs.Run) error {
		var err error
		meta, err = b.writeRun(id, func(add func(k, v []byte, del bool) error) error {
			return runs.Merge(rs, nil, nil, nil, keepDeletes, add)
		})
		return err
	})
	if err != nil {
		return nil, id, err
	}
	out.runs = out.runs[:from]
	if meta.entries > 0 {
		out.runs = append(out.runs, meta)
	}
	return out, id, nil
}
