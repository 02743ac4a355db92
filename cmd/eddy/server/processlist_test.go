package server

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestShowProcesslistShowsProgress runs a FLUSH that waits for a throttled
// generator on one connection while another lists the connections: the
// FLUSH's row is a Query whose State is its progress and Progress its
// percentage, the listing connection's own row is its SHOW PROCESSLIST,
// and an idle connection sleeps.
func TestShowProcesslistShowsProgress(t *testing.T) {
	db := open(t, startServer(t))
	flusher, watcher, idle := dbConn(t, db), dbConn(t, db), dbConn(t, db)
	mustExec(t, idle, "SET parallelism = 1")
	mustExec(t, flusher, "CREATE STREAM bid WITH (connector = 'nexmark', table = 'bid', events = '3000', rate = '2000')",
		"CREATE MATERIALIZED VIEW n AS SELECT COUNT(*) AS c FROM bid")
	id := func(c execer) string { return query(t, c, "SELECT CONNECTION_ID()")[0][0] }
	flushID, watchID, idleID := id(flusher), id(watcher), id(idle)
	var wg sync.WaitGroup
	wg.Add(1)
	var flushErr error
	go func() {
		defer wg.Done()
		_, flushErr = flusher.ExecContext(context.Background(), "FLUSH")
	}()
	defer wg.Wait()
	waitFor(t, "the FLUSH's progress in SHOW PROCESSLIST", func() bool {
		rows := query(t, watcher, "SHOW FULL PROCESSLIST")
		byID := map[string][]string{}
		for _, r := range rows {
			if len(r) != 9 {
				t.Fatalf("row %q: want 9 columns", r)
			}
			byID[r[0]] = r
		}
		if w := byID[watchID]; w == nil || w[4] != "Query" || w[7] != "SHOW FULL PROCESSLIST" {
			t.Fatalf("the watcher's own row: %q", w)
		}
		if i := byID[idleID]; i == nil || i[4] != "Sleep" || i[7] != "NULL" {
			t.Fatalf("the idle connection's row: %q", i)
		}
		f := byID[flushID]
		if f == nil || f[4] != "Query" || f[7] != "FLUSH" || !strings.HasPrefix(f[6], "FLUSH: ") {
			return false
		}
		pct, err := strconv.ParseFloat(f[8], 64)
		if err != nil || pct < 0 || pct > 100 {
			t.Fatalf("the FLUSH's Progress %q", f[8])
		}
		return pct > 0 && strings.Contains(f[6], " rows (")
	})
	wg.Wait()
	if flushErr != nil {
		t.Fatal(flushErr)
	}
	// The FLUSH's OK reaches the client just before its statement ends.
	waitFor(t, "the flushing connection to sleep", func() bool {
		for _, r := range query(t, watcher, "SHOW PROCESSLIST") {
			if r[0] == flushID {
				return r[4] == "Sleep" && r[7] == "NULL"
			}
		}
		t.Fatal("the flushing connection is not listed")
		return false
	})
}
