package sql

import (
	"strings"
)

// QuoteIdent returns name as it can be written in a statement: as is when
// it is a plain identifier (a letter or underscore, then letters, digits
// and underscores) that no parser takes for a keyword, otherwise in
// backquotes with any backquote doubled.
func QuoteIdent(name string) string {
	if isPlainIdent(name) && !tidbReserved[strings.ToUpper(name)] && !reservedNames[strings.ToUpper(name)] {
		return name
	}
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

// QuoteOptionKey returns the name of a WITH option as it can be written:
// as is when it is plain identifiers joined by dots (nexmark.table), else
// as a string.
func QuoteOptionKey(key string) string {
	for _, part := range strings.Split(key, ".") {
		if !isPlainIdent(part) || reservedNames[strings.ToUpper(part)] {
			return QuoteString(key)
		}
	}
	return key
}

func isPlainIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// QuoteString returns s as a single-quoted SQL string literal that the
// lexer reads back as s: quotes are doubled, backslashes doubled, and
// line breaks, tabs and NUL written as \n, \r, \t and \0 so the literal
// stays on one line.
func QuoteString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'':
			b.WriteString("''")
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case 0:
			b.WriteString(`\0`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// NormalizeSpace returns text with its comments removed and every run of
// white space and comments between two tokens made one space; the tokens
// themselves (strings and quoted names too) are kept byte for byte, so the
// statement means what text meant. Text that does not lex (an unterminated
// string or comment) is returned trimmed but otherwise unchanged.
func NormalizeSpace(text string) string {
	r := lex(text, 0, len(text))
	if r.errMsg != "" {
		return strings.TrimSpace(text)
	}
	var b strings.Builder
	b.Grow(len(text))
	prev := -1
	for _, t := range r.toks {
		if t.kind == tEOF {
			break
		}
		if prev >= 0 && t.off > prev {
			b.WriteByte(' ')
		}
		b.WriteString(text[t.off:t.end])
		prev = t.end
	}
	return b.String()
}
