package nexmark

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/eddysql/eddy/exec/engine"
	"github.com/eddysql/eddy/sql"
)

// throttledPoll is how often flushToEnd looks again at a throttled run
// that FLUSH returned from before its end: far below the time a throttled
// run of any useful length takes.
const throttledPoll = time.Millisecond

// flushToEnd runs FLUSH, which returns once every row the sources have
// produced went through every query and, for bounded sources, once they
// reached their end. A throttled generator is the exception: FLUSH treats
// it as caught up whenever its next event is not due yet, and returns
// early (an eddy bug), so for a throttled run FLUSH is repeated until
// every query has finished.
func flushToEnd(ctx context.Context, sess *engine.Session, flush sql.Stmt, throttled bool) error {
	for {
		if _, err := sess.Execute(ctx, flush); err != nil {
			return err
		}
		if !throttled {
			return nil
		}
		running, err := queriesRunning(ctx, sess)
		if err != nil || !running {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(throttledPoll):
		}
	}
}

// showQueries runs SHOW QUERIES.
func showQueries(ctx context.Context, sess *engine.Session) (*engine.Result, error) {
	st, err := sql.ParseOne("SHOW QUERIES;", sql.Pos{Line: 1, Col: 1})
	if err != nil {
		return nil, err
	}
	return sess.Execute(ctx, st)
}

// queriesRunning reports whether a continuous query is still running.
func queriesRunning(ctx context.Context, sess *engine.Session) (bool, error) {
	res, err := showQueries(ctx, sess)
	if err != nil {
		return false, err
	}
	status := column(res, "status")
	if status < 0 {
		return false, errors.New("SHOW QUERIES has no status column")
	}
	for _, row := range res.Rows {
		if row[status].S == "running" {
			return true, nil
		}
	}
	return false, nil
}

// checkQueries returns the error of a continuous query that failed; FLUSH
// returns (with a notice) when a query fails rather than finishes.
func checkQueries(ctx context.Context, sess *engine.Session) error {
	res, err := showQueries(ctx, sess)
	if err != nil {
		return err
	}
	name, status := column(res, "name"), column(res, "status")
	if name < 0 || status < 0 {
		return errors.New("SHOW QUERIES has no name or status column")
	}
	for _, row := range res.Rows {
		s := row[status].S
		if strings.HasPrefix(s, "failed") || strings.HasPrefix(s, "cancelled") {
			return fmt.Errorf("query %s %s", row[name].S, s)
		}
	}
	return nil
}

// column returns the index of the result column called name, or -1.
func column(res *engine.Result, name string) int {
	for i, c := range res.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// pollProgress calls fn every progressInterval with the rows the engine's
// continuous queries have read, until the returned stop is called. stop
// waits for the poller to end, so fn is never called after it returns; it
// may be called more than once. A nil fn polls nothing.
func pollProgress(eng *engine.Engine, start time.Time, fn func(Progress)) (stop func()) {
	if fn == nil {
		return func() {}
	}
	sess := eng.NewSession(engine.SessionOptions{})
	return pollEvery(progressInterval, func(ctx context.Context) {
		res, err := showQueries(ctx, sess)
		if err != nil || ctx.Err() != nil {
			return
		}
		fn(Progress{Rows: rowsIn(res), Elapsed: time.Since(start)})
	}, nil)
}

// pollEvery calls poll every d on a goroutine of its own until the
// returned stop is called. stop ends the goroutine, waits for it, then
// calls last (if set) once; it may be called more than once.
func pollEvery(d time.Duration, poll func(ctx context.Context), last func()) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(d)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			poll(ctx)
		}
	})
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			wg.Wait()
			if last != nil {
				last()
			}
		})
	}
}

// rowsIn sums the rows_in column of SHOW QUERIES: the rows every
// continuous query's sources have read.
func rowsIn(res *engine.Result) int64 {
	i := column(res, "rows_in")
	if i < 0 {
		return 0
	}
	var n int64
	for _, row := range res.Rows {
		n += row[i].I
	}
	return n
}
