package file

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/eddysql/eddy/exec"
)

// errNotOpen is returned by Next before Open or after Close.
var errNotOpen = errors.New("file connector: source is not open")

// Source reads a CSV or JSON-lines file, or one split of it, as a stream
// of chunks. It implements exec.Source; the runtime calls it from one
// goroutine.
type Source struct {
	cfg  Config
	path string // the resolved path, set by Open
	cols []column

	env   *exec.Env
	file  *os.File
	info  os.FileInfo // of file, to notice a replaced file
	rd    reader
	csv   csvScanner
	json  *jsonParser
	line  []byte // JSON: the line scanned last
	bat   *batch
	cells []cell

	fieldOf    []int // CSV: the field each column is read from
	nfields    int   // CSV: the fields a record must have
	needHeader bool  // CSV: the next record is the header

	split  split        // the part of the file this instance reads
	shared *splitShared // what the splits of the scan share
	body   location     // where the records start, after any header read by Open

	reported int   // bad-row warnings this source issued (up to maxReported+1)
	err      error // a fatal error: every later Next returns it
	eof      bool  // a bounded file was read to its end
	closed   bool

	started   bool      // Next was called: Seek is too late
	exhausted bool      // Seek found nothing to read after its position
	first     int64     // the file offset the first Next read from (progress)
	recLen    int       // the bytes of the record readRecord returned last
	failAt    *location // on_error = 'fail': where the bad row that failed the source starts
}

var (
	_ exec.Source    = (*Source)(nil)
	_ exec.Exhausted = (*Source)(nil)
)

// New returns a source for cfg, which is validated. The file is opened by
// Open.
func New(cfg Config) (*Source, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if cfg.Delimiter == 0 {
		cfg.Delimiter = ','
	}
	if cfg.BatchSize == 0 {
		cfg.BatchSize = DefaultBatchSize
	}
	if cfg.OnError == "" {
		cfg.OnError = OnErrorSkip
	}
	s := &Source{cfg: cfg, split: wholeFile}
	for _, c := range cfg.Columns {
		col, err := newColumn(c)
		if err != nil {
			return nil, err
		}
		s.cols = append(s.cols, col)
	}
	s.cells = make([]cell, len(s.cols))
	s.csv.delim = cfg.Delimiter
	if cfg.Format == FormatJSON {
		s.json = newJSONParser(s.cols)
	}
	s.fieldOf = make([]int, len(s.cols))
	return s, nil
}

// Open opens the file and, for a CSV file with a header, reads the header
// and matches the columns to it. A bounded file is read in
// env.Parallelism splits: Open moves split env.Instance to its first
// record (split.go). A missing file, or a declared column missing from the
// header, is an error naming the file; so is a followed file opened as
// more than one split.
func (s *Source) Open(ctx context.Context, env *exec.Env) error {
	if s.closed {
		return errors.New("file connector: source is closed")
	}
	if s.file != nil {
		return errors.New("file connector: source is already open")
	}
	p := max(env.Parallelism, 1)
	switch {
	case env.Instance < 0 || env.Instance >= p:
		return fmt.Errorf("file connector: instance %d is not among the %d instances", env.Instance, p)
	case s.cfg.Follow && p > 1:
		return fmt.Errorf("file connector: %s: a followed file is read as one split, not by %d instances", s.cfg.Path, p)
	}
	// The path is checked again now: a link may have changed since the
	// stream was created.
	path, err := s.cfg.Resolve()
	if err != nil {
		return err
	}
	f, info, err := openFile(path)
	if err != nil {
		return err
	}
	s.path, s.env, s.file, s.info = path, env, f, info
	s.shared = sharedOf(env, path, info.Size())
	s.split = splitOf(env.Instance, p, s.shared.size)
	s.bat = newBatch(env.Alloc, s.cols, s.cfg.BatchSize)
	s.start()
	if s.needHeader {
		atEOF := false
		st, _, msg, err := s.readRecord(ctx, &atEOF)
		if err == nil && st != scanMore {
			err = s.header(st, msg)
		}
		if err != nil {
			s.Close()
			return err
		}
		// With no complete header yet (an empty file, or a followed file
		// still being written), the header is read with the first records.
	}
	s.body = location{offset: s.rd.consumed(), line: s.rd.line}
	if err := s.skipToSplit(ctx); err != nil {
		s.Close()
		return err
	}
	return nil
}

// Next returns the next chunk of at most BatchSize rows. At the end of the
// data it returns io.EOF for a bounded file and exec.ErrCaughtUp for a
// followed one. A bad row is skipped and counted, or, with on_error =
// 'fail', returned as a *RowError once the rows before it are delivered;
// every later call returns the same error.
func (s *Source) Next(ctx context.Context) (exec.Chunk, error) {
	switch {
	case s.err != nil:
		return exec.Chunk{}, s.err
	case s.file == nil:
		return exec.Chunk{}, errNotOpen
	case s.eof:
		return exec.Chunk{}, io.EOF
	}
	if !s.started {
		s.started, s.first = true, s.rd.consumed()
	}
	defer s.reportInput()
	atEOF := false
	for !s.bat.full() {
		st, line, msg, err := s.readRecord(ctx, &atEOF)
		if err != nil {
			if s.bat.rows > 0 {
				break // deliver the rows read; the error recurs on the next call
			}
			return exec.Chunk{}, err
		}
		if st == scanMore {
			break
		}
		if s.needHeader {
			if err := s.header(st, msg); err != nil {
				s.err = err
				return exec.Chunk{}, err
			}
			continue
		}
		f := fault{code: faultRecord, msg: msg}
		if st == scanRecord {
			f = s.parseRecord()
		}
		if f.code != faultNone {
			if err := s.bad(line, f); err != nil {
				if s.bat.rows > 0 {
					break // deliver the rows before the bad one; s.err follows
				}
				return exec.Chunk{}, err
			}
			continue
		}
		s.bat.appendRow(s.cells)
	}
	if rec := s.bat.finish(); rec != nil {
		return exec.Chunk{Batch: rec}, nil
	}
	if !s.cfg.Follow {
		s.eof = true
		return exec.Chunk{}, io.EOF
	}
	return exec.Chunk{}, exec.ErrCaughtUp
}

