// Code copied from json.go and json_scan.go as of commit 236c3f7, before the
// single-pass typed fast paths: the reference the randomized test compares the
// parser with. Only names are changed (a ref prefix).

package file

import (
	"bytes"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/internal/jsonpath"
)

// refMaxFoldedKeys bounds the cache of object keys resolved case-insensitively,
// so that lines with ever-new keys cannot grow it without end.
const refMaxFoldedKeys = 1024

// refMaxJSONDepth bounds the nesting of a line's arrays and objects, the
// line's own object included (encoding/json allows 10000; 512 is far
// beyond any real record), so that a hostile line cannot exhaust the
// stack. A deeper line is a bad row, "nested too deeply".
const refMaxJSONDepth = 512

// refParser parses JSON lines, one object per line, straight into a row's
// cells: a field goes to the column of its name (exact match first, then
// case-insensitive), other fields are checked for syntax and ignored.
// Strings without escapes point into the line; unescaped ones into scratch.
type refParser struct {
	cols    []column
	deep    int // where skip found a value nested too deeply, or -1
	names   [][]byte
	exact   map[string]int
	folded  map[string]int // key → column, or -1 for none
	guesses []refKeyGuess  // by field position: the key seen there last
	scratch []byte
	data    []byte
	i       int
	// paths are the columns filled from a JSON path of the line
	// (column.hasPath), and pathBufs the values their paths found.
	paths    []int
	pathBufs [][]byte
}

// refKeyGuess remembers the key at one position of the last object and where
// it went. Producers write fields in the same order line after line, so
// comparing with the guess usually replaces a hash lookup.
type refKeyGuess struct {
	key   []byte
	col   int
	exact bool
}

// refMaxGuesses bounds the positions remembered; later fields use the maps.
const refMaxGuesses = 64

// newRefParser returns a parser for rows of cols.
func newRefParser(cols []column) *refParser {
	p := &refParser{cols: cols, exact: make(map[string]int, len(cols)), folded: make(map[string]int)}
	for j, c := range cols {
		p.names = append(p.names, []byte(c.name))
		if c.hasPath {
			p.paths = append(p.paths, j)
			continue // not filled by a field of its name
		}
		p.exact[c.name] = j
	}
	p.pathBufs = make([][]byte, len(cols))
	return p
}

// parse parses line into cells, one per column. A missing field or a JSON
// null is NULL; a duplicated field keeps its last value.
func (p *refParser) parse(line []byte, cells []cell) fault {
	p.data, p.i, p.scratch, p.deep = line, 0, p.scratch[:0], -1
	for j := range cells {
		cells[j].null, cells[j].exact = true, false // other fields are set with the value
	}
	p.ws()
	if !p.eat('{') {
		return p.syntax("expected an object")
	}
	p.ws()
	if !p.eat('}') {
		for pos := 0; ; pos++ {
			p.ws()
			if p.i >= len(p.data) || p.data[p.i] != '"' {
				return p.syntax("expected a field name")
			}
			key, ok := p.str()
			if !ok {
				return p.syntax("invalid string")
			}
			p.ws()
			if !p.eat(':') {
				return p.syntax("expected ':' after a field name")
			}
			p.ws()
			j, exact := p.lookup(pos, key)
			if j < 0 || (!exact && cells[j].exact) {
				if !p.skip(0) {
					return p.skipFault()
				}
			} else if f := p.value(j, &cells[j]); f.code != faultNone {
				return f
			} else {
				cells[j].exact = exact
			}
			p.ws()
			if p.eat(',') {
				continue
			}
			if p.eat('}') {
				break
			}
			return p.syntax("expected ',' or '}'")
		}
	}
	p.ws()
	if p.i != len(p.data) {
		return p.syntax("unexpected text after the object")
	}
	for _, j := range p.paths {
		if f := p.pathValue(line, j, &cells[j]); f.code != faultNone {
			return f
		}
	}
	for j := range cells {
		if cells[j].null && !p.cols[j].nullable {
			return fault{code: faultNull, col: j}
		}
	}
	return fault{}
}

// lookup returns the column the field name at position pos of the object
// belongs to, or -1, and whether the name matched exactly.
func (p *refParser) lookup(pos int, key []byte) (int, bool) {
	if pos < len(p.guesses) && string(p.guesses[pos].key) == string(key) {
		return p.guesses[pos].col, p.guesses[pos].exact
	}
	j, exact := p.resolve(key)
	if pos < refMaxGuesses {
		for len(p.guesses) <= pos {
			p.guesses = append(p.guesses, refKeyGuess{col: -1})
		}
		g := &p.guesses[pos]
		g.key, g.col, g.exact = append(g.key[:0], key...), j, exact
	}
	return j, exact
}

