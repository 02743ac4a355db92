package nexmark

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/eddysql/eddy/exec/engine"
	"github.com/eddysql/eddy/sql"
)

// checkpointPoll is how often a checkpointed run reads SHOW CHECKPOINTS.
// The engine remembers a query's last 64 checkpoints, so polling every
// quarter second loses none even at a 1 ms interval for up to 64 epochs
// between polls, and costs one small statement.
const checkpointPoll = 250 * time.Millisecond

// checkpointSeen is one checkpoint as SHOW CHECKPOINTS lists it.
type checkpointSeen struct {
	duration  time.Duration
	sync      time.Duration
	bytes     int64
	committed bool
}

// checkpointKey identifies a checkpoint: its query and epoch.
type checkpointKey struct {
	query string
	epoch int64
}

// checkpointLog collects the checkpoints of a run from SHOW CHECKPOINTS,
// polled while the run goes on and once more at its end.
type checkpointLog struct {
	mu   sync.Mutex
	seen map[checkpointKey]checkpointSeen
	err  error // the first error reading SHOW CHECKPOINTS
}

// watchCheckpoints polls SHOW CHECKPOINTS into a log every
// checkpointPoll until the returned stop is called; stop polls a last
// time, waits for the poller to end, and may be called more than once.
func watchCheckpoints(eng *engine.Engine) (*checkpointLog, func()) {
	l := &checkpointLog{seen: map[checkpointKey]checkpointSeen{}}
	sess := eng.NewSession(engine.SessionOptions{})
	stop := pollEvery(checkpointPoll, func(ctx context.Context) { l.poll(ctx, sess) },
		func() { l.poll(context.Background(), sess) })
	return l, stop
}

// poll reads SHOW CHECKPOINTS once into the log.
func (l *checkpointLog) poll(ctx context.Context, sess *engine.Session) {
	st, err := sql.ParseOne("SHOW CHECKPOINTS;", sql.Pos{Line: 1, Col: 1})
	var res *engine.Result
	if err == nil {
		res, err = sess.Execute(ctx, st)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		if l.err == nil && ctx.Err() == nil {
			l.err = err
		}
		return
	}
	q, e, d, b, s := column(res, "query"), column(res, "epoch"), column(res, "duration_ms"), column(res, "bytes"), column(res, "status")
	y := column(res, "sync_ms")
	if q < 0 || e < 0 || d < 0 || b < 0 || s < 0 || y < 0 {
		if l.err == nil {
			l.err = errors.New("SHOW CHECKPOINTS lacks one of the columns query, epoch, duration_ms, sync_ms, bytes, status")
		}
		return
	}
	for _, row := range res.Rows {
		l.seen[checkpointKey{row[q].S, row[e].I}] = checkpointSeen{
			duration:  time.Duration(row[d].F * float64(time.Millisecond)),
			sync:      time.Duration(row[y].F * float64(time.Millisecond)),
			bytes:     row[b].I,
			committed: row[s].S == "committed",
		}
	}
}

// figures returns what the log saw: the committed checkpoints, the bytes
// they wrote, their durations (sorted), the longest synchronous part of
// one and how many failed.
func (l *checkpointLog) figures() (committed int, bytes int64, durations []time.Duration, syncMax time.Duration, failed int, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.seen {
		if !c.committed {
			failed++
			continue
		}
		committed++
		bytes += c.bytes
		durations = append(durations, c.duration)
		syncMax = max(syncMax, c.sync)
	}
	slices.Sort(durations)
	return committed, bytes, durations, syncMax, failed, l.err
}
