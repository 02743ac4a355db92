package server

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"vitess.io/vitess/go/mysql/sqlerror"
	"vitess.io/vitess/go/sqltypes"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/engine"
)

// database is the name of eddy's one database, as SHOW DATABASES, USE and
// DATABASE() know it.
const database = "eddy"

// mysqlism is a query stock MySQL clients and drivers send by themselves,
// answered by the server, since it is not eddy SQL: pattern matches the
// whole statement (case-insensitive, without its ';' and surrounding
// space), answer returns its result.
type mysqlism struct {
	pattern *regexp.Regexp
	who     string // who sends it, for the reader
	answer  func(cn *conn, m []string) (*sqltypes.Result, error)
}

// mysqlisms is the table of the MySQL-isms the server answers. Each
// pattern is anchored at both ends and case-insensitive.
var mysqlisms = []mysqlism{
	{re(`select\s+@@version_comment(\s+limit\s+1)?`), "the mysql and mariadb clients, on connecting", answerVersionComment},
	{re(`select\s+@@version`), "clients and tools checking the server", answerVersion},
	{re(`select\s+@@max_allowed_packet`), "go-sql-driver/mysql with maxAllowedPacket=0", answerMaxAllowedPacket},
	{re(`select\s+connection_id\(\)`), "clients that KILL their own queries from another connection", answerConnectionID},
	{re(`select\s+database\(\)`), "the mysql client's status and USE", answerDatabase},
	{re(`show\s+databases|show\s+schemas`), "clients' tab completion and GUIs", answerShowDatabases},
	{re("use\\s+`?([^`\\s]+)`?"), "USE, and COM_INIT_DB (mysql -D, a DSN's database)", answerUse},
	{re(`set\s+names\s+\S+(\s+collate\s+\S+)?`), "drivers' charset options (eddy speaks utf8mb4)", answerOK},
	{re(`set\s+(session\s+|@@session\.|@@)?autocommit\s*=\s*(1|on|true)`), "drivers and tools: eddy commits every statement", answerOK},
	{re(`kill\s+(query\s+|connection\s+)?(\d+)`), "KILL [QUERY | CONNECTION] id: stop a connection's statement, or close it", answerKill},
	{re(`show\s+(count\(\*\)\s+)?warnings`), "the mysql client's \\W and tools: the last statement's notices", answerShowWarnings},
	{re(`show\s+(full\s+)?processlist`), "mysqladmin processlist and tools: each connection's statement and its progress", answerShowProcesslist},
}

// re compiles a mysqlism pattern: case-insensitive, the whole statement.
func re(p string) *regexp.Regexp { return regexp.MustCompile(`(?is)^` + p + `$`) }

// mysqlism answers text if it is one of the mysqlisms.
func (cn *conn) mysqlism(text string) (res *sqltypes.Result, handled bool, err error) {
	q := strings.TrimSpace(text)
	q = strings.TrimSpace(strings.TrimSuffix(q, ";"))
	for _, m := range mysqlisms {
		if sub := m.pattern.FindStringSubmatch(q); sub != nil {
			res, err := m.answer(cn, sub)
			return res, true, err
		}
	}
	return nil, false, nil
}

// textResult is a result of VARCHAR columns.
func textResult(names []string, values ...[]string) *sqltypes.Result {
	cols := make([]engine.Column, len(names))
	for i, n := range names {
		cols[i] = engine.Column{Name: n, Type: types.VarcharT}
	}
	res := &sqltypes.Result{Fields: fields(cols)}
	for _, row := range values {
		r := make(sqltypes.Row, len(row))
		for i, v := range row {
			r[i] = sqltypes.NewVarChar(v)
		}
		res.Rows = append(res.Rows, r)
	}
	return res
}

func answerVersionComment(cn *conn, _ []string) (*sqltypes.Result, error) {
	return textResult([]string{"@@version_comment"}, []string{"eddy " + cn.srv.cfg.Version + ", a streaming SQL engine"}), nil
}

