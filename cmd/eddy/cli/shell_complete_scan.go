package cli

import (
	"slices"
	"strings"
)

// sqlContext is what the completer knows of the statement before the word
// it completes, from a rough scan that needs no valid SQL.
type sqlContext struct {
	// words are the statement's tokens: bare words in upper case, quoted
	// names unquoted, punctuation as written; strings and comments are
	// left out.
	words []string
	// first is the statement's first word.
	first string
	// inString says the text ends inside a string literal.
	inString bool
	// qualifier is the name before a dot right before the word (t in
	// t.col), "" when there is none.
	qualifier string
	// names are the bare and quoted names of the statement as written,
	// and aliases maps an alias (lower case) to the name before it.
	names   []string
	aliases map[string]string
	// calls holds, for each parenthesis open at the end, the word before
	// it.
	calls []string
}

// last returns the nth word from the end (1: the last), or "".
func (c sqlContext) last(n int) string {
	if n > len(c.words) {
		return ""
	}
	return c.words[len(c.words)-n]
}

// call returns the word before the innermost open parenthesis.
func (c sqlContext) call() string {
	if len(c.calls) == 0 {
		return ""
	}
	return c.calls[len(c.calls)-1]
}

// objects returns the names of the objects the statement names, as the
// catalog spells them.
func (c sqlContext) objects(objs []catalogObject) []string {
	var out []string
	for _, n := range c.names {
		for _, o := range objs {
			if strings.EqualFold(o.Name, n) && !slices.Contains(out, o.Name) {
				out = append(out, o.Name)
			}
		}
	}
	return out
}

// isKeyword reports whether the upper-case word w is one of the dialect's
// keywords, which are no aliases.
func isKeyword(w string) bool {
	return slices.Contains(sqlKeywords, w) || slices.Contains(statementStarts, w)
}

// scanContext scans text, the input before the word being completed, and
// returns the context of its last statement (what follows the last ';').
func scanContext(text string) sqlContext {
	var c sqlContext
	var raw []string // the words as written, for names
	var quoted []bool
	reset := func() {
		c, raw, quoted = sqlContext{}, nil, nil
	}
	add := func(upper, asWritten string, isName, wasQuoted bool) {
		c.words = append(c.words, upper)
		raw = append(raw, asWritten)
		quoted = append(quoted, wasQuoted)
		if isName {
			c.names = append(c.names, asWritten)
		}
	}
	for i := 0; i < len(text); {
		ch := text[i]
		switch {
		case ch == '\'' || ch == '"':
			end := closingQuote(text, i)
			if end < 0 {
				c.inString = true
				i = len(text)
				continue
			}
			add("'", "'", false, false)
			i = end + 1
		case ch == '`':
			end := strings.IndexByte(text[i+1:], '`')
			if end < 0 {
				i = len(text)
				continue
			}
			name := text[i+1 : i+1+end]
			add(name, name, true, true)
			i += end + 2
		case ch == '-' && i+1 < len(text) && text[i+1] == '-', ch == '#':
			nl := strings.IndexByte(text[i:], '\n')
			if nl < 0 {
				i = len(text)
				continue
			}
			i += nl + 1
		case ch == '/' && i+1 < len(text) && text[i+1] == '*':
			end := strings.Index(text[i+2:], "*/")
			if end < 0 {
				i = len(text)
				continue
			}
			i += end + 4
		case ch == ';':
			reset()
			i++
		case isWordByte(ch):
			j := i
			for j < len(text) && isWordByte(text[j]) {
				j++
			}
			w := text[i:j]
			add(strings.ToUpper(w), w, true, false)
			i = j
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r':
			i++
		default:
			if ch == '(' {
				c.calls = append(c.calls, c.last(1))
			} else if ch == ')' && len(c.calls) > 0 {
				c.calls = c.calls[:len(c.calls)-1]
			}
			add(string(ch), string(ch), false, false)
			i++
		}
	}
	if len(c.words) > 0 {
		c.first = c.words[0]
	}
	if n := len(c.words); n >= 2 && c.words[n-1] == "." && strings.HasSuffix(text, ".") && (quoted[n-2] || isWordByte(text[len(text)-2])) {
		c.qualifier = raw[n-2]
		c.words = c.words[:n-1]
	}
	c.aliases = map[string]string{}
	for i := 0; i+1 < len(c.words); i++ {
		j := i + 1
		if c.words[j] == "AS" {
			j++
		}
		if j < len(c.words) && (quoted[j] || isWordByte(raw[j][0]) && !isKeyword(c.words[j])) &&
			(quoted[i] || isWordByte(raw[i][0]) && !isKeyword(c.words[i])) {
			c.aliases[strings.ToLower(raw[j])] = raw[i]
		}
	}
	return c
}

// closingQuote returns the index of the quote that closes the string
// starting at text[i], or -1: a doubled quote or a backslash escape does
// not close it.
func closingQuote(text string, i int) int {
	q := text[i]
	for j := i + 1; j < len(text); j++ {
		switch text[j] {
		case '\\':
			j++
		case q:
			if j+1 < len(text) && text[j+1] == q {
				j++
				continue
			}
			return j
		}
	}
	return -1
}

// isWordByte reports whether b can be part of a bare word (bytes of
// multi-byte characters included).
func isWordByte(b byte) bool {
	return b == '_' || b == '$' || b >= 0x80 || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9'
}
