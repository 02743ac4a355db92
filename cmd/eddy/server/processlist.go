package server

import (
	"math"
	"slices"
	"time"

	"vitess.io/vitess/go/sqltypes"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/engine"
)

// processInfoWidth is how much of a statement SHOW PROCESSLIST shows
// (SHOW FULL PROCESSLIST shows it whole), as MySQL.
const processInfoWidth = 100

// activity is what a connection is doing, for SHOW PROCESSLIST.
type activity struct {
	user     string
	stmt     string    // the running statement's text ("" between statements)
	since    time.Time // when the statement began, or the connection went idle
	progress engine.Progress
	reported bool // progress is set
}

// activity returns what cn is doing now.
func (cn *conn) activity() activity {
	cn.mu.Lock()
	a := activity{user: cn.user, stmt: cn.stmt, since: cn.since}
	sess := cn.sessShared
	cn.mu.Unlock()
	if a.stmt != "" && sess != nil {
		a.progress, a.reported = sess.Progress()
	}
	return a
}

// setStatement records the statement cn starts ("" when it ends).
func (cn *conn) setStatement(text string) {
	cn.mu.Lock()
	cn.stmt, cn.since = text, time.Now()
	cn.mu.Unlock()
}

// answerShowProcesslist lists the connections as MySQL's SHOW [FULL]
// PROCESSLIST does, with MariaDB's Progress column: a statement's State is
// its progress when it reports one (a FLUSH, a pull query over a long
// history: "FLUSH: 1,250,000 of 4,000,000 rows (31%), ..."), and Progress
// its percentage (0 when not known).
func answerShowProcesslist(cn *conn, m []string) (*sqltypes.Result, error) {
	full := m[1] != ""
	cols := []engine.Column{
		{Name: "Id", Type: types.BigIntT}, {Name: "User", Type: types.VarcharT}, {Name: "Host", Type: types.VarcharT},
		{Name: "db", Type: types.VarcharT}, {Name: "Command", Type: types.VarcharT}, {Name: "Time", Type: types.BigIntT},
		{Name: "State", Type: types.VarcharT}, {Name: "Info", Type: types.VarcharT}, {Name: "Progress", Type: types.DoubleT},
	}
	res := &sqltypes.Result{Fields: fields(cols)}
	cn.srv.mu.Lock()
	conns := make([]*conn, 0, len(cn.srv.conns))
	for _, c := range cn.srv.conns {
		conns = append(conns, c)
	}
	cn.srv.mu.Unlock()
	slices.SortFunc(conns, func(a, b *conn) int { return int(a.id) - int(b.id) })
	for _, c := range conns {
		a := c.activity()
		if a.since.IsZero() {
			continue // not logged in yet
		}
		command, state, info, progress := "Sleep", sqltypes.NewVarChar(""), sqltypes.NULL, 0.0
		if a.stmt != "" {
			command = "Query"
			text := a.stmt
			if !full && len(text) > processInfoWidth {
				text = text[:processInfoWidth]
			}
			info = sqltypes.NewVarChar(text)
			state = sqltypes.NewVarChar("executing")
			if a.reported {
				state = sqltypes.NewVarChar(a.progress.String())
				if a.progress.Known > 0 {
					progress = math.Floor(1000*100*float64(a.progress.Done)/float64(max(a.progress.Known, a.progress.Done))) / 1000
				}
			}
		}
		db := sqltypes.NULL
		if c == cn && cn.db != "" {
			db = sqltypes.NewVarChar(cn.db)
		}
		res.Rows = append(res.Rows, sqltypes.Row{
			sqltypes.NewInt64(int64(c.id)), sqltypes.NewVarChar(a.user), sqltypes.NewVarChar(c.host), db,
			sqltypes.NewVarChar(command), sqltypes.NewInt64(int64(time.Since(a.since).Seconds())),
			state, info, sqltypes.NewFloat64(progress),
		})
	}
	return res, nil
}
