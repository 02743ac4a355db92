package engine

import (
	"errors"
	"fmt"

	"github.com/eddysql/eddy/exec/dataflow"
)

// Views that answer while their state is read back. When the engine opens
// and resumes a view from its checkpoint, the view's own rows are restored
// first and its sources positioned (dataflow's restore order); if then
// every source has nothing after its recorded position (exec.Exhausted: a
// bounded input read to its end, a stream's log with nothing new), the
// view is current as restored: nothing is left for its query to catch up
// on. Open does not wait for the rest of the query's state (a join's
// sides, an aggregate's groups), which only input still to come needs:
// the view answers pull queries at once while its operators restore in
// the background, as RisingWave serves a materialized view from storage
// while its actors rebuild. Input that arrives meanwhile (rows inserted
// into a stream it reads) waits for the restore; FLUSH waits for it as
// for any input.
//
// Only at Open, and only for a view no other query reads: a reader's
// flush markers come through the view's query, which would hold up the
// catching up Open waits for. A recovery or a rescale restores as before,
// all at once. Closing the engine while a view restores in the background
// stops its query without a last checkpoint: its rows have not changed
// since the one it restores, which the next start resumes again (what its
// operators that had restored did since, with input that came meanwhile,
// they then do again from that checkpoint's positions). A
// checkpoint found damaged in the background fails the query, which then
// recovers as from a bug (recover.go): its restart restores all at once,
// and a view falls back on its previous checkpoint.

// restoring reports whether q's view answers while its operators are
// still restoring their state.
func (q *runningQuery) restoring() bool {
	return q.background && q.job != nil && !q.job.Opened()
}

// catchesUpAtOpen reports whether Open waits for q to catch up on its
// input: not for a view restoring in the background that no other query
// reads. The caller holds e.mu.
func (e *Engine) catchesUpAtOpen(q *runningQuery) bool {
	return !q.restoring() || len(e.readersOf(q.obj)) > 1
}

// backgroundRestoreFailed reports whether err, the failure of q's job,
// is its checkpoint failing to restore after the view began to answer.
func backgroundRestoreFailed(q *runningQuery, err error) bool {
	var re *dataflow.RestoreError
	return q.background && errors.As(err, &re)
}

// restoringSummary is EXPLAIN ANALYZE's line for a view restoring in the
// background: how much of its checkpoint's state is read back ("" when
// none is being read).
func restoringSummary(q *runningQuery) string {
	if !q.restoring() {
		return ""
	}
	line := fmt.Sprintf("restoring: the view answers from the rows of checkpoint %d while its operators read their state back (%s of entries read",
		q.state.epoch, dataflow.FormatBytes(q.job.RestoredBytes()))
	if known, err := q.state.store.Bytes(); err == nil {
		line += "; " + dataflow.FormatBytes(known) + " stored"
	}
	return line + ")"
}

// resumedNotice says which checkpoint q resumed from and how much state
// it read — or, for a view restoring in the background, how much there is
// to read — and whether its input had ended for good, so that the
// checkpoint kept only its results (dataflow.Job.ResumedFinished).
func resumedNotice(q *runningQuery) string {
	var msg string
	switch known, err := q.state.store.Bytes(); {
	case q.restoring() && err == nil:
		msg = fmt.Sprintf("%s %s resumed from its checkpoint %d: it answers from its rows while the rest of its state (%s in all) is read back",
			q.obj.Kind, q.obj.Name, q.state.epoch, dataflow.FormatBytes(known))
	case q.restoring():
		msg = fmt.Sprintf("%s %s resumed from its checkpoint %d: it answers from its rows while the rest of its state is read back",
			q.obj.Kind, q.obj.Name, q.state.epoch)
	default:
		msg = fmt.Sprintf("%s %s resumed from its checkpoint %d (%s of state)", q.obj.Kind, q.obj.Name, q.state.epoch, dataflow.FormatBytes(q.job.RestoredBytes()))
	}
	if q.job.ResumedFinished() {
		msg += "; its input had ended for good, so the checkpoint kept only its results"
	}
	return msg
}
