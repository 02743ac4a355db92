package difftest

import (
	"fmt"
	"slices"
	"strings"
)

// tokKind is the kind of a lexical token of the translator.
type tokKind uint8

const (
	tSpace  tokKind = iota // whitespace and comments
	tIdent                 // a word: identifier or keyword
	tQuoted                // a `quoted` identifier
	tString                // a '...' string literal
	tNumber                // a numeric literal
	tOp                    // an operator or punctuation
)

// token is one lexical token and its text as written.
type token struct {
	kind tokKind
	text string
}

// is reports whether t is the keyword or operator s (keywords in any case).
func (t token) is(s string) bool {
	if t.kind == tIdent {
		return strings.EqualFold(t.text, s)
	}
	return t.kind == tOp && t.text == s
}

// str returns the value of a string literal, its quotes removed and ”
// unescaped.
func (t token) str() string {
	return strings.ReplaceAll(t.text[1:len(t.text)-1], "''", "'")
}

// multiOps are the operators longer than one character, longest first.
var multiOps = []string{"<=>", "<=", ">=", "<>", "!=", "||", "&&", "<<", ">>"}

// lex cuts MySQL-dialect SQL into tokens. It knows just enough to keep
// string literals and comments intact and to see words, numbers and
// operators.
func lex(s string) ([]token, error) {
	var out []token
	i := 0
	for i < len(s) {
		c := s[i]
		start := i
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			for i < len(s) && strings.IndexByte(" \t\n\r", s[i]) >= 0 {
				i++
			}
			out = append(out, token{tSpace, s[start:i]})
		case c == '-' && strings.HasPrefix(s[i:], "--"), c == '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
			out = append(out, token{tSpace, " "})
		case strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return nil, fmt.Errorf("unterminated comment at offset %d", i)
			}
			i += end + 4
			out = append(out, token{tSpace, " "})
		case c == '\'' || c == '`' || c == '"':
			i++
			for {
				if i >= len(s) {
					return nil, fmt.Errorf("unterminated quote at offset %d", start)
				}
				if s[i] == c {
					if i+1 < len(s) && s[i+1] == c {
						i += 2
						continue
					}
					i++
					break
				}
				i++
			}
			switch c {
			case '`':
				out = append(out, token{tQuoted, s[start:i]})
			case '"': // a string in MySQL: rewritten with single quotes
				v := strings.ReplaceAll(s[start+1:i-1], `""`, `"`)
				out = append(out, token{tString, "'" + strings.ReplaceAll(v, "'", "''") + "'"})
			default:
				out = append(out, token{tString, s[start:i]})
			}
		case isDigit(c) || c == '.' && i+1 < len(s) && isDigit(s[i+1]):
			for i < len(s) && (isDigit(s[i]) || s[i] == '.') {
				i++
			}
			if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
				j := i + 1
				if j < len(s) && (s[j] == '+' || s[j] == '-') {
					j++
				}
				if j < len(s) && isDigit(s[j]) {
					for i = j; i < len(s) && isDigit(s[i]); i++ {
					}
				}
			}
			out = append(out, token{tNumber, s[start:i]})
		case isWord(c):
			for i < len(s) && (isWord(s[i]) || isDigit(s[i])) {
				i++
			}
			out = append(out, token{tIdent, s[start:i]})
		default:
			n := 1
			for _, op := range multiOps {
				if strings.HasPrefix(s[i:], op) {
					n = len(op)
					break
				}
			}
			i += n
			out = append(out, token{tOp, s[start:i]})
		}
	}
	return out, nil
}

// isDigit reports whether c is an ASCII digit.
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isWord reports whether c can start a word: a letter, '_' or a byte of a
// multi-byte character.
func isWord(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// next returns the index of the first token at or after i that is not
// space, or len(toks).
func next(toks []token, i int) int {
	for i < len(toks) && toks[i].kind == tSpace {
		i++
	}
	return i
}

// closing returns the index of the ')' matching the '(' at toks[open].
func closing(toks []token, open int) (int, error) {
	depth := 0
	for i := open; i < len(toks); i++ {
		switch {
		case toks[i].is("("):
			depth++
		case toks[i].is(")"):
			depth--
			if depth == 0 {
				return i, nil
			}
		}
	}
	return 0, fmt.Errorf("unbalanced parentheses")
}

// splitTop cuts toks at the commas outside parentheses.
func splitTop(toks []token) [][]token {
	var out [][]token
	depth, start := 0, 0
	for i, t := range toks {
		switch {
		case t.is("("):
			depth++
		case t.is(")"):
			depth--
		case t.is(",") && depth == 0:
			out = append(out, toks[start:i])
			start = i + 1
		}
	}
	return append(out, toks[start:])
}

// trim removes leading and trailing space tokens.
func trim(toks []token) []token {
	for len(toks) > 0 && toks[0].kind == tSpace {
		toks = toks[1:]
	}
	for len(toks) > 0 && toks[len(toks)-1].kind == tSpace {
		toks = toks[:len(toks)-1]
	}
	return toks
}

// cut cuts toks around the first token that is word, returning the
// tokens before and after it without their leading and trailing space;
// ok is false when no token is word.
func cut(toks []token, word string) (before, after []token, ok bool) {
	i := slices.IndexFunc(toks, func(t token) bool { return t.is(word) })
	if i < 0 {
		return nil, nil, false
	}
	return trim(toks[:i]), trim(toks[i+1:]), true
}

// text joins tokens back into SQL.
func text(toks []token) string {
	var b strings.Builder
	for _, t := range toks {
		b.WriteString(t.text)
	}
	return b.String()
}
