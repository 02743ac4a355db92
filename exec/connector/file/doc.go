// Package file is the `file` source connector: it reads a CSV or JSON-lines
// file into Arrow record batches whose columns are a stream's declared
// columns (SQL.md, "Connectors").
//
// A stream declared
//
//	CREATE STREAM bid (auction BIGINT, price BIGINT, date_time TIMESTAMP(3))
//	WITH (connector = 'file', path = 'bids.csv', format = 'csv', header = 'true');
//
// becomes a Source through FromOptions and New, which Connector (the
// connector.Source the registry holds) calls. Its path is confined to
// Config.Root (package fileroot): checked by FromOptions, and again each
// time the file is opened or, when followed, polled. A bounded file yields its
// rows and then io.EOF; with follow = 'true' the file is tailed: at its end
// Next returns exec.ErrCaughtUp and Wait polls for growth, an incomplete last
// line is held back until its line break arrives, and a file that is
// truncated or replaced is read again from its beginning.
//
// A bounded file is read in parallel splits, one per instance of its scan
// (catalog.SourceTraits.Splittable; exec.Env's Instance and Parallelism):
// split i of P reads the records that start after byte size*i/P and at or
// before byte size*(i+1)/P, which is every record exactly once (split.go).
// A followed file is read as one split: Open refuses it at a parallelism
// above 1. Each split counts the lines before it when it opens, so bad
// rows and positions name true lines. The splits of a scan share (through
// exec.Env.Shared) the file size they divide and their budget of
// warnings. Rows come in the file's order only when it is read as one;
// with on_error = 'fail' the query fails at the first bad row a split
// meets, which read as one is the file's first.
//
// Parsing is hand-written for speed and for the NULL rules SQL.md sets: in
// CSV (RFC 4180) an unquoted empty field is NULL and "" is the empty string,
// as PostgreSQL's CSV COPY reads them; in JSON lines a missing field or null
// is NULL. A TIMESTAMP is 'YYYY-MM-DD HH:MM:SS[.fff]' or an integer count of
// milliseconds since the Unix epoch, cut to the column's fsp. Values are
// parsed straight from the file's bytes into typed Arrow builders, with no
// per-row allocation on the common path.
//
// A row that cannot be read (a bad value, a wrong field count, malformed
// JSON or JSON nested more than 512 levels deep, a value out of range,
// NULL in a NOT NULL column) is skipped and counted in the metrics'
// BadRows; the first five the splits meet are reported with their file and
// line through Env.Warnf. With on_error = 'fail', Next returns the
// *RowError instead, after the rows before it.
//
// Decoder applies the same parsing to records that come one at a time
// rather than in lines (a JSON object, or one CSV record with the columns'
// fields in order): the Kafka source decodes message values with it.
//
// Source implements exec.Positioned. Its position is the byte offset and
// line number after the last record its returned rows came from (not what
// it read ahead), whether the CSV header was read, the count of bad rows
// it reported, the path, format, header and delimiter options, and its
// split (instance, parallelism and the size the splits divided). Seek
// reads on from that offset, numbering lines from that line, so a resumed
// source reports bad rows at the lines an uninterrupted one does; it
// refuses a position of another file, other options or another split or
// parallelism (the runtime resumes a source only at the parallelism it
// was checkpointed at), one past the file's end (a file that shrank), not
// at the start of a line or before its split. A position written before
// files were read in splits is of the file read as one, split 0 of 1.
// With on_error = 'fail' a failed source is positioned before its bad
// row, which fails it again.
package file
