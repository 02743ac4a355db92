package file

import (
	"bytes"
	"strconv"
)

// scanStatus is the outcome of scanning for one record.
type scanStatus uint8

const (
	scanMore   scanStatus = iota // the data ends inside a record: read more
	scanRecord                   // a record was scanned
	scanBad                      // a malformed record was consumed; see the message
	scanSkip                     // a blank line was consumed
)

// field is one CSV field: its text (unescaped) and whether it was quoted,
// which tells NULL (an unquoted empty field) from the empty string ("").
type field struct {
	b      []byte
	quoted bool
}

// csvScanner splits CSV records (RFC 4180) into fields in place. Fields of a
// record point into the scanned data, or into scratch for quoted fields with
// doubled quotes; both stay valid until the next scan.
type csvScanner struct {
	delim   byte
	fields  []field
	scratch []byte
}

// scan scans one record from data. final reports that no more data will
// follow, so that a record without a final line break is complete. It
// returns how many bytes the record took and how many line breaks they hold.
// A line break inside a quoted field belongs to the field.
func (c *csvScanner) scan(data []byte, final bool) (n, lines int, st scanStatus, msg string) {
	nl := bytes.IndexByte(data, '\n')
	var line []byte
	switch {
	case nl >= 0:
		line, n, lines = data[:nl], nl+1, 1
	case final && len(data) > 0:
		line, n = data, len(data)
	default:
		return 0, 0, scanMore, ""
	}
	if bytes.IndexByte(line, '"') >= 0 {
		return c.scanQuoted(data, final)
	}
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	c.fields = c.fields[:0]
	for {
		k := bytes.IndexByte(line, c.delim)
		if k < 0 {
			break
		}
		c.fields = append(c.fields, field{b: line[:k]})
		line = line[k+1:]
	}
	c.fields = append(c.fields, field{b: line})
	return n, lines, scanRecord, ""
}

// scanQuoted scans a record that contains quotes and so may span lines.
func (c *csvScanner) scanQuoted(data []byte, final bool) (n, lines int, st scanStatus, msg string) {
	c.fields = c.fields[:0]
	c.scratch = c.scratch[:0]
	i := 0
	for {
		if i < len(data) && data[i] == '"' {
			// A quoted field: up to the quote not followed by another.
			i++
			start, doubled := i, false
			for {
				k := bytes.IndexByte(data[i:], '"')
				if k < 0 {
					if !final {
						return 0, 0, scanMore, ""
					}
					return len(data), bytes.Count(data, nlByte), scanBad, "malformed CSV: unterminated quoted field"
				}
				i += k + 1
				if i == len(data) && !final {
					return 0, 0, scanMore, "" // the next byte may be a second quote
				}
				if i < len(data) && data[i] == '"' {
					doubled = true
					i++
					continue
				}
				break
			}
			val := data[start : i-1]
			if doubled {
				from := len(c.scratch)
				c.scratch = appendUnquoted(c.scratch, val)
				val = c.scratch[from:]
			}
			c.fields = append(c.fields, field{b: val, quoted: true})
		} else {
			// An unquoted field: up to the delimiter or the line break. A
			// quote inside it is kept as a character.
			j := i
			for j < len(data) && data[j] != c.delim && data[j] != '\n' {
				j++
			}
			if j == len(data) && !final {
				return 0, 0, scanMore, ""
			}
			end := j
			if (j == len(data) || data[j] == '\n') && end > i && data[end-1] == '\r' {
				end--
			}
			c.fields = append(c.fields, field{b: data[i:end]})
			i = j
		}
		// After a field: a delimiter, a line break or the end of the data.
		switch {
		case i == len(data):
			return i, bytes.Count(data[:i], nlByte), scanRecord, ""
		case data[i] == c.delim:
			i++
		case data[i] == '\n':
			i++
			return i, bytes.Count(data[:i], nlByte), scanRecord, ""
		case data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n':
			i += 2
			return i, bytes.Count(data[:i], nlByte), scanRecord, ""
		case data[i] == '\r' && i+1 == len(data):
			if !final {
				return 0, 0, scanMore, ""
			}
			return i + 1, bytes.Count(data, nlByte), scanRecord, ""
		default:
			// Text after a closing quote: skip the rest of the line.
			bad := data[i]
			k := bytes.IndexByte(data[i:], '\n')
			if k < 0 && !final {
				return 0, 0, scanMore, ""
			}
			end := len(data)
			if k >= 0 {
				end = i + k + 1
			}
			return end, bytes.Count(data[:end], nlByte), scanBad,
				"malformed CSV: unexpected " + strconv.QuoteRune(rune(bad)) + " after a closing quote"
		}
	}
}

var nlByte = []byte{'\n'}

// appendUnquoted appends v with each doubled quote made single.
func appendUnquoted(dst, v []byte) []byte {
	for {
		k := bytes.IndexByte(v, '"')
		if k < 0 {
			return append(dst, v...)
		}
		dst = append(dst, v[:k+1]...)
		v = v[k+2:]
	}
}
