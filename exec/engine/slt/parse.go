package slt

import (
	"fmt"
	"io"
	"regexp"
	"strings"
)

// recordKind is the kind of a sqllogictest record.
type recordKind uint8

// The record kinds the runner knows.
const (
	statementRecord  recordKind = iota + 1 // statement ok | statement error <regex>
	queryRecord                            // query <types> [sortmode] [label] | query error <regex>
	haltRecord                             // halt: stop reading the file
	restartRecord                          // restart: reopen the engine on the same data
	insertRecord                           // insert <source>, then rows: not supported yet
	watermarkRecord                        // watermark <source> <ts>: not supported yet
	checkpointRecord                       // checkpoint: not supported yet
)

// sortMode is how a query's rows are ordered before comparison.
type sortMode uint8

// The sqllogictest sort modes.
const (
	noSort    sortMode = iota // nosort: rows compared in the order returned
	rowSort                   // rowsort: rendered rows sorted
	valueSort                 // valuesort: every value sorted on its own
)

var sortModes = map[string]sortMode{"nosort": noSort, "rowsort": rowSort, "valuesort": valueSort}

// record is one parsed record.
type record struct {
	kind recordKind
	line int // 1-based line of the record's header
	skip bool

	sql       string // statement text, lines joined by \n
	sqlLine   int    // line where sql starts
	sqlOffset int    // byte offset in the file where sql starts

	wantErr bool           // statement error / query error
	errRe   *regexp.Regexp // nil matches any error

	types    string   // query type letters: I, R, T
	sort     sortMode // query sort mode
	label    string   // query label (unused)
	expected []string // result lines after ----
	dashLine int      // the line of ---- (0: no result section)

	target string   // insert / watermark: the source
	arg    string   // watermark: the timestamp
	rows   []string // insert: the inline rows
}

// ParseError is a malformed sqllogictest file.
type ParseError struct {
	File string
	Line int
	Msg  string
}

// Error returns file:line: message.
func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// srcLine is one line of the file with its position.
type srcLine struct {
	text   string
	num    int // 1-based
	offset int // byte offset of the line's start
}

// parser reads records from the lines of one file.
type parser struct {
	file  string
	lines []srcLine
	pos   int
	sort  sortMode // default sort mode, set by `control sortmode`
}

// parse parses a sqllogictest file. Records are separated by blank lines;
// `#` lines between records are comments (DuckDB's `# name:` header too).
func parse(file string, r io.Reader) ([]record, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	p := &parser{file: file}
	offset := 0
	for i, raw := range strings.Split(string(data), "\n") {
		p.lines = append(p.lines, srcLine{text: strings.TrimSuffix(raw, "\r"), num: i + 1, offset: offset})
		offset += len(raw) + 1
	}
	var recs []record
	for {
		rec, ok, err := p.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			return recs, nil
		}
		recs = append(recs, rec)
	}
}