// resolve finds the column of a field name through the maps.
func (p *refParser) resolve(key []byte) (int, bool) {
	if j, ok := p.exact[string(key)]; ok {
		return j, true
	}
	if j, ok := p.folded[string(key)]; ok {
		return j, false
	}
	j := -1
	for k, name := range p.names {
		if !p.cols[k].hasPath && bytes.EqualFold(name, key) {
			j = k
			break
		}
	}
	if len(p.folded) < refMaxFoldedKeys {
		p.folded[string(key)] = j
	}
	return j, false
}

// value parses the value at p.i into c for column j.
func (p *refParser) value(j int, c *cell) fault {
	col := &p.cols[j]
	c.null = false
	start := p.i
	if start >= len(p.data) {
		return p.syntax("expected a value")
	}
	switch ch := p.data[start]; {
	case ch == '"':
		s, ok := p.str()
		if !ok {
			return p.syntax("invalid string")
		}
		if col.kind == kindJSON {
			c.s = p.data[start:p.i] // a JSON string, quoted
			return fault{}
		}
		return refValueFault(parseText(col, s, c), j, p.data[start:p.i])
	case ch == 'n':
		if !p.literal("null") {
			return p.syntax("invalid literal")
		}
		c.null = true
		return fault{}
	case ch == 't' || ch == 'f':
		if !p.literal("true") && !p.literal("false") {
			return p.syntax("invalid literal")
		}
		raw := p.data[start:p.i]
		switch col.kind {
		case kindBool:
			c.i = 0
			if raw[0] == 't' {
				c.i = 1
			}
		case kindString, kindJSON:
			c.s = raw
		default:
			return refValueFault(faultSyntax, j, raw)
		}
		return fault{}
	case ch == '-' || isDigit(ch):
		raw, ok := p.number()
		if !ok {
			return p.syntax("invalid number")
		}
		switch col.kind {
		case kindString, kindJSON:
			c.s = raw
			return fault{}
		case kindTimestamp: // a number is milliseconds since the epoch: digits only
			v, code := parseInt(raw)
			c.i = types.RoundToFsp(v, int(col.t.Fsp))
			return refValueFault(code, j, raw)
		case kindDate:
			return refValueFault(faultSyntax, j, raw)
		}
		return refValueFault(parseText(col, raw, c), j, raw)
	case ch == '{' || ch == '[':
		if !p.skip(0) {
			return p.skipFault()
		}
		raw := p.data[start:p.i]
		if col.kind != kindString && col.kind != kindJSON {
			return refValueFault(faultSyntax, j, raw)
		}
		c.s = raw // a nested value is kept as its JSON text
		return fault{}
	}
	return p.syntax("expected a value")
}

// pathValue fills c, column j's cell, from the value the line, a checked
// object, holds at the column's path: NULL when it holds none.
func (p *refParser) pathValue(line []byte, j int, c *cell) fault {
	v, found, err := jsonpath.Extract(p.pathBufs[j][:0], line, p.cols[j].path)
	p.pathBufs[j] = v
	if err != nil {
		return p.syntax("invalid value")
	}
	if !found {
		c.null = true
		return fault{}
	}
	data, i := p.data, p.i
	p.data, p.i = v, 0
	f := p.value(j, c)
	p.data, p.i = data, i
	return f
}

// refValueFault wraps a parse outcome for column j; raw is the value's text.
func refValueFault(code faultCode, j int, raw []byte) fault {
	if code == faultNone {
		return fault{}
	}
	return fault{code: code, col: j, value: raw, raw: true}
}

// skipFault returns the fault of a value skip refused: nested too deeply,
// or malformed.
func (p *refParser) skipFault() fault {
	if p.deep >= 0 {
		return fault{code: faultRecord, msg: fmt.Sprintf("JSON nested too deeply: more than %d levels of arrays and objects at byte %d", refMaxJSONDepth, p.deep+1)}
	}
	return p.syntax("invalid value")
}

// syntax returns a malformed-JSON fault at the current byte.
func (p *refParser) syntax(what string) fault {
	return fault{code: faultRecord, msg: fmt.Sprintf("malformed JSON: %s at byte %d", what, p.i+1)}
}

// The JSON lexer: whitespace, literals, numbers and strings, and a syntax
// check for values that are skipped or kept as text. It works in place on
// the line being parsed, unescaping strings into the parser's scratch.

// ws skips JSON whitespace.
func (p *refParser) ws() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

// eat consumes ch if it is next.
func (p *refParser) eat(ch byte) bool {
	if p.i < len(p.data) && p.data[p.i] == ch {
		p.i++
		return true
	}
	return false
}

