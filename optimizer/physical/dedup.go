package physical

import (
	"math"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/optimizer/cost"
	"github.com/eddysql/eddy/planner/plan"
)

// dedupKeyBytes is the state a remembered key costs beside its columns:
// the exact set's entry and table slot and its bits in the Bloom filters.
const dedupKeyBytes = 40

// buildDedup puts a Dedup right after a de-duplicated stream's source
// src. A source read in splits (parallelism above one) is partitioned on
// the key first, so that equal keys meet in one instance; a source read as
// one instance feeds it in its own stage. The scan keeps the key columns
// (PruneColumns) and the event-time column.
func (b *builder) buildDedup(n *plan.Scan, src *Source, d *catalog.Dedup) Node {
	var keys []int
	for _, k := range d.Keys {
		o := n.Object.ColumnIndex(k)
		for i, ord := range n.Ords {
			if ord == o {
				keys = append(keys, i)
			}
		}
	}
	in := Node(src)
	if src.Parallelism > 1 {
		in = b.exchange(src, Hash, keys, src.Parallelism)
	}
	dd := &Dedup{Header: b.header(n.Cols, in.Hdr().Parallelism, in), Keys: keys, WindowMs: d.WindowMs, FPR: d.FPR,
		TimeCol: src.TimeOrd, Window: d.Window}
	// The state is the keys of a window's rows; a bounded source's
	// estimate is its row count, which bounds them too.
	rate := src.Est.RowsPerSec
	rows := rate * float64(d.WindowMs) / 1000
	if src.Bounded {
		rows = math.Min(rows, rate)
	}
	width := dedupKeyBytes
	for _, k := range keys {
		width += int(cost.RowWidth(src.Types()[k : k+1]))
	}
	dd.Est = Estimate{RowsPerSec: rate, Stateful: true, StateBounded: true, StateRows: rows, StateBytes: rows * float64(width)}
	return dd
}