func (p *parser) errorf(line int, format string, args ...any) error {
	return &ParseError{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

func blank(s string) bool { return strings.TrimSpace(s) == "" }

// next returns the next record, or false at the end of the file.
func (p *parser) next() (record, bool, error) {
	var conds []string // skipif/onlyif lines before the header
	for ; p.pos < len(p.lines); p.pos++ {
		ln := p.lines[p.pos]
		t := strings.TrimSpace(ln.text)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		f := strings.Fields(t)
		switch f[0] {
		case "skipif", "onlyif":
			if len(f) < 2 {
				return record{}, false, p.errorf(ln.num, "%s needs an engine name", f[0])
			}
			conds = append(conds, f[0]+" "+f[1])
			continue
		case "hash-threshold":
			continue
		case "control":
			if len(f) != 3 || f[1] != "sortmode" {
				return record{}, false, p.errorf(ln.num, "unsupported control record %q", t)
			}
			mode, ok := sortModes[f[2]]
			if !ok {
				return record{}, false, p.errorf(ln.num, "unknown sort mode %q", f[2])
			}
			p.sort = mode
			continue
		}
		rec := record{line: ln.num, skip: skipped(conds)}
		p.pos++
		err := p.parseRecord(&rec, f, t)
		return rec, err == nil, err
	}
	return record{}, false, nil
}

// skipped reports whether skipif/onlyif conditions exclude eddy.
func skipped(conds []string) bool {
	for _, c := range conds {
		kind, engine, _ := strings.Cut(c, " ")
		isEddy := strings.EqualFold(engine, "eddy")
		if (kind == "skipif" && isEddy) || (kind == "onlyif" && !isEddy) {
			return true
		}
	}
	return false
}

// parseRecord parses the record whose header (fields f, trimmed text t) was
// the line before p.pos.
func (p *parser) parseRecord(rec *record, f []string, t string) error {
	switch f[0] {
	case "statement":
		rec.kind = statementRecord
		if len(f) < 2 {
			return p.errorf(rec.line, "statement needs ok or error")
		}
		switch f[1] {
		case "ok":
			if len(f) > 2 {
				return p.errorf(rec.line, "unexpected %q after statement ok", strings.Join(f[2:], " "))
			}
		case "error":
			if err := p.errorRegex(rec, t, "statement"); err != nil {
				return err
			}
		default:
			return p.errorf(rec.line, "unsupported statement kind %q (want ok or error)", f[1])
		}
		if err := p.readSQL(rec); err != nil {
			return err
		}
		if p.pos < len(p.lines) && strings.TrimSpace(p.lines[p.pos].text) == "----" {
			return p.errorf(p.lines[p.pos].num, "a statement record has no result section")
		}
		return nil
	case "query":
		rec.kind = queryRecord
		if err := p.queryHeader(rec, f, t); err != nil {
			return err
		}
		if err := p.readSQL(rec); err != nil {
			return err
		}
		if p.pos < len(p.lines) && strings.TrimSpace(p.lines[p.pos].text) == "----" {
			if rec.wantErr {
				return p.errorf(p.lines[p.pos].num, "query error takes no result section")
			}
			rec.dashLine = p.lines[p.pos].num
			p.pos++
			rec.expected = p.readBlock()
		}
		return nil
	case "halt", "restart", "checkpoint":
		if len(f) > 1 {
			return p.errorf(rec.line, "%s takes no arguments", f[0])
		}
		rec.kind = map[string]recordKind{"halt": haltRecord, "restart": restartRecord, "checkpoint": checkpointRecord}[f[0]]
		return nil
	case "watermark":
		if len(f) < 3 {
			return p.errorf(rec.line, "watermark needs a source and a timestamp")
		}
		rec.kind, rec.target = watermarkRecord, f[1]
		rec.arg = strings.Join(f[2:], " ")
		return nil
	case "insert":
		if len(f) != 2 {
			return p.errorf(rec.line, "insert needs exactly one source name")
		}
		rec.kind, rec.target = insertRecord, f[1]
		rec.rows = p.readBlock()
		return nil
	}
	return p.errorf(rec.line, "unknown record %q", f[0])
}

// queryHeader parses `query <types> [sortmode] [label]` or `query error <regex>`.
func (p *parser) queryHeader(rec *record, f []string, t string) error {
	if len(f) < 2 {
		return p.errorf(rec.line, "query needs type letters (I, R, T) or error")
	}
	if f[1] == "error" {
		return p.errorRegex(rec, t, "query")
	}
	rec.types = f[1]
	for _, c := range rec.types {
		if c != 'I' && c != 'R' && c != 'T' {
			return p.errorf(rec.line, "unknown type letter %q in %q (want I, R or T)", c, rec.types)
		}
	}
	rec.sort = p.sort
	if len(f) > 2 {
		mode, ok := sortModes[f[2]]
		if !ok {
			return p.errorf(rec.line, "unknown sort mode %q (want nosort, rowsort or valuesort)", f[2])
		}
		rec.sort = mode
	}
	if len(f) > 3 {
		rec.label = f[3]
	}
	if len(f) > 4 {
		return p.errorf(rec.line, "unexpected %q after the query label", strings.Join(f[4:], " "))
	}
	return nil
}

// errorRegex reads the regex after `<kind> error` in the header t.
func (p *parser) errorRegex(rec *record, t, kind string) error {
	rec.wantErr = true
	rest := strings.TrimSpace(strings.TrimPrefix(t, kind))
	rest = strings.TrimSpace(strings.TrimPrefix(rest, "error"))
	if rest == "" {
		return nil
	}
	re, err := regexp.Compile(rest)
	if err != nil {
		return p.errorf(rec.line, "bad error regex: %v", err)
	}
	rec.errRe = re
	return nil
}

// readSQL reads the statement: every line up to a blank line or `----`.
func (p *parser) readSQL(rec *record) error {
	var lines []string
	for ; p.pos < len(p.lines); p.pos++ {
		ln := p.lines[p.pos]
		if blank(ln.text) || strings.TrimSpace(ln.text) == "----" {
			break
		}
		if lines == nil {
			rec.sqlLine, rec.sqlOffset = ln.num, ln.offset
		}
		lines = append(lines, ln.text)
	}
	if lines == nil {
		return p.errorf(rec.line, "record has no SQL")
	}
	rec.sql = strings.Join(lines, "\n")
	return nil
}

// readBlock reads lines up to a blank line (results, inline rows).
func (p *parser) readBlock() []string {
	var out []string
	for ; p.pos < len(p.lines) && !blank(p.lines[p.pos].text); p.pos++ {
		out = append(out, p.lines[p.pos].text)
	}
	return out
}