// literal consumes lit (true, false or null) if it is next.
func (p *refParser) literal(lit string) bool {
	if len(p.data)-p.i >= len(lit) && string(p.data[p.i:p.i+len(lit)]) == lit {
		p.i += len(lit)
		return true
	}
	return false
}

// number scans a JSON number and returns its text.
func (p *refParser) number() ([]byte, bool) {
	d, start := p.data, p.i
	i := start
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	default:
		return nil, false
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i == len(d) || !isDigit(d[i]) {
			return nil, false
		}
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i == len(d) || !isDigit(d[i]) {
			return nil, false
		}
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	}
	p.i = i
	return d[start:i], true
}

// str scans the string at p.i (an opening quote) and returns its value.
func (p *refParser) str() ([]byte, bool) {
	p.i++
	start := p.i
	for p.i < len(p.data) {
		switch ch := p.data[p.i]; {
		case ch == '"':
			p.i++
			return p.data[start : p.i-1], true
		case ch == '\\':
			return p.strEscaped(start)
		case ch < 0x20:
			return nil, false
		}
		p.i++
	}
	return nil, false
}

// strEscaped finishes a string with escapes, unescaping it into scratch.
// Invalid surrogates become U+FFFD, as encoding/json makes them.
func (p *refParser) strEscaped(start int) ([]byte, bool) {
	from := len(p.scratch)
	p.scratch = append(p.scratch, p.data[start:p.i]...)
	for p.i < len(p.data) {
		ch := p.data[p.i]
		switch {
		case ch == '"':
			p.i++
			return p.scratch[from:], true
		case ch < 0x20:
			return nil, false
		case ch != '\\':
			p.scratch = append(p.scratch, ch)
			p.i++
			continue
		}
		p.i++
		if p.i >= len(p.data) {
			return nil, false
		}
		switch e := p.data[p.i]; e {
		case '"', '\\', '/':
			p.scratch = append(p.scratch, e)
		case 'b':
			p.scratch = append(p.scratch, '\b')
		case 'f':
			p.scratch = append(p.scratch, '\f')
		case 'n':
			p.scratch = append(p.scratch, '\n')
		case 'r':
			p.scratch = append(p.scratch, '\r')
		case 't':
			p.scratch = append(p.scratch, '\t')
		case 'u':
			r, ok := refHex4(p.data[p.i+1:])
			if !ok {
				return nil, false
			}
			p.i += 4
			if utf16.IsSurrogate(r) {
				r2, ok := rune(0), false
				if rest := p.data[p.i+1:]; len(rest) >= 6 && rest[0] == '\\' && rest[1] == 'u' {
					r2, ok = refHex4(rest[2:])
				}
				if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
					r = dec
					p.i += 6
				} else {
					r = utf8.RuneError
				}
			}
			p.scratch = utf8.AppendRune(p.scratch, r)
		default:
			return nil, false
		}
		p.i++
	}
	return nil, false
}

// refHex4 decodes the four hex digits of a \u escape.
func refHex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case isDigit(c):
			r = r<<4 | rune(c-'0')
		case c|0x20 >= 'a' && c|0x20 <= 'f':
			r = r<<4 | rune(c|0x20-'a'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// skip checks the syntax of the value at p.i and moves past it. depth is
// the number of arrays and objects the value is in, besides the line's
// own object; a composite value at refMaxJSONDepth sets p.deep.
func (p *refParser) skip(depth int) bool {
	if p.i >= len(p.data) {
		return false
	}
	switch ch := p.data[p.i]; {
	case ch == '"':
		_, ok := p.str()
		return ok
	case ch == 't':
		return p.literal("true")
	case ch == 'f':
		return p.literal("false")
	case ch == 'n':
		return p.literal("null")
	case ch == '-' || isDigit(ch):
		_, ok := p.number()
		return ok
	case ch == '{' || ch == '[':
		if depth+1 >= refMaxJSONDepth {
			p.deep = p.i
			return false
		}
		return p.skipComposite(ch, depth)
	}
	return false
}

// skipComposite checks an object or an array.
func (p *refParser) skipComposite(open byte, depth int) bool {
	closer := byte(']')
	if open == '{' {
		closer = '}'
	}
	p.i++
	p.ws()
	if p.eat(closer) {
		return true
	}
	for {
		p.ws()
		if open == '{' {
			if p.i >= len(p.data) || p.data[p.i] != '"' {
				return false
			}
			if _, ok := p.str(); !ok {
				return false
			}
			p.ws()
			if !p.eat(':') {
				return false
			}
			p.ws()
		}
		if !p.skip(depth + 1) {
			return false
		}
		p.ws()
		if p.eat(',') {
			continue
		}
		return p.eat(closer)
	}
}
