package sql

import "strings"

// optionalOptions parses WITH (options) when WITH comes next.
func (p *parser) optionalOptions() ([]Option, error) {
	if !p.peek().is("WITH") {
		return nil, nil
	}
	return p.parseOptions()
}

// parseOptions parses WITH (key = value, ...). Keys are words, dotted words
// (nexmark.table) or quoted strings, and are lower-cased; a key may appear
// once.
func (p *parser) parseOptions() ([]Option, error) {
	p.next() // WITH
	return p.optionList("WITH")
}

// optionList parses (key = value, ...), the options after the word
// after (WITH, or SET in ALTER).
func (p *parser) optionList(after string) ([]Option, error) {
	if err := p.expectOp("(", "after "+after); err != nil {
		return nil, err
	}
	var opts []Option
	for {
		kt := p.peek()
		var key string
		switch kt.kind {
		case tString, tQuoted:
			p.next()
			key = kt.val
		case tWord:
			id, err := p.dottedIdent("an option name")
			if err != nil {
				return nil, err
			}
			key = id.Name
		default:
			return nil, p.errf("expected an option name, found %s", describe(kt))
		}
		key = strings.ToLower(key)
		if key == "" {
			return nil, p.errAt(kt, "an option name must not be empty")
		}
		for _, o := range opts {
			if o.Key == key {
				return nil, p.errAt(kt, "duplicate option %q", key)
			}
		}
		if err := p.expectOp("=", "after option "+shown(key)); err != nil {
			return nil, err
		}
		v, vpos, ok := p.literalValue()
		if !ok {
			return nil, p.errf("expected a value for option %s ('string', number, identifier, TRUE or FALSE), found %s", shown(key), describe(p.peek()))
		}
		opts = append(opts, Option{Key: key, Value: v, KeyPos: p.pos(kt), ValuePos: vpos})
		if p.acceptOp(",") {
			continue
		}
		if p.acceptOp(")") {
			return opts, nil
		}
		if p.at(tEOF) {
			return nil, p.errf("expected ')' after the options")
		}
		return nil, p.errf("expected ',' or ')' after the value of option %s, found %s", shown(key), describe(p.peek()))
	}
}

// dottedIdent parses a name made of words joined by dots (exec.batch_size).
func (p *parser) dottedIdent(what string) (Ident, error) {
	id, err := p.ident(what)
	if err != nil {
		return id, err
	}
	for p.peek().isOp(".") && p.peekAt(1).isName() {
		p.next()
		part := p.next()
		id.Name += "." + part.val
	}
	return id, nil
}

// literalValue parses the value of an option or setting: a 'string', a
// number (optionally signed), an identifier, or TRUE/FALSE (lower-cased).
// It returns the value's text without quotes.
func (p *parser) literalValue() (string, Pos, bool) {
	t := p.peek()
	switch {
	case t.kind == tString || t.kind == tQuoted:
		p.next()
		return t.val, p.pos(t), true
	case t.kind == tNumber:
		p.next()
		return t.text, p.pos(t), true
	case (t.isOp("-") || t.isOp("+")) && p.peekAt(1).kind == tNumber:
		p.next()
		n := p.next()
		if t.text == "+" {
			return n.text, p.pos(t), true
		}
		return "-" + n.text, p.pos(t), true
	case t.is("TRUE"), t.is("FALSE"):
		p.next()
		return strings.ToLower(t.text), p.pos(t), true
	case t.kind == tWord:
		p.next()
		return t.text, p.pos(t), true
	}
	return "", Pos{}, false
}