// reportInput records the source's progress in bytes: read since the
// first Next, and left in its split of the file as it was when opened (a
// followed file's growth shows once read).
func (s *Source) reportInput() {
	if s.env == nil || s.env.Metrics == nil {
		return
	}
	at := s.rd.consumed()
	s.env.Metrics.ReportInput(at-s.first, s.split.end(s.info.Size())-at)
}

// readRecord scans the next record, reading more of the file as needed. It
// returns scanRecord or scanBad with the line the record starts on, or
// scanMore when the file (or the split) has nothing more for now (*atEOF
// is then set). A record held in the returned fields or line stays valid
// until the next call.
func (s *Source) readRecord(ctx context.Context, atEOF *bool) (scanStatus, int, string, error) {
	for {
		if s.rd.recordStart() > s.split.hi {
			// The next record starts after the split: the next split's.
			*atEOF = true
			return scanMore, 0, "", nil
		}
		final := *atEOF && !s.cfg.Follow // a followed file's last line may be incomplete
		n, lines, st, msg := s.scan(s.rd.data(), final)
		if st != scanMore {
			line := s.rd.line
			s.rd.advance(n, lines)
			if st == scanSkip {
				continue
			}
			s.recLen = n
			return st, line, msg, nil
		}
		if *atEOF {
			return scanMore, 0, "", nil
		}
		if err := ctx.Err(); err != nil {
			return 0, 0, "", err
		}
		if err := s.rd.fill(); err == io.EOF {
			*atEOF = true
		} else if err != nil {
			return 0, 0, "", fmt.Errorf("file connector: read %s: %w", s.path, err)
		}
	}
}

// scan scans one record of the file's format from data.
func (s *Source) scan(data []byte, final bool) (n, lines int, st scanStatus, msg string) {
	if s.json == nil {
		n, lines, st, msg = s.csv.scan(data, final)
		// An empty line is a record of one NULL field: a row when a record
		// has one field, and skipped otherwise (as a trailing blank line).
		if st == scanRecord && len(s.csv.fields) == 1 && !s.csv.fields[0].quoted &&
			len(s.csv.fields[0].b) == 0 && (s.needHeader || s.nfields > 1) {
			st = scanSkip
		}
		return n, lines, st, msg
	}
	nl := bytes.IndexByte(data, '\n')
	switch {
	case nl >= 0:
		s.line, n, lines = data[:nl], nl+1, 1
	case final && len(data) > 0:
		s.line, n = data, len(data)
	default:
		return 0, 0, scanMore, ""
	}
	if isBlank(s.line) {
		return n, lines, scanSkip, ""
	}
	return n, lines, scanRecord, ""
}

// isBlank reports whether a line holds only JSON whitespace.
func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// parseRecord parses the record just scanned into the row's cells.
func (s *Source) parseRecord() fault {
	if s.json != nil {
		return s.json.parse(s.line, s.cells)
	}
	return parseFields(s.cols, s.csv.fields, s.fieldOf, s.nfields, s.cells)
}

// parseFields parses a CSV record's fields fs, which must number nfields,
// into cells: column j from field fieldOf[j].
func parseFields(cols []column, fs []field, fieldOf []int, nfields int, cells []cell) fault {
	if len(fs) != nfields {
		return fault{code: faultRecord, msg: fmt.Sprintf("expected %d fields, got %d", nfields, len(fs))}
	}
	for j := range cols {
		col, c, fl := &cols[j], &cells[j], &fs[fieldOf[j]]
		if len(fl.b) == 0 && !fl.quoted {
			if !col.nullable {
				return fault{code: faultNull, col: j}
			}
			c.null = true
			continue
		}
		c.null = false
		if code := parseText(col, fl.b, c); code != faultNone {
			return fault{code: code, col: j, value: fl.b}
		}
	}
	return fault{}
}

// header matches the declared columns to the CSV header just scanned: by
// exact name first, then case-insensitively. Extra header fields are
// ignored.
func (s *Source) header(st scanStatus, msg string) error {
	if st == scanBad {
		return fmt.Errorf("file connector: %s: malformed header: %s", s.path, msg)
	}
	fs := s.csv.fields
	names := make([]string, len(fs))
	for k, f := range fs {
		names[k] = string(trimSpace(f.b))
	}
	for j, col := range s.cols {
		idx := slices.Index(names, col.name)
		if idx < 0 {
			for k, name := range names {
				if !strings.EqualFold(name, col.name) {
					continue
				}
				if idx >= 0 {
					return fmt.Errorf("file connector: %s: column %s matches header fields %s and %s", s.path, col.name, names[idx], name)
				}
				idx = k
			}
		}
		if idx < 0 {
			return fmt.Errorf("file connector: %s: column %s is missing from the CSV header (%s)", s.path, col.name, strings.Join(names, ", "))
		}
		s.fieldOf[j] = idx
	}
	s.nfields = len(fs)
	s.needHeader = false
	return nil
}

// Close closes the file and frees the builders. It is safe without Open and
// idempotent.
func (s *Source) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	var err error
	if s.file != nil {
		err = s.file.Close()
		s.file = nil
	}
	if s.bat != nil {
		s.bat.release()
		s.bat = nil
	}
	return err
}
