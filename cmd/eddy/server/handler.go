package server

import (
	"errors"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/replication"
	"vitess.io/vitess/go/mysql/sqlerror"
	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/vtenv"

	"github.com/eddysql/eddy/sql"
)

// handler is the server's vitess mysql.Handler: it finds the connection's
// state and runs its statements there.
type handler struct {
	mysql.UnimplementedHandler
	srv *Server
	env *vtenv.Environment
}

var _ mysql.Handler = (*handler)(nil)

// NewConnection registers the connection and opens its session.
func (h *handler) NewConnection(c *mysql.Conn) {
	if cn := h.srv.register(c); cn != nil {
		c.ClientData = cn
	}
}

// ConnectionReady opens the session of a connection that has logged in,
// and lifts the bounds on its handshake.
func (h *handler) ConnectionReady(c *mysql.Conn) {
	cn := h.conn(c)
	if cn == nil {
		return
	}
	cn.session()
	if cc := clientConnOf(c); cc != nil {
		cc.loggedIn(h.srv.cfg.Limits.MaxStatementBytes)
	}
	h.srv.log.Debug("connection ready", "client", cn.host, "conn", cn.id, "user", c.User, "tls", c.TLSEnabled())
}

// ConnectionClosed stops the connection's statement and forgets it.
func (h *handler) ConnectionClosed(c *mysql.Conn) { h.srv.unregister(c) }

// conn returns the state of c, or nil for a connection the server refused
// (it was closing).
func (h *handler) conn(c *mysql.Conn) *conn {
	cn, _ := c.ClientData.(*conn)
	return cn
}

// errClosing is the error of a statement on a connection the server
// refused because it was closing.
var errClosing = sqlerror.NewSQLError(sqlerror.ERServerShutdown, sqlerror.SSUnknownSQLState, "the server is shutting down")

// ComQueryMulti runs every statement of text in order, each as one result
// of a MySQL multi-result, and stops at the first that fails with its
// error.
func (h *handler) ComQueryMulti(c *mysql.Conn, text string, callback func(sqltypes.QueryResponse, bool, bool) error) error {
	cn := h.conn(c)
	if cn == nil {
		return errClosing
	}
	if err := cn.checkSize(text); err != nil {
		return err
	}
	pieces := sql.Statements(text)
	if len(pieces) == 0 {
		return sqlerror.NewSQLError(sqlerror.EREmptyQuery, sqlerror.SSClientError, "Query was empty")
	}
	for i, p := range pieces {
		more := i < len(pieces)-1
		sent := false
		err := cn.run(p, func(res *sqltypes.Result, first bool) error {
			sent = true
			if err := callback(sqltypes.QueryResponse{QueryResult: res}, more, first); err != nil {
				return &writeError{err}
			}
			return nil
		})
		if err == nil {
			continue
		}
		var we *writeError
		if errors.As(err, &we) || sent {
			// The connection is broken, or this statement's result set
			// is open: its error ends it (an ERR packet may end a result
			// set), and no statement after it runs.
			return toSQLError(err)
		}
		// The error is this statement's result, after the results of
		// the statements before it.
		if cerr := callback(sqltypes.QueryResponse{QueryError: toSQLError(err)}, false, true); cerr != nil {
			return cerr
		}
		return nil
	}
	return nil
}

// ComQuery runs the statements of text. vitess calls it for COM_INIT_DB
// (as "use `db`") since the server takes multi-queries through
// ComQueryMulti; it answers a single result, so text must hold one
// statement.
func (h *handler) ComQuery(c *mysql.Conn, text string, callback func(*sqltypes.Result) error) error {
	cn := h.conn(c)
	if cn == nil {
		return errClosing
	}
	if err := cn.checkSize(text); err != nil {
		return err
	}
	pieces := sql.Statements(text)
	if len(pieces) != 1 {
		return sqlerror.NewSQLError(sqlerror.ERNotSupportedYet, sqlerror.SSClientError, "not supported yet: several statements here")
	}
	err := cn.run(pieces[0], func(res *sqltypes.Result, _ bool) error {
		if err := callback(res); err != nil {
			return &writeError{err}
		}
		return nil
	})
	if err != nil {
		return toSQLError(err)
	}
	return nil
}

// checkSize refuses statement text longer than MaxStatementBytes; the
// connection stays usable, since vitess has read the whole packet.
func (cn *conn) checkSize(text string) error {
	refusal := cn.srv.gate.checkStatementSize(len(text))
	if refusal == nil {
		return nil
	}
	cn.srv.stats.stmtsRefused.Add(1)
	cn.srv.log.Info("refused a statement", "client", cn.host, "conn", cn.id, "error", refusal.Message)
	return refusal
}

// errNoReplication is the answer to replication commands.
var errNoReplication = sqlerror.NewSQLError(sqlerror.ERNotSupportedYet, sqlerror.SSClientError,
	"not supported yet: replication (eddy has no binary log)")

// ComRegisterReplica refuses replication.
func (h *handler) ComRegisterReplica(*mysql.Conn, string, uint16, string, string) error {
	return errNoReplication
}

// ComBinlogDump refuses replication.
func (h *handler) ComBinlogDump(*mysql.Conn, string, uint32) error { return errNoReplication }

// ComBinlogDumpGTID refuses replication.
func (h *handler) ComBinlogDumpGTID(*mysql.Conn, string, uint64, replication.GTIDSet, uint16) error {
	return errNoReplication
}

// WarningCount is the number of notices of the connection's statement.
func (h *handler) WarningCount(c *mysql.Conn) uint16 {
	cn := h.conn(c)
	if cn == nil {
		return 0
	}
	return uint16(min(len(cn.notices), 65535))
}

// Env returns vitess's environment (its MySQL version and collations).
func (h *handler) Env() *vtenv.Environment { return h.env }

// writeError is a failure to write to the client: the connection is gone.
type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }
func (e *writeError) Unwrap() error { return e.err }
