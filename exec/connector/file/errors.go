package file

import (
	"fmt"
	"strconv"
)

// RowError describes an input row the source could not read: the file (as
// the stream's path option gave it), the 1-based physical line the record
// starts on, the column at fault if any, and what was wrong. Its text is what
// a warning shows, e.g. `f.csv:7: column price: cannot parse "abc" as BIGINT`.
type RowError struct {
	Path   string
	Line   int
	Column string // empty for faults of the whole record (field count, JSON syntax)
	Msg    string
}

// Error returns "path:line: column name: msg", without the column part for a
// record-level fault.
func (e *RowError) Error() string {
	if e.Column == "" {
		return e.Path + ":" + strconv.Itoa(e.Line) + ": " + e.Msg
	}
	return e.Path + ":" + strconv.Itoa(e.Line) + ": column " + e.Column + ": " + e.Msg
}

// OptionError reports a WITH option of a file stream that is unknown,
// missing or has a bad value. Option names the option.
type OptionError struct {
	Option string
	Msg    string
	Err    error // the cause, when there is one (a *fileroot.PathError)
}

// Error returns "file connector: option name: msg".
func (e *OptionError) Error() string {
	return fmt.Sprintf("file connector: option %s: %s", e.Option, e.Msg)
}

// Unwrap returns the cause.
func (e *OptionError) Unwrap() error { return e.Err }

// maxShown is how many bytes of a bad value a message quotes; longer values
// are cut so that a runaway field cannot flood the log.
const maxShown = 64

// shown renders a bad value for a message: CSV text quoted, JSON text as it
// appears in the line (raw).
func shown(b []byte, raw bool) string {
	cut := len(b) > maxShown
	if cut {
		b = b[:maxShown]
	}
	s := string(b)
	if !raw {
		s = strconv.Quote(s)
	}
	if cut {
		s += "..."
	}
	return s
}

// faultCode classifies a bad row.
type faultCode uint8

const (
	faultNone   faultCode = iota
	faultSyntax           // a value that does not parse as its column's type
	faultRange            // a value out of its column's range or precision
	faultNull             // NULL in a NOT NULL column
	faultUTF8             // text that is not valid UTF-8
	faultRecord           // the record itself: field count, CSV quoting, JSON syntax
)

// fault says why a row is bad; the zero fault means the row is good. It is a
// plain value so the good path allocates nothing.
type fault struct {
	code  faultCode
	col   int    // the column at fault, for value faults
	value []byte // the offending text
	raw   bool   // value is shown as it appears (JSON) rather than quoted (CSV)
	msg   string // faultRecord: the description
}

// message renders a value fault for column col.
func (f fault) message(col *column) string {
	switch f.code {
	case faultSyntax:
		return fmt.Sprintf("cannot parse %s as %s", shown(f.value, f.raw), col.t)
	case faultRange:
		return fmt.Sprintf("value %s out of range for %s", shown(f.value, f.raw), col.t)
	case faultNull:
		return "NULL in a NOT NULL column"
	case faultUTF8:
		return fmt.Sprintf("value %s is not valid UTF-8", shown(f.value, f.raw))
	}
	return f.msg
}

// maxReported is how many bad rows the splits of a scan report one by one
// together; later ones are only counted, so a broken file cannot flood the
// user with warnings.
const maxReported = 5

// bad handles a bad row starting on line: it is counted, and reported while
// the splits of the scan reported fewer than maxReported together; with
// on_error = 'fail' it ends the source.
func (s *Source) bad(line int, f fault) error {
	e := &RowError{Path: s.cfg.Path, Line: line, Msg: f.msg}
	if f.code != faultRecord {
		e.Column, e.Msg = s.cols[f.col].name, f.message(&s.cols[f.col])
	}
	s.env.Metrics.BadRows.Add(1)
	if s.cfg.OnError == OnErrorFail {
		// The source is positioned before the row, so that one resumed
		// from its position fails on it again.
		s.failAt = &location{offset: s.rd.consumed() - int64(s.recLen), line: line}
		s.err = e
		return e
	}
	if s.shared.reports.Load() > maxReported {
		return nil // only counted: the common case in a file of many bad rows
	}
	switch n := s.shared.reports.Add(1); {
	case n <= maxReported:
		s.env.Warnf("%s", e.Error())
	case n == maxReported+1:
		s.env.Warnf("%s: more than %d bad rows; further bad rows are only counted (bad_rows)", s.cfg.Path, maxReported)
	default:
		return nil
	}
	s.reported++
	return nil
}
