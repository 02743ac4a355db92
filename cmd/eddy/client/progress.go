package client

import (
	"context"
	"strconv"
	"sync"
	"time"

	"vitess.io/vitess/go/mysql"
)

// progressTimeout bounds one look at the server's process list.
const progressTimeout = 2 * time.Second

// watcher is a second connection to the server from which a session
// follows the progress of its running statement (SHOW FULL PROCESSLIST),
// opened on first use.
type watcher struct {
	mu     sync.Mutex
	conn   *mysql.Conn
	failed bool // the server could not be asked: do not try again
}

// ProgressLine returns the progress of the session's running statement as
// the server reports it in SHOW FULL PROCESSLIST ("FLUSH: 1,250,000 of
// 4,000,000 rows (31%), 812,400 rows/s, 1.5s"), and false while it reports
// none. It may be called from another goroutine while Execute runs; it
// asks over a connection of its own, opened on the first call.
func (s *Session) ProgressLine() (string, bool) {
	w := &s.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.failed {
		return "", false
	}
	ctx, cancel := context.WithTimeout(context.Background(), progressTimeout)
	defer cancel()
	if w.conn == nil {
		c, err := s.dial(ctx)
		if err != nil {
			w.failed = true
			return "", false
		}
		w.conn = c
	}
	qr, err := w.conn.ExecuteFetch("SHOW FULL PROCESSLIST", 10000, true)
	if err != nil {
		w.conn.Close()
		w.conn, w.failed = nil, true
		return "", false
	}
	col := map[string]int{}
	for i, f := range qr.Fields {
		col[f.Name] = i
	}
	idCol, cmdCol, stateCol := col["Id"], col["Command"], col["State"]
	if len(col) < 3 || len(qr.Fields) <= max(idCol, cmdCol, stateCol) {
		return "", false
	}
	id := strconv.FormatInt(s.id, 10)
	for _, row := range qr.Rows {
		if row[idCol].ToString() != id || row[cmdCol].ToString() != "Query" {
			continue
		}
		state := row[stateCol].ToString()
		if state == "" || state == "executing" {
			return "", false
		}
		return state, true
	}
	return "", false
}

// close closes the watcher's connection.
func (w *watcher) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.conn != nil {
		w.conn.Close()
		w.conn = nil
	}
}