func answerVersion(cn *conn, _ []string) (*sqltypes.Result, error) {
	return textResult([]string{"@@version"}, []string{cn.srv.ln.ServerVersion}), nil
}

// answerMaxAllowedPacket answers the largest COM_QUERY accepted: the
// command's byte and MaxStatementBytes of text.
func answerMaxAllowedPacket(cn *conn, _ []string) (*sqltypes.Result, error) {
	res := &sqltypes.Result{Fields: fields([]engine.Column{{Name: "@@max_allowed_packet", Type: types.BigIntT}})}
	res.Rows = []sqltypes.Row{{sqltypes.NewInt64(int64(cn.srv.cfg.Limits.MaxStatementBytes) + 1)}}
	return res, nil
}

func answerConnectionID(cn *conn, _ []string) (*sqltypes.Result, error) {
	res := &sqltypes.Result{Fields: fields([]engine.Column{{Name: "CONNECTION_ID()", Type: types.BigIntT}})}
	res.Rows = []sqltypes.Row{{sqltypes.NewInt64(int64(cn.id))}}
	return res, nil
}

func answerDatabase(cn *conn, _ []string) (*sqltypes.Result, error) {
	res := textResult([]string{"DATABASE()"})
	v := sqltypes.NULL
	if cn.db != "" {
		v = sqltypes.NewVarChar(cn.db)
	}
	res.Rows = []sqltypes.Row{{v}}
	return res, nil
}

func answerShowDatabases(*conn, []string) (*sqltypes.Result, error) {
	return textResult([]string{"Database"}, []string{database}), nil
}

func answerUse(cn *conn, m []string) (*sqltypes.Result, error) {
	if !strings.EqualFold(m[1], database) {
		return nil, sqlerror.NewSQLError(sqlerror.ERBadDb, sqlerror.SSClientError,
			fmt.Sprintf("Unknown database '%s' (eddy has one database, '%s')", m[1], database))
	}
	cn.db = database
	return &sqltypes.Result{}, nil
}

func answerOK(*conn, []string) (*sqltypes.Result, error) { return &sqltypes.Result{}, nil }

// answerKill stops the statement of another connection (KILL QUERY id),
// ending a push query with ER_QUERY_INTERRUPTED, or closes the connection
// (KILL id, KILL CONNECTION id).
func answerKill(cn *conn, m []string) (*sqltypes.Result, error) {
	id, err := strconv.ParseUint(m[2], 10, 32)
	var target *conn
	if err == nil {
		target = cn.srv.lookup(uint32(id))
	}
	if target == nil {
		return nil, sqlerror.NewSQLError(sqlerror.ERNoSuchThread, sqlerror.SSUnknownSQLState, fmt.Sprintf("Unknown thread id: %s", m[2]))
	}
	target.interrupt(errKilled)
	if !strings.EqualFold(strings.TrimSpace(m[1]), "query") {
		target.c.Close()
	}
	return &sqltypes.Result{}, nil
}

// answerShowWarnings lists the notices of the connection's last eddy
// statement, as MySQL's warnings (Level, Code, Message).
func answerShowWarnings(cn *conn, m []string) (*sqltypes.Result, error) {
	if strings.TrimSpace(m[1]) != "" {
		res := &sqltypes.Result{Fields: fields([]engine.Column{{Name: "@@session.warning_count", Type: types.BigIntT}})}
		res.Rows = []sqltypes.Row{{sqltypes.NewInt64(int64(len(cn.notices)))}}
		return res, nil
	}
	res := textResult([]string{"Level", "Code", "Message"})
	for _, n := range cn.notices {
		res.Rows = append(res.Rows, sqltypes.Row{sqltypes.NewVarChar("Warning"), sqltypes.NewVarChar("1105"), sqltypes.NewVarChar(n)})
	}
	return res, nil
}
