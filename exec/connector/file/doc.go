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
// NULL in a NOT NULL column) is skipped and
// counted in the metrics' BadRows; the first five are reported with their
// file and line through Env.Warnf. With on_error = 'fail', Next returns the
// *RowError instead, after the rows before it.
//
// Decoder applies the same parsing to records that come one at a time
// rather than in lines (a JSON object, or one CSV record with the columns'
// fields in order): the Kafka source decodes message values with it.
//
// Source implements exec.Positioned. Its position is the byte offset and
// line number after the last record its returned rows came from (not what
// it read ahead), whether the CSV header was read, the count of bad rows
// reported, and the path, format, header and delimiter options. Seek reads
// on from that offset, numbering lines from that line, so a resumed source
// reports bad rows at the lines an uninterrupted one does; it refuses a
// position of another file or other options, one past the file's end (a
// file that shrank) or not at the start of a line. With on_error = 'fail'
// a failed source is positioned before its bad row, which fails it again.
package file
