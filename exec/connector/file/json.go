package file

import (
	"bytes"
	"fmt"
	"math"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/internal/jsonpath"
)

// maxFoldedKeys bounds the cache of object keys resolved case-insensitively,
// so that lines with ever-new keys cannot grow it without end.
const maxFoldedKeys = 1024

// maxJSONDepth bounds the nesting of a line's arrays and objects, the
// line's own object included (encoding/json allows 10000; 512 is far
// beyond any real record), so that a hostile line cannot exhaust the
// stack. A deeper line is a bad row, "nested too deeply".
const maxJSONDepth = 512

// jsonParser parses JSON lines, one object per line, straight into a row's
// cells: a field goes to the column of its name (exact match first, then
// case-insensitive), other fields are checked for syntax and ignored.
// Strings without escapes point into the line; unescaped ones into scratch.
type jsonParser struct {
	cols    []column
	deep    int // where skip found a value nested too deeply, or -1
	names   [][]byte
	exact   map[string]int
	folded  map[string]int // key → column, or -1 for none
	guesses []keyGuess     // by field position: the key seen there last
	scratch []byte
	data    []byte
	i       int
	f       fault // why value or skip failed
	// paths are the columns filled from a JSON path of the line
	// (column.hasPath), and pathBufs the values their paths found.
	paths    []int
	pathBufs [][]byte
}

// keyGuess remembers the key at one position of the last object and where
// it went. Producers write fields in the same order line after line, so
// comparing with the guess usually replaces a hash lookup.
type keyGuess struct {
	key   []byte
	col   int
	exact bool
}

// maxGuesses bounds the positions remembered; later fields use the maps.
const maxGuesses = 64

// newJSONParser returns a parser for rows of cols.
func newJSONParser(cols []column) *jsonParser {
	p := &jsonParser{cols: cols, exact: make(map[string]int, len(cols)), folded: make(map[string]int)}
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
func (p *jsonParser) parse(line []byte, cells []cell) fault {
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
			} else if !p.value(j, &cells[j]) {
				return p.f
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
func (p *jsonParser) lookup(pos int, key []byte) (int, bool) {
	if pos < len(p.guesses) && string(p.guesses[pos].key) == string(key) {
		return p.guesses[pos].col, p.guesses[pos].exact
	}
	j, exact := p.resolve(key)
	if pos < maxGuesses {
		for len(p.guesses) <= pos {
			p.guesses = append(p.guesses, keyGuess{col: -1})
		}
		g := &p.guesses[pos]
		g.key, g.col, g.exact = append(g.key[:0], key...), j, exact
	}
	return j, exact
}

// resolve finds the column of a field name through the maps.
func (p *jsonParser) resolve(key []byte) (int, bool) {
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
	if len(p.folded) < maxFoldedKeys {
		p.folded[string(key)] = j
	}
	return j, false
}

// value parses the value at p.i into c for column j, or sets p.f to why
// it cannot and returns false. The common values take a path of their own
// in one pass: a plain integer into an integer, timestamp or floating-point
// column is parsed while it is scanned, and a string without escapes or
// bytes beyond ASCII into a VARCHAR needs no UTF-8 check.
func (p *jsonParser) value(j int, c *cell) bool {
	col := &p.cols[j]
	c.null = false
	start := p.i
	if start >= len(p.data) {
		return p.fail(p.syntax("expected a value"))
	}
	switch ch := p.data[start]; {
	case ch == '"':
		s, ascii, ok := p.scanStr()
		switch {
		case !ok:
			return p.fail(p.syntax("invalid string"))
		case col.kind == kindJSON:
			c.s = p.data[start:p.i] // a JSON string, quoted
			return true
		case col.kind == kindString && ascii:
			c.s = s
			return true
		}
		return p.check(parseText(col, s, c), j, p.data[start:p.i])
	case ch == 'n':
		if !p.literal("null") {
			return p.fail(p.syntax("invalid literal"))
		}
		c.null = true
		return true
	case ch == 't' || ch == 'f':
		if !p.literal("true") && !p.literal("false") {
			return p.fail(p.syntax("invalid literal"))
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
			return p.fail(valueFault(faultSyntax, j, raw))
		}
		return true
	case ch == '-' || isDigit(ch):
		switch col.kind {
		case kindInt:
			if v, ok := p.integer(); ok {
				c.i = v
				if v < col.min || v > col.max {
					return p.fail(valueFault(faultRange, j, p.data[start:p.i]))
				}
				return true
			}
		case kindTimestamp: // a number is milliseconds since the epoch
			if v, ok := p.integer(); ok {
				c.i = types.RoundToFsp(v, int(col.t.Fsp))
				return true
			}
		case kindFloat:
			if v, ok := p.integer(); ok {
				c.f = float64(v) // exact, or rounded as ParseFloat rounds
				if v == 0 && ch == '-' {
					c.f = math.Copysign(0, -1)
				}
				return true
			}
		}
		raw, ok := p.number()
		if !ok {
			return p.fail(p.syntax("invalid number"))
		}
		switch col.kind {
		case kindString, kindJSON:
			c.s = raw
			return true
		case kindTimestamp: // a number is milliseconds since the epoch: digits only
			v, code := parseInt(raw)
			c.i = types.RoundToFsp(v, int(col.t.Fsp))
			return p.check(code, j, raw)
		case kindDate:
			return p.fail(valueFault(faultSyntax, j, raw))
		}
		return p.check(parseText(col, raw, c), j, raw)
	case ch == '{' || ch == '[':
		if !p.skip(0) {
			return p.fail(p.skipFault())
		}
		raw := p.data[start:p.i]
		if col.kind != kindString && col.kind != kindJSON {
			return p.fail(valueFault(faultSyntax, j, raw))
		}
		c.s = raw // a nested value is kept as its JSON text
		return true
	}
	return p.fail(p.syntax("expected a value"))
}

// fail sets the fault value returns and returns false.
func (p *jsonParser) fail(f fault) bool {
	p.f = f
	return false
}

// check returns whether a parse outcome for column j is good, setting the
// fault when it is not; raw is the value's text.
func (p *jsonParser) check(code faultCode, j int, raw []byte) bool {
	if code == faultNone {
		return true
	}
	return p.fail(valueFault(code, j, raw))
}

// pathValue fills c, column j's cell, from the value the line, a checked
// object, holds at the column's path: NULL when it holds none.
func (p *jsonParser) pathValue(line []byte, j int, c *cell) fault {
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
	ok := p.value(j, c)
	p.data, p.i = data, i
	if !ok {
		return p.f
	}
	return fault{}
}

// valueFault wraps a parse outcome for column j; raw is the value's text.
func valueFault(code faultCode, j int, raw []byte) fault {
	if code == faultNone {
		return fault{}
	}
	return fault{code: code, col: j, value: raw, raw: true}
}

// skipFault returns the fault of a value skip refused: nested too deeply,
// or malformed.
func (p *jsonParser) skipFault() fault {
	if p.deep >= 0 {
		return fault{code: faultRecord, msg: fmt.Sprintf("JSON nested too deeply: more than %d levels of arrays and objects at byte %d", maxJSONDepth, p.deep+1)}
	}
	return p.syntax("invalid value")
}

// syntax returns a malformed-JSON fault at the current byte.
func (p *jsonParser) syntax(what string) fault {
	return fault{code: faultRecord, msg: fmt.Sprintf("malformed JSON: %s at byte %d", what, p.i+1)}
}
