package file

import (
	"encoding/binary"
	"unicode/utf16"
	"unicode/utf8"
)

// The JSON lexer: whitespace, literals, numbers and strings, and a syntax
// check for values that are skipped or kept as text. It works in place on
// the line being parsed, unescaping strings into the parser's scratch.

// ws skips JSON whitespace.
func (p *jsonParser) ws() {
	for p.i < len(p.data) {
		c := p.data[p.i]
		if c > ' ' || (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
			return
		}
		p.i++
	}
}

// eat consumes ch if it is next.
func (p *jsonParser) eat(ch byte) bool {
	if p.i < len(p.data) && p.data[p.i] == ch {
		p.i++
		return true
	}
	return false
}

// literal consumes lit (true, false or null) if it is next.
func (p *jsonParser) literal(lit string) bool {
	if len(p.data)-p.i >= len(lit) && string(p.data[p.i:p.i+len(lit)]) == lit {
		p.i += len(lit)
		return true
	}
	return false
}

// number scans a JSON number and returns its text.
func (p *jsonParser) number() ([]byte, bool) {
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
func (p *jsonParser) str() ([]byte, bool) {
	s, _, ok := p.scanStr()
	return s, ok
}

// Classes of bytes in a string, for scanStr: strStop ends the run of plain
// bytes (a quote, a backslash, a control character), strHigh is a byte
// beyond ASCII.
const (
	strStop = 1
	strHigh = 2
)

// strClass is the class of each byte in a string: 0, strStop or strHigh.
var strClass = func() (t [256]uint8) {
	for b := range t {
		switch {
		case b == '"' || b == '\\' || b < 0x20:
			t[b] = strStop
		case b >= 0x80:
			t[b] = strHigh
		}
	}
	return t
}()

// scanStr scans the string at p.i (an opening quote) and returns its value
// and whether it is plain ASCII without escapes (valid UTF-8, then). On a
// malformed string p.i is left at the byte at fault.
func (p *jsonParser) scanStr() (s []byte, ascii, ok bool) {
	d := p.data
	start := p.i + 1
	i, high := start, uint8(0)
	for i+8 <= len(d) && plain8(binary.LittleEndian.Uint64(d[i:])) {
		i += 8
	}
	for i < len(d) {
		c := strClass[d[i]]
		if c&strStop != 0 {
			break
		}
		high |= c
		i++
	}
	p.i = i
	switch {
	case i == len(d) || d[i] < 0x20:
		return nil, false, false
	case d[i] == '"':
		p.i++
		return d[start:i], high == 0, true
	}
	s, ok = p.strEscaped(start) // a backslash
	return s, false, ok
}

// plain8 reports whether the eight bytes of w are all plain ASCII in a
// string: none a quote, a backslash, a control character or beyond ASCII.
func plain8(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q := w ^ (ones * '"')
	b := w ^ (ones * '\\')
	// A byte below 0x20, or a zero byte of q or b, borrows into its high bit.
	return ((w-ones*0x20)|(q-ones)|(b-ones)|w)&highs == 0
}

// integer scans the number at p.i if it is a plain integer of at most 18
// digits (no fraction or exponent, so it fits an int64) and returns it;
// otherwise it returns false and leaves p.i, for number to scan.
func (p *jsonParser) integer() (int64, bool) {
	d, i := p.data, p.i
	neg := i < len(d) && d[i] == '-'
	if neg {
		i++
	}
	begin := i
	var v int64
	for i < len(d) {
		x := d[i] - '0'
		if x > 9 {
			break
		}
		v = v*10 + int64(x) // wraps only beyond 18 digits, which are refused
		i++
	}
	n := i - begin
	switch {
	case n == 0 || n > 18 || (n > 1 && d[begin] == '0'):
		return 0, false
	case i < len(d) && (d[i] == '.' || d[i] == 'e' || d[i] == 'E'):
		return 0, false
	}
	p.i = i
	if neg {
		v = -v
	}
	return v, true
}

// strEscaped finishes a string with escapes, unescaping it into scratch.
// Invalid surrogates become U+FFFD, as encoding/json makes them.
func (p *jsonParser) strEscaped(start int) ([]byte, bool) {
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
			r, ok := hex4(p.data[p.i+1:])
			if !ok {
				return nil, false
			}
			p.i += 4
			if utf16.IsSurrogate(r) {
				r2, ok := rune(0), false
				if rest := p.data[p.i+1:]; len(rest) >= 6 && rest[0] == '\\' && rest[1] == 'u' {
					r2, ok = hex4(rest[2:])
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

// hex4 decodes the four hex digits of a \u escape.
func hex4(b []byte) (rune, bool) {
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
// own object; a composite value at maxJSONDepth sets p.deep.
func (p *jsonParser) skip(depth int) bool {
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
		if depth+1 >= maxJSONDepth {
			p.deep = p.i
			return false
		}
		return p.skipComposite(ch, depth)
	}
	return false
}

// skipComposite checks an object or an array.
func (p *jsonParser) skipComposite(open byte, depth int) bool {
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
