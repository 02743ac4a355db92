// Package server serves one engine to many clients at once over the MySQL
// wire protocol, with vitess's server (vitess.io/vitess/go/mysql): `eddy
// serve` wires its flags to Listen.
//
// Each connection is an engine Session, so SET is per connection. A
// COM_QUERY's text is cut into statements by eddy's own splitter
// (sql.Statements) and each is parsed by sql.ParseOne and run in order, as
// `eddy exec` runs a script, except for the few queries stock MySQL
// clients send on their own (mysqlisms.go), which are answered here and
// never reach eddy's dialect. Several statements in one COM_QUERY answer
// as MySQL multi-results; the first that fails ends them with its error.
//
// Results map as follows (results.go): a statement without rows (DDL,
// INSERT, SET, FLUSH) is an OK packet, with the rows an INSERT wrote as
// its affected rows; pull queries, SHOW, DESCRIBE and EXPLAIN are typed
// result sets; a push query (EMIT CHANGES) is a result set that never ends
// by itself: its changes are written and flushed as they come, with their
// op (+I, -D, -U, +U) in the first column, until its LIMIT, the client's
// disconnect (watched while a statement runs), or KILL QUERY from another
// connection, which ends it with ER_QUERY_INTERRUPTED. Errors are MySQL
// error packets (errors.go) with eddy's message, which says line:column.
// An engine notice counts as a MySQL warning, read with SHOW WARNINGS.
//
// Access (auth.go, config.go): without a password the server lets every
// user in and binds loopback addresses only; with one, clients log in as
// the one account with mysql_native_password or caching_sha2_password,
// and any address may be served. With a certificate clients may use TLS,
// or must (RequireTLS).
//
// Limits (admission.go, listener.go): connections per client address and
// in total are counted when accepted, before vitess sees them, and a
// refused one gets MySQL's error in place of the handshake; statements
// running at once per client address and the length of statement text
// are checked per statement; a client may not make the server read more
// than a bounded request. Stats counts what was accepted and refused.
//
// Logging (logging.go): vitess's process-wide logger is routed to the
// Config's Log, with a client that went away at Debug and a client that
// broke the protocol at Info, so that neither is reported as the
// server's error.
package server
