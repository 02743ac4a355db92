package server

import (
	"context"
	"errors"
	"strings"

	"vitess.io/vitess/go/mysql/sqlerror"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/planner"
	"github.com/eddysql/eddy/planner/plan"
	"github.com/eddysql/eddy/sql"
)

// toSQLError maps an error of a statement to a MySQL error packet's code,
// SQLSTATE and message:
//
//	a syntax error (sql.ParseError)              1064 ER_PARSE_ERROR          42000
//	an unknown stream, table, view or sink       1146 ER_NO_SUCH_TABLE        42S02
//	a name already taken                         1050 ER_TABLE_EXISTS_ERROR   42S01
//	"not supported yet: ..."                     1235 ER_NOT_SUPPORTED_YET    42000
//	a statement stopped by KILL QUERY, or by     1317 ER_QUERY_INTERRUPTED    70100
//	its client's leaving or sending a command
//	the server shutting down                     1053 ER_SERVER_SHUTDOWN      08S01
//	anything else                                1105 ER_UNKNOWN_ERROR        HY000
//
// The message is eddy's, which says line:column where the error points
// into the text, followed by the line and a caret under the column.
func toSQLError(err error) error {
	var se *sqlerror.SQLError
	if errors.As(err, &se) {
		return se
	}
	msg := err.Error()
	var pe sql.PosError
	if errors.As(err, &pe) {
		if snip := pe.Snippet(); snip != "" {
			msg += "\n" + snip
		}
	}
	var parse *sql.ParseError
	var notSupported *planner.NotSupportedError
	switch {
	case errors.Is(err, errKilled):
		return sqlerror.NewSQLError(sqlerror.ERQueryInterrupted, sqlerror.SSQueryInterrupted, "Query execution was interrupted")
	case errors.Is(err, errClientGone):
		return sqlerror.NewSQLError(sqlerror.ERQueryInterrupted, sqlerror.SSQueryInterrupted, "Query execution was interrupted: "+errClientGone.Error())
	case errors.Is(err, context.Canceled):
		return sqlerror.NewSQLError(sqlerror.ERServerShutdown, sqlerror.SSNetError, "the server is shutting down")
	case errors.As(err, &notSupported), errors.Is(err, plan.ErrNotSupported),
		strings.HasPrefix(err.Error(), "not supported yet"),
		errors.As(err, &parse) && strings.HasPrefix(parse.Msg, "not supported yet"):
		return sqlerror.NewSQLError(sqlerror.ERNotSupportedYet, sqlerror.SSClientError, msg)
	case errors.As(err, &parse):
		return sqlerror.NewSQLError(sqlerror.ERParseError, sqlerror.SSClientError, msg)
	case catalog.IsCode(err, catalog.ErrNotFound):
		return sqlerror.NewSQLError(sqlerror.ERNoSuchTable, sqlerror.SSUnknownTable, msg)
	case catalog.IsCode(err, catalog.ErrExists):
		return sqlerror.NewSQLError(sqlerror.ERTableExists, ssTableExists, msg)
	}
	return sqlerror.NewSQLError(sqlerror.ERUnknownError, sqlerror.SSUnknownSQLState, msg)
}

// ssTableExists is the SQLSTATE of ER_TABLE_EXISTS_ERROR.
const ssTableExists = "42S01"
