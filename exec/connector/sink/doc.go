// Package sink holds the sink connectors `file`, `print` and `blackhole`: the
// operators that end a sink's continuous query and write its changes out
// (SQL.md, "Statements" and "Connectors").
//
//	CREATE SINK k FROM v WITH (connector = 'file', path = 'out.jsonl');
//	CREATE SINK k AS SELECT ... WITH (connector = 'print');
//	CREATE SINK k FROM v WITH (connector = 'blackhole');
//
// Each is a Connector (a connector.Sink), which the registry holds.
// FromOptions validates a sink's WITH options into a Config; the
// connector adds the query's column names and types and whether it is
// append-only, which the engine gives it, and New returns the operator, a
// *Sink. A file sink's path is confined to
// Config.Root (package fileroot): checked by FromOptions, again by Open,
// and for each partition file a partitioned sink opens.
//
// # Formats
//
// JSON lines (format = 'json', the default for .json, .jsonl and .ndjson
// paths) write one object per row, its keys the column names in order.
// Integers and decimals are JSON numbers in full precision (a decimal's
// digits come from its 128 bits, never through a float64); doubles are
// numbers in their shortest exact form, with NaN, Infinity and -Infinity as
// strings; booleans are true and false; timestamps are strings
// 'YYYY-MM-DD HH:MM:SS' with the column's fsp digits of milliseconds; dates
// are 'YYYY-MM-DD'; intervals are strings such as "INTERVAL '10' SECOND";
// NULL is null.
//
// CSV (format = 'csv', the default for .csv paths) follows RFC 4180 and
// quotes a field only where needed. NULL is an unquoted empty field and the
// empty string is "", so eddy's own CSV source reads both back as they were
// (SQL.md); header = 'true' writes a first line naming the columns.
//
// For an updating query (one that retracts) every row carries its op, +I,
// -D, -U or +U: as the first key "op" of a JSON object, or as a first CSV
// column named op. A column named op is then rejected where it would clash
// (JSON keys, a CSV header); header-less CSV is positional, so it is kept.
// An append-only query's rows carry no op, so its file reads back as a
// stream through the file source.
//
// print writes each row as one line to standard output (Config.Stdout):
// the op first for an updating query, then the values as types.Format shows
// them, separated by single spaces, e.g. `+I 7 web 2024-01-01 00:00:01.000`;
// format = 'json' or 'csv' writes those formats instead. Each chunk's lines
// go out in one Write under a lock shared by every print sink, so sinks
// sharing standard output never interleave within a line.
//
// blackhole discards rows and counts them (Sink.Rows): the sink of
// benchmarks, which measures a query without the cost of output.
//
// # Partitions
//
// A file sink with partition_by (Config.PartitionBy) treats its path as a
// directory and writes each row to
// <path>/<col1>=<v1>/<col2>=<v2>/part-<instance>.<csv|jsonl>, Hive-style,
// as Flink's filesystem connector writes PARTITIONED BY. The partition
// columns are kept in the rows. A value is written as types.Format shows
// it, its bytes that are unsafe in file names escaped as %XX as Hive
// escapes them (escapePartition); NULL is NullPartition (__NULL__), and a
// string equal to it is escaped apart. A chunk's rows are grouped by
// partition (runs of equal partition values are found by comparing the
// encoded text of consecutive rows, so a time-ordered stream costs one
// map lookup per run) and each partition's rows written at once. At most
// Config.MaxOpenFiles files are open; the least recently written is closed
// (flushed and fsynced) beyond that and reopened for appending when
// needed. Open removes the files this instance wrote in an earlier run, so
// a restarted query's output is, as for a single file, one run's. Each
// instance writes files of its own, so a partitioned sink may run in
// parallel. docs/dialect-notes.md describes it for users.
//
// # Durability and restarts
//
// A file sink's writes go through a buffer. On a Flush marker, a checkpoint
// barrier and the end of input the buffer is flushed and the file fsynced,
// so that once eddy's FLUSH statement returns, the file holds every row
// that reached the sink. In between, rows wait in the buffer at most
// Config.FlushInterval (flush_interval, a second by default): the sink is
// an exec.ProcessingTimer, armed when rows start to wait, and its task
// calls it when the interval has passed, input or not; it then writes the
// buffer out without fsync (flush.go). A write error fails the query with the file's path
// in its message.
//
// Opening a file never waits: a FIFO is opened with O_NONBLOCK, so one
// with no reader fails the sink at once (ErrFIFONoReader) instead of
// holding up its query until a reader comes. A write that waits on a
// FIFO's slow reader returns when the query is stopped (interruptWrites).
//
// A sink whose query is not checkpointed is recomputed from the beginning
// of its inputs after a restart, so Open creates the file or truncates it
// and the output is written again from the start: the file always holds
// one run's output, never a restarted run appended to an earlier one. A
// checkpointed file sink (TwoPhase, Config.TwoPhase) publishes exactly
// once instead: twophase.go says how. A file sink is written by one
// instance (the last stage of a dataflow runs as one).
//
// The 'type' option ('append-only' or 'upsert') is accepted for
// compatibility with RisingWave. 'append-only' sets Config.ForceAppendOnly,
// which the engine checks against the query; 'upsert' changes nothing, as
// the sink writes every change with its op.
//
// # Encoding
//
// A chunk is encoded column by column: one loop per column, typed once for
// its Arrow array, appends the values' text to that column's buffer, and
// the rows are then assembled from the buffers with precomputed keys and
// separators. The buffers are reused across chunks, so writing allocates
// nothing per row.
package sink
