package server

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"sync"
	"testing"
)

// TestConcurrentSessions runs many sessions at once: each creates its own
// stream and view, SETs its own parallelism and inserts, into its stream
// and into one they share, while a push query watches the shared stream;
// no row is lost or counted twice. Run it with -race.
func TestConcurrentSessions(t *testing.T) {
	const sessions, inserts = 8, 10
	db := open(t, startServer(t))
	mustExec(t, db, "CREATE STREAM shared (who BIGINT, i BIGINT)")
	watcher := dbConn(t, db)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := startPush(t, ctx, watcher, "SELECT who, i FROM shared EMIT CHANGES")

	var wg sync.WaitGroup
	errs := make(chan error, sessions)
	for w := range sessions {
		wg.Go(func() {
			c, err := db.Conn(context.Background())
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			stmts := []string{
				fmt.Sprintf("SET parallelism = %d", 1+w%3),
				fmt.Sprintf("CREATE STREAM own%d (i BIGINT)", w),
				fmt.Sprintf("CREATE MATERIALIZED VIEW sum%d AS SELECT COUNT(*) AS n, SUM(i) AS total FROM own%d", w, w),
			}
			for i := range inserts {
				stmts = append(stmts, fmt.Sprintf("INSERT INTO own%d VALUES (%d)", w, i),
					fmt.Sprintf("INSERT INTO shared VALUES (%d, %d)", w, i))
			}
			stmts = append(stmts, "FLUSH")
			for _, s := range stmts {
				if _, err := c.ExecContext(context.Background(), s); err != nil {
					errs <- fmt.Errorf("session %d: %s: %w", w, s, err)
					return
				}
			}
			var n, total int64
			q := fmt.Sprintf("SELECT n, total FROM sum%d", w)
			if err := c.QueryRowContext(context.Background(), q).Scan(&n, &total); err != nil {
				errs <- fmt.Errorf("session %d: %s: %w", w, q, err)
				return
			}
			if n != inserts || total != inserts*(inserts-1)/2 {
				errs <- fmt.Errorf("session %d: view sum%d has n=%d total=%d", w, w, n, total)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	seen := map[string]int{}
	for range sessions * inserts {
		r := p.next(t)
		seen[r[1]+"/"+r[2]]++
	}
	for w := range sessions {
		for i := range inserts {
			if k := strconv.Itoa(w) + "/" + strconv.Itoa(i); seen[k] != 1 {
				t.Errorf("the push query saw row %s %d times", k, seen[k])
			}
		}
	}
	if got := query(t, db, "SELECT COUNT(*) FROM shared"); !reflect.DeepEqual(got, [][]string{{strconv.Itoa(sessions * inserts)}}) {
		t.Errorf("shared holds %v rows", got)
	}
}
