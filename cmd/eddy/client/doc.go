// Package client runs eddy statements on an eddy server (`eddy serve`,
// package server) over the MySQL wire protocol, and returns what they
// return as the engine's own results, so that a front end prints a remote
// result exactly as it prints an embedded one: `eddy shell --connect` and
// `eddy exec --connect` are the cli's session interface over a Session.
//
// A Session is one connection, so one engine session on the server:
// settings (SET) last as long as it does. A statement's text goes to the
// server as written; what comes back is mapped back to the engine's
// values:
//
//   - an OK packet is a ResultOK whose tag is the one the engine gives the
//     statement (CREATE STREAM, INSERT 3, SET, ...): MySQL's OK packet
//     carries the rows affected but no tag;
//   - a result set is a ResultRows whose columns have eddy's types, read
//     back from the column definitions the server writes (TINYINT(1) is
//     BOOLEAN, DECIMAL(p,s), DATETIME(fsp) is TIMESTAMP(fsp), ...), and
//     whose values are decoded from their text; an EXPLAIN's is
//     preformatted;
//   - a push query (EMIT CHANGES) is a ResultStream whose rows are read as
//     the server flushes them; cancelling the context of Next stops it
//     with KILL QUERY from a second, short-lived connection, and the
//     session goes on;
//   - warnings are the result's notices, fetched with SHOW WARNINGS when
//     the OK or EOF packet counts some (after a push query, whose end
//     packet the protocol client does not report, they are fetched always
//     and shown with the next statement's result);
//   - an error packet is an error with eddy's message; one that points
//     into the statement (line:column and a caret snippet) is a
//     sql.PosError at the script position, as the embedded engine's is.
//
// The protocol client is vitess's (vitess.io/vitess/go/mysql), the library
// the server speaks with: unlike database/sql drivers it reports each
// column's length (which tells BOOLEAN from TINYINT), the warning count and
// the rows affected of any statement, and streams a result set's rows.
package client
