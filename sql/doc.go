// Package sql is eddy's SQL front end: it parses the statements of the
// dialect in SQL.md into the AST of ast.go, which the planner consumes.
//
// Eddy's own statements and clauses (CREATE STREAM, TABLE, MATERIALIZED
// VIEW and SINK, WITH options, WATERMARK, window functions in FROM, EMIT,
// EXPLAIN, SHOW, ...) are read by a small lexer and a recursive-descent
// parser. Queries and expressions are MySQL and are parsed by TiDB's
// parser. TiDB is handed a copy of the statement in which eddy's syntax is
// blanked with spaces, so that its offsets are those of the user's text;
// where a rewrite must change the text (a window function call becomes a
// placeholder table name, CAST(x AS type) becomes __eddy_cast(x, 'TYPE'),
// interval units MySQL lacks are respelled), Source records the edits and
// maps TiDB's offsets back exactly.
//
// Every error is a *ParseError with a script position and the offending
// line; Split cuts a script into statements for shells and script runners.
package sql
