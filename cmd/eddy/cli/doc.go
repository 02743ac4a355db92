// Package cli implements the eddy command with cobra: the interactive shell
// (the default), `exec` for scripts, `slt` for sqllogictest files, `serve`
// (which wires its flags to package server, the MySQL protocol server),
// `bench` and `version`. Every front end opens one engine (or, for the
// shell and exec with --connect, a connection to eddy serve through
// package client: connect.go), splits its input into statements with
// sql.Statements (the shell, line by line, with sql.Split), parses each
// with sql.ParseOne (so statements before a bad one still run) and prints
// what Session.Execute returns as a table, CSV or JSON lines.
//
// Exit codes: 0 on success (the shell always exits 0), 1 when a statement of
// a script or an slt record fails, 2 for usage errors, 3 when the data
// directory is damaged.
package cli
