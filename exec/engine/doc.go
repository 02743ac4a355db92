// Package engine ties eddy together: it parses statements (sql), binds them
// (planner), optimizes them (optimizer), runs them on the dataflow runtime
// (exec) against the catalog and storage, and returns results. Every front
// end — the shell, `eddy exec`, `eddy slt`, the server — drives the same
// Engine and Session API, so what a test proves holds for all of them. The
// sqllogictest runner, exec/engine/slt, is one more such front end: it uses
// only this package's exported API.
package engine
