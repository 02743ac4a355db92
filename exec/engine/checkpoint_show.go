package engine

import (
	"fmt"
	"time"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/dataflow"
)

// showCheckpoints lists the recent checkpoints of every checkpointed
// query, in creation order, each query's oldest first: the query, the
// epoch, when it started, how long it took (from the barriers' request to
// the commit), its synchronous part (the longest time one task's input
// waited at the barrier for its operators' snapshots), its deferred part
// (the longest time one task spent writing, a step at a time between
// chunks, what its operators' snapshots left pending at the barrier), its
// alignment (the longest time one task held back the input of the
// senders whose barrier had arrived, waiting for the others'), the bytes
// of state it wrote, the size of the query's whole committed state after
// it, and whether it committed.
func (e *Engine) showCheckpoints() *Result {
	cols := []Column{{Name: "query", Type: types.VarcharT}, {Name: "epoch", Type: types.BigIntT},
		{Name: "started", Type: types.TimestampT(3)}, {Name: "duration_ms", Type: types.DoubleT},
		{Name: "sync_ms", Type: types.DoubleT}, {Name: "deferred_ms", Type: types.DoubleT},
		{Name: "alignment_ms", Type: types.DoubleT},
		{Name: "bytes", Type: types.BigIntT}, {Name: "state_bytes", Type: types.BigIntT},
		{Name: "status", Type: types.VarcharT}}
	var rows [][]types.Datum
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, obj := range e.cat.InCreationOrder() {
		q := e.queries[lower(obj.Name)]
		if q == nil || q.state == nil {
			continue
		}
		for _, c := range q.job.Checkpoints() {
			status := "committed"
			if c.Err != nil {
				status = "failed: " + c.Err.Error()
			}
			state := types.IntDatum(c.StateBytes)
			if c.Err != nil || c.StateBytes < 0 {
				state = types.NullDatum // not committed, or the store could not tell
			}
			rows = append(rows, []types.Datum{types.StringDatum(obj.Name), types.IntDatum(int64(c.Epoch)),
				types.IntDatum(c.Start.UnixMilli()), millis(c.Duration), millis(c.Sync), millis(c.Deferred), millis(c.Alignment),
				types.IntDatum(c.Bytes), state, types.StringDatum(status)})
		}
	}
	return rowsResult("SHOW", cols, rows)
}

// millis is d in milliseconds, to the microsecond.
func millis(d time.Duration) types.Datum {
	return types.FloatDatum(float64(d.Microseconds()) / 1000)
}

// checkpointSummary is the line EXPLAIN ANALYZE shows for a checkpointed
// query: the figures of its last checkpoint (as SHOW CHECKPOINTS lists
// them) and how many it has taken and how many failed, or "" for a query
// that is not checkpointed.
func checkpointSummary(q *runningQuery) string {
	if q.state == nil || q.job.Resumable() != nil {
		return ""
	}
	taken, failed := q.job.CheckpointCounts()
	stats := q.job.Checkpoints()
	if len(stats) == 0 {
		return fmt.Sprintf("checkpoints: none yet, %d taken, %d failed", taken, failed)
	}
	c := stats[len(stats)-1]
	last := fmt.Sprintf("last epoch %d (%s, sync %s, deferred %s, alignment %s, %s written", c.Epoch,
		ms(c.Duration), ms(c.Sync), ms(c.Deferred), ms(c.Alignment), dataflow.FormatBytes(c.Bytes))
	switch {
	case c.Err != nil:
		last += ", failed: " + firstLine(c.Err) + ")"
	case c.StateBytes >= 0:
		last += ", " + dataflow.FormatBytes(c.StateBytes) + " state)"
	default:
		last += ")"
	}
	return fmt.Sprintf("checkpoints: %s, %d taken, %d failed", last, taken, failed)
}

// ms formats d in milliseconds, to a tenth.
func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
